/* PTHREAD_PRIO_INHERIT mutexes under contention, in SCHED_OTHER threads:
 * four threads count 20,000 times each under one, then take turns through
 * a condition variable that waits with it; a timed lock of one held by
 * another thread times out; a destroy of a held one is EBUSY.  (glibc's
 * kernel PI futexes name OS threads, which a thread under weft is not.) */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "weft_check.h"

static pthread_mutex_t m;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static long count, turn;

static void *worker(void *a)
{
	long me = (long)a;
	for (int i = 0; i < 20000; i++) {
		pthread_mutex_lock(&m);
		count++;
		pthread_mutex_unlock(&m);
	}
	for (int i = 0; i < 200; i++) {
		pthread_mutex_lock(&m);
		while (turn % 4 != me)
			pthread_cond_wait(&c, &m);
		turn++;
		pthread_cond_broadcast(&c);
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

static void *timed(void *a)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 20000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	int r = pthread_mutex_timedlock(&m, &ts);
	printf("timedlock of a held one: %s\n", r ? strerrorname_np(r) : "0");
	return a;
}

int main(void)
{
	weft_check_loaded();
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&m, &a);
	pthread_mutexattr_destroy(&a);
	pthread_t t[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("count %ld, turns %ld\n", count, turn);
	pthread_mutex_lock(&m);
	pthread_create(&t[0], NULL, timed, NULL);
	pthread_join(t[0], NULL);
	int r = pthread_mutex_destroy(&m);
	printf("destroy held: %s\n", r ? strerrorname_np(r) : "0");
	pthread_mutex_unlock(&m);
	r = pthread_mutex_destroy(&m);
	printf("destroy: %s\n", r ? strerrorname_np(r) : "0");
	return 0;
}
