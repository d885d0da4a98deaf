/* Asynchronous cancellation (PTHREAD_CANCEL_ASYNCHRONOUS): a thread
 * spinning in its own code, and one waiting in pthread_mutex_lock, are
 * cancelled: their cleanup handlers and key destructors run and the join
 * returns PTHREAD_CANCELED, as with glibc, whose SIGCANCEL handler unwinds
 * from the interrupted instruction.  Under weft the spinning thread was
 * never cancelled (asynchronous acted as deferred) and the join hung. */
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
static atomic_int cleanups, dtors;
static pthread_key_t key;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void cleanup(void *a) { (void)a; atomic_fetch_add(&cleanups, 1); }
static void key_dtor(void *v) { (void)v; atomic_fetch_add(&dtors, 1); }

static volatile unsigned long sink;

/* Not inlined: the unwinder goes through a frame of its own. */
static __attribute__((noinline)) void spin(void)
{
	for (unsigned long i = 0;; i++)
		sink = i * 3 + 1;
}

static void *spinner(void *a)
{
	(void)a;
	pthread_setspecific(key, (void *)1);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	pthread_cleanup_push(cleanup, NULL);
	sem_post(&started);
	spin();
	pthread_cleanup_pop(0);
	return NULL;
}

static void *locker(void *a)
{
	(void)a;
	pthread_setspecific(key, (void *)1);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	pthread_cleanup_push(cleanup, NULL);
	sem_post(&started);
	pthread_mutex_lock(&mu); /* main holds it */
	pthread_mutex_unlock(&mu);
	pthread_cleanup_pop(0);
	return (void *)1;
}

static void run(const char *name, void *(*fn)(void *))
{
	pthread_t t;
	void *r = NULL;
	atomic_store(&cleanups, 0);
	atomic_store(&dtors, 0);
	pthread_create(&t, NULL, fn, NULL);
	sem_wait(&started);
	usleep(20000); /* well into the spin or the wait */
	int c = pthread_cancel(t);
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 10;
	int j = pthread_timedjoin_np(t, &r, &dl);
	if (j) {
		printf("%s: not cancelled within 10 s (join %d)\n", name, j);
		exit(1);
	}
	printf("%s: cancel %d, join %d, %s, cleanup handlers %d, key destructors %d\n", name, c,
	       j, r == PTHREAD_CANCELED ? "PTHREAD_CANCELED" : "returned", atomic_load(&cleanups),
	       atomic_load(&dtors));
}

int main(void)
{
	weft_check_loaded();
	setvbuf(stdout, NULL, _IOLBF, 0);
	sem_init(&started, 0, 0);
	pthread_key_create(&key, key_dtor);
	for (int i = 0; i < 3; i++)
		run("spinning", spinner);
	pthread_mutex_lock(&mu);
	run("in pthread_mutex_lock", locker);
	pthread_mutex_unlock(&mu);
	/* The mutex still works after a waiter was cancelled. */
	printf("lock after: %d\n", pthread_mutex_lock(&mu));
	pthread_mutex_unlock(&mu);
	return 0;
}
