/* lock_hot: four threads take a hot mutex often, holding it across a
 * short sleep (contended), and a cold mutex rarely (seldom contended);
 * each lock is taken in a function of its own (take_hot, take_cold), the
 * call sites a mutex profile names. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t hot = PTHREAD_MUTEX_INITIALIZER, cold = PTHREAD_MUTEX_INITIALIZER;
static long nhot, ncold;

__attribute__((noinline)) static void take_hot(void)
{
	pthread_mutex_lock(&hot);
	struct timespec d = { 0, 200000 };
	nanosleep(&d, NULL);
	nhot++;
	pthread_mutex_unlock(&hot);
}

__attribute__((noinline)) static void take_cold(void)
{
	pthread_mutex_lock(&cold);
	ncold++;
	pthread_mutex_unlock(&cold);
}

static void *run(void *a)
{
	(void)a;
	for (int i = 0; i < 200; i++) {
		take_hot();
		if (i % 20 == 0)
			take_cold();
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, run, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("hot %ld cold %ld\n", nhot, ncold);
	return 0;
}
