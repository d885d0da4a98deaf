/*
 * stack_target MODE N: a program for `weft stack` (tests/tools/run.sh).
 *   park N  N threads parked on a condition variable;
 *   spin N  N threads and main in tight loops (no system call);
 *   nap N   N threads parked, main asleep 10 ms at a time (with N 0, a
 *           process glibc still runs single-threaded).
 * Prints "ready" once they are all started, then runs until SIGUSR1,
 * releases them, joins them and prints "done N".
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go;                  /* [mu] */
static _Atomic int started;
static volatile sig_atomic_t stop;

static void *parked(void *a)
{
	pthread_mutex_lock(&mu);
	atomic_fetch_add(&started, 1);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return a;
}

static void *spinning(void *a)
{
	atomic_fetch_add(&started, 1);
	unsigned long n = 0;
	while (!stop)
		n++;
	return (void *)n;
}

static void on_usr1(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "park") && strcmp(argv[1], "spin") &&
			  strcmp(argv[1], "nap"))) {
		fprintf(stderr, "usage: stack_target park|spin|nap N\n");
		return 2;
	}
	int n = atoi(argv[2]);
	bool spin = !strcmp(argv[1], "spin"), nap = !strcmp(argv[1], "nap");
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (spin || nap)
		signal(SIGUSR1, on_usr1);
	else
		pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	pthread_t *t = calloc((size_t)n, sizeof *t);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, spin ? spinning : parked, NULL) != 0) {
			fprintf(stderr, "pthread_create failed at %d\n", i);
			return 1;
		}
	while (atomic_load(&started) < n)
		sched_yield();
	if (!spin) { /* all of them parked: started under mu, waiting releases it */
		pthread_mutex_lock(&mu);
		pthread_mutex_unlock(&mu);
	}
	printf("ready\n");
	fflush(stdout);
	if (spin) {
		unsigned long k = 0;
		while (!stop)
			k++;
	} else if (nap) {
		while (!stop)
			usleep(10000);
		pthread_mutex_lock(&mu);
		go = 1;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	} else {
		int sig;
		sigwait(&usr1, &sig);
		pthread_mutex_lock(&mu);
		go = 1;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("done %d\n", n);
	return 0;
}
