/*
 * switch [N [cpuclock]] — two threads pass a token back and forth N times
 * each way (default 200,000) with one mutex and two condition variables;
 * prints the time of one hand-off.  With "cpuclock" it first reads its
 * thread CPU clock once.
 */
#include <pthread.h>

#include "bench.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv[2] = { PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER };
static int turn;
static long rounds;

static void *player(void *arg)
{
	int me = (int)(long)arg;
	pthread_mutex_lock(&mu);
	for (long i = 0; i < rounds; i++) {
		while (turn != me)
			pthread_cond_wait(&cv[me], &mu);
		turn = !me;
		pthread_cond_signal(&cv[!me]);
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

int main(int argc, char **argv)
{
	rounds = arg_long(argc, argv, 1, 200000);
	if (argc > 2 && strcmp(argv[2], "cpuclock") == 0) {
		/* A program that reads a thread CPU clock: under weft every
		 * switch then reads its worker's (sched/process/cpuclock.c). */
		struct timespec ts;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	}
	pthread_t a, b;
	double t0 = now_s();
	pthread_create(&a, NULL, player, (void *)0L);
	pthread_create(&b, NULL, player, (void *)1L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	double t = now_s() - t0;
	printf("hand-offs:         %ld\n", 2 * rounds);
	printf("threads, one hand-off: %.0f ns\n", t * 1e9 / (2.0 * rounds));
	return 0;
}
