/* Asynchronous cancellation of a thread waiting in pthread_rwlock_rdlock,
 * pthread_rwlock_wrlock, their timed forms and pthread_barrier_wait: none
 * is a cancellation point, but with PTHREAD_CANCEL_ASYNCHRONOUS glibc's
 * SIGCANCEL interrupts the futex wait and the thread unwinds at once,
 * running its cleanup handlers.  (What the lock's state is afterwards is
 * undefined: glibc's is left with a waiter bit set, so each case uses a
 * lock of its own.)
 * Under weft such a wait was not cancelled until the lock was released. */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"

static sem_t started;
static atomic_int cleanups;
static pthread_rwlock_t rw;
static pthread_barrier_t bar;

static void cleanup(void *a) { (void)a; atomic_fetch_add(&cleanups, 1); }

static void abs_in(struct timespec *ts, int sec)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += sec;
}

static void *waiter(void *a)
{
	const char *what = a;
	struct timespec dl;
	int r = -1;
	abs_in(&dl, 30);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	pthread_cleanup_push(cleanup, NULL);
	sem_post(&started);
	switch (what[0]) {
	case 'r': r = pthread_rwlock_rdlock(&rw); break;
	case 'w': r = pthread_rwlock_wrlock(&rw); break;
	case 'R': r = pthread_rwlock_timedrdlock(&rw, &dl); break;
	case 'W': r = pthread_rwlock_timedwrlock(&rw, &dl); break;
	case 'b': r = pthread_barrier_wait(&bar); break;
	}
	pthread_cleanup_pop(0);
	return (void *)(long)r; /* never reached when cancelled */
}

static void run(const char *what)
{
	pthread_t t;
	void *r = NULL;
	atomic_store(&cleanups, 0);
	pthread_create(&t, NULL, waiter, (void *)what);
	sem_wait(&started);
	usleep(20000); /* well into the wait */
	int c = pthread_cancel(t);
	struct timespec dl;
	abs_in(&dl, 5);
	int j = pthread_timedjoin_np(t, &r, &dl);
	if (j) {
		printf("%s: not cancelled within 5 s (join %d)\n", what, j);
		exit(1);
	}
	printf("%s: cancel %d, join %d, %s, cleanup handlers %d\n", what, c, j,
	       r == PTHREAD_CANCELED ? "PTHREAD_CANCELED" : "returned", atomic_load(&cleanups));
}

int main(void)
{
	weft_check_loaded();
	setvbuf(stdout, NULL, _IOLBF, 0);
	sem_init(&started, 0, 0);

	const char *behind_writer[] = {"rdlock", "wrlock", "R timedrdlock", "W timedwrlock"};
	for (int i = 0; i < 4; i++) {
		pthread_rwlock_init(&rw, NULL);
		pthread_rwlock_wrlock(&rw);
		run(behind_writer[i]);
	}
	const char *behind_reader[] = {"wrlock behind a reader", "W timedwrlock behind a reader"};
	for (int i = 0; i < 2; i++) {
		pthread_rwlock_init(&rw, NULL);
		pthread_rwlock_rdlock(&rw);
		run(behind_reader[i]);
	}
	pthread_barrier_init(&bar, NULL, 2);
	run("barrier");
	return 0;
}
