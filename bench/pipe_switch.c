/*
 * pipe_switch [N [cpuclock]] — two threads pass a one-byte token back and
 * forth N times each way (default 200,000) over two pipes; prints the time
 * of one hand-off.  Every hand-off is a blocking read(2) in the kernel.
 * With "cpuclock" it first reads its thread CPU clock once.
 */
#include <pthread.h>
#include <unistd.h>

#include "bench.h"

static int p[2][2]; /* p[i]: pipe into player i */
static long rounds;

static void *player(void *arg)
{
	int me = (int)(long)arg;
	char c = 't';
	for (long i = 0; i < rounds; i++) {
		if (me == 0 && write(p[1][1], &c, 1) != 1)
			abort();
		if (read(p[me][0], &c, 1) != 1)
			abort();
		if (me == 1 && write(p[0][1], &c, 1) != 1)
			abort();
	}
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
	if (pipe(p[0]) || pipe(p[1]))
		return perror("pipe"), 1;
	pthread_t a, b;
	double t0 = now_s();
	pthread_create(&a, NULL, player, (void *)0L);
	pthread_create(&b, NULL, player, (void *)1L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	double t = now_s() - t0;
	printf("hand-offs:         %ld\n", 2 * rounds);
	printf("pipe, one hand-off: %.0f ns\n", t * 1e9 / (2.0 * rounds));
	return 0;
}
