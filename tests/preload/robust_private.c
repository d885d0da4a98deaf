/* Process-private robust mutexes held by threads that end: the next
 * locker gets EOWNERDEAD (a waiter already blocked on it too), the
 * mutex is usable again after pthread_mutex_consistent, and
 * ENOTRECOVERABLE for good without it.  qemu-user does not implement
 * set_robust_list, so natively there a dead holder's mutex is never
 * marked (the native run hangs): it says SKIP-NATIVE, and weft's output
 * must equal robust_private.expected. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include "test_util.h"

static pthread_mutex_t rm;

static void make_robust(int type)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, type);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&rm, &a);
	pthread_mutexattr_destroy(&a);
}

static void *lock_and_return(void *arg)
{
	(void)arg;
	return (void *)(long)pthread_mutex_lock(&rm);
}

/* A holder that ends while another thread is blocked on the mutex. */
static struct gate holding = GATE_INIT, blocked = GATE_INIT, let_go = GATE_INIT;

static void *holder(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&rm);
	gate_open(&holding);
	gate_wait(&let_go);
	return NULL; /* still holding rm */
}

static void *blocker(void *arg)
{
	(void)arg;
	gate_open(&blocked);
	int r = pthread_mutex_lock(&rm); /* blocks until the holder ends */
	int c = r == EOWNERDEAD ? pthread_mutex_consistent(&rm) : -1;
	int u = pthread_mutex_unlock(&rm);
	printf("blocked locker: %s, consistent %s, unlock %s\n", en(r), c < 0 ? "-" : en(c), en(u));
	return NULL;
}

static void round_ended(int type, const char *name, int n)
{
	make_robust(type);
	for (int i = 0; i < n; i++) {
		pthread_t t;
		void *ret;
		pthread_create(&t, NULL, lock_and_return, NULL);
		pthread_join(t, &ret);
		int r = pthread_mutex_lock(&rm);
		int c = pthread_mutex_consistent(&rm);
		int u = pthread_mutex_unlock(&rm);
		printf("%s #%d: holder's lock %s; next lock %s, consistent %s, unlock %s\n", name, i,
		       en((int)(long)ret), en(r), en(c), en(u));
	}
	int r = pthread_mutex_lock(&rm);
	printf("%s: then lock %s, unlock %s, destroy ", name, en(r), en(pthread_mutex_unlock(&rm)));
	printf("%s\n", en(pthread_mutex_destroy(&rm)));
}

int main(void)
{
	weft_check_loaded();
	if (emulated() && !weft_loaded()) {
		printf("SKIP-NATIVE\n");
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	round_ended(PTHREAD_MUTEX_NORMAL, "normal", 3);
	round_ended(PTHREAD_MUTEX_ERRORCHECK, "errorcheck", 2);
	round_ended(PTHREAD_MUTEX_RECURSIVE, "recursive", 2);

	/* Not made consistent: unusable for good. */
	make_robust(PTHREAD_MUTEX_NORMAL);
	pthread_t t;
	pthread_create(&t, NULL, lock_and_return, NULL);
	pthread_join(t, NULL);
	int r1 = pthread_mutex_lock(&rm);
	int u1 = pthread_mutex_unlock(&rm);
	int r2 = pthread_mutex_lock(&rm);
	int r3 = pthread_mutex_trylock(&rm);
	printf("not consistent: lock %s, unlock %s, then lock %s, trylock %s\n", en(r1), en(u1),
	       en(r2), en(r3));
	pthread_mutex_destroy(&rm);

	/* A locker blocked when the holder ends. */
	make_robust(PTHREAD_MUTEX_NORMAL);
	pthread_t h, b;
	pthread_create(&h, NULL, holder, NULL);
	gate_wait(&holding);
	pthread_create(&b, NULL, blocker, NULL);
	gate_wait(&blocked);
	usleep(50 * 1000); /* the blocker is in its lock by now, or soon is */
	gate_open(&let_go);
	pthread_join(h, NULL);
	pthread_join(b, NULL);
	int r = pthread_mutex_lock(&rm);
	printf("after: lock %s, unlock %s\n", en(r), en(pthread_mutex_unlock(&rm)));
	return 0;
}
