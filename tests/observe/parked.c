/*
 * parked.c N: N threads park on one condition variable (inside the static
 * functions park_here <- parked_worker, so a dump must name functions
 * dladdr cannot see), one thread spins, and main prints "ready" and waits
 * for its standard input to close (the first parked thread is named
 * "parked-0"); then it wakes and joins them all and
 * prints "done".  tests/observe/run.sh sends SIGQUIT in between.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go, parked;
static atomic_int stop;

static __attribute__((noinline)) void park_here(void)
{
	pthread_mutex_lock(&mu);
	parked++;
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

static void *parked_worker(void *arg)
{
	(void)arg;
	park_here();
	__asm__ volatile("" ::: "memory"); /* not a tail call: keep this frame */
	return NULL;
}

static void *spinner(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		;
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10000;
	pthread_t *th = calloc(n, sizeof *th), sp;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 << 10);
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], &a, parked_worker, NULL) != 0) {
			printf("create %d failed\n", i);
			return 1;
		}
	pthread_setname_np(th[0], "parked-0"); /* the dump and gdb show it */
	pthread_create(&sp, NULL, spinner, NULL);
	for (;;) {
		pthread_mutex_lock(&mu);
		int p = parked;
		pthread_mutex_unlock(&mu);
		if (p == n)
			break;
		usleep(1000);
	}
	printf("ready %d\n", n);
	fflush(stdout);
	char c;
	while (read(0, &c, 1) > 0)
		;
	pthread_mutex_lock(&mu);
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	atomic_store(&stop, 1);
	pthread_join(sp, NULL);
	printf("done\n");
	return 0;
}
