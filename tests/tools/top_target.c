/*
 * top_target N: a program for `weft top` (tests/tools/run.sh): N threads
 * parked on a condition variable, and two busy ones, named: "busy" spins
 * without a pause, "half" spins 20 ms and sleeps 20 ms in turn.  Prints
 * "ready" once they are all started, then runs until SIGUSR1, releases
 * and joins them all and prints "done N".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go;                  /* [mu] */
static _Atomic int started;
static _Atomic int stop;

static void *parked(void *a)
{
	pthread_mutex_lock(&mu);
	atomic_fetch_add(&started, 1);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return a;
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *busy(void *a)
{
	pthread_setname_np(pthread_self(), "busy");
	atomic_fetch_add(&started, 1);
	unsigned long n = 0;
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		n++;
	return (void *)n;
}

static void *half(void *a)
{
	pthread_setname_np(pthread_self(), "half");
	atomic_fetch_add(&started, 1);
	unsigned long n = 0;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		long long end = now_ns() + 20000000;
		while (now_ns() < end)
			n++;
		usleep(20000);
	}
	return (void *)n;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: top_target N\n");
		return 2;
	}
	int n = atoi(argv[1]);
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	pthread_t *t = calloc((size_t)n + 2, sizeof *t);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, parked, NULL) != 0) {
			fprintf(stderr, "pthread_create failed at %d\n", i);
			return 1;
		}
	if (pthread_create(&t[n], NULL, busy, NULL) != 0 ||
	    pthread_create(&t[n + 1], NULL, half, NULL) != 0) {
		fprintf(stderr, "pthread_create failed\n");
		return 1;
	}
	while (atomic_load(&started) < n + 2)
		sched_yield();
	pthread_mutex_lock(&mu); /* all parked: started under mu, waiting releases it */
	pthread_mutex_unlock(&mu);
	printf("ready\n");
	fflush(stdout);
	int sig;
	sigwait(&usr1, &sig);
	atomic_store(&stop, 1);
	pthread_mutex_lock(&mu);
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < n + 2; i++)
		pthread_join(t[i], NULL);
	printf("done %d\n", n);
	return 0;
}
