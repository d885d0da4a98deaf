/* Error semantics of every mutex kind. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "weft_check.h"
#include "test_util.h"

#define SHOW(label, expr) printf("%-40s %s\n", label, en(expr))


/* Runs fn(m) on another thread and returns its result. */
struct call { pthread_mutex_t *m; int (*fn)(pthread_mutex_t *); int r; };
static void *call_thread(void *a)
{
	struct call *c = a;
	c->r = c->fn(c->m);
	return NULL;
}
static int on_other(int (*fn)(pthread_mutex_t *), pthread_mutex_t *m)
{
	struct call c = { m, fn, -1 };
	pthread_t t;
	pthread_create(&t, NULL, call_thread, &c);
	pthread_join(t, NULL);
	return c.r;
}
static int timed_rt(pthread_mutex_t *m)
{
	struct timespec ts;
	deadline(CLOCK_REALTIME, &ts, 30);
	return pthread_mutex_timedlock(m, &ts);
}
static int timed_mono(pthread_mutex_t *m)
{
	struct timespec ts;
	deadline(CLOCK_MONOTONIC, &ts, 30);
	return pthread_mutex_clocklock(m, CLOCK_MONOTONIC, &ts);
}
static int timed_bad(pthread_mutex_t *m)
{
	struct timespec ts = { 0, 1000000000 };
	return pthread_mutex_timedlock(m, &ts);
}
static int timed_badneg(pthread_mutex_t *m)
{
	struct timespec ts = { 0, -1 };
	return pthread_mutex_clocklock(m, CLOCK_MONOTONIC, &ts);
}

/* Holder thread: locks m, signals, waits to be told to unlock. */
static pthread_mutex_t hm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hc = PTHREAD_COND_INITIALIZER;
static int hstate;
static void *holder(void *a)
{
	pthread_mutex_t *m = a;
	pthread_mutex_lock(m);
	pthread_mutex_lock(&hm);
	hstate = 1;
	pthread_cond_broadcast(&hc);
	while (hstate != 2)
		pthread_cond_wait(&hc, &hm);
	pthread_mutex_unlock(&hm);
	pthread_mutex_unlock(m);
	return NULL;
}
static pthread_t hold(pthread_mutex_t *m)
{
	pthread_t t;
	hstate = 0;
	pthread_create(&t, NULL, holder, m);
	pthread_mutex_lock(&hm);
	while (hstate != 1)
		pthread_cond_wait(&hc, &hm);
	pthread_mutex_unlock(&hm);
	return t;
}
static void release(pthread_t t)
{
	pthread_mutex_lock(&hm);
	hstate = 2;
	pthread_cond_broadcast(&hc);
	pthread_mutex_unlock(&hm);
	pthread_join(t, NULL);
}

static void kind_tests(const char *name, pthread_mutex_t *m)
{
	char l[80];
	printf("== %s\n", name);
	snprintf(l, sizeof l, "%s trylock free", name);
	SHOW(l, pthread_mutex_trylock(m));
	snprintf(l, sizeof l, "%s trylock other thread", name);
	SHOW(l, on_other(pthread_mutex_trylock, m));
	snprintf(l, sizeof l, "%s timedlock(rt) other thread", name);
	SHOW(l, on_other(timed_rt, m));
	snprintf(l, sizeof l, "%s clocklock(mono) other thread", name);
	SHOW(l, on_other(timed_mono, m));
	snprintf(l, sizeof l, "%s timedlock bad nsec", name);
	SHOW(l, on_other(timed_bad, m));
	snprintf(l, sizeof l, "%s clocklock negative nsec", name);
	SHOW(l, on_other(timed_badneg, m));
	snprintf(l, sizeof l, "%s destroy locked", name);
	SHOW(l, pthread_mutex_destroy(m));
	snprintf(l, sizeof l, "%s unlock", name);
	SHOW(l, pthread_mutex_unlock(m));
	snprintf(l, sizeof l, "%s timedlock free bad nsec", name);
	{
		struct timespec ts = { 0, 1000000000 };
		int r = pthread_mutex_timedlock(m, &ts);
		/* POSIX: may succeed without validating when free */
		SHOW(l, r == EINVAL ? 0 : r);
		if (r == 0)
			pthread_mutex_unlock(m);
	}
	/* held by another thread, released later: a blocking lock succeeds */
	pthread_t t = hold(m);
	snprintf(l, sizeof l, "%s trylock held by holder", name);
	SHOW(l, pthread_mutex_trylock(m));
	snprintf(l, sizeof l, "%s timedlock held by holder", name);
	SHOW(l, timed_rt(m));
	release(t);
	snprintf(l, sizeof l, "%s lock after release", name);
	SHOW(l, pthread_mutex_lock(m));
	SHOW("  unlock", pthread_mutex_unlock(m));
	snprintf(l, sizeof l, "%s destroy unlocked", name);
	SHOW(l, pthread_mutex_destroy(m));
}

static int timed_badclock(pthread_mutex_t *m)
{
	struct timespec ts;
	deadline(CLOCK_MONOTONIC, &ts, 10);
	return pthread_mutex_clocklock(m, CLOCK_PROCESS_CPUTIME_ID, &ts);
}

static pthread_mutex_t cm;
static long counter;
static int ckind;
static void *contend(void *a)
{
	(void)a;
	for (int i = 0; i < 20000; i++) {
		pthread_mutex_lock(&cm);
		if (i % 1000 == 0 && ckind != PTHREAD_MUTEX_NORMAL) {
			/* recursive: nests; errorcheck: EDEADLK */
			if (pthread_mutex_lock(&cm) == 0)
				pthread_mutex_unlock(&cm);
		}
		counter++;
		pthread_mutex_unlock(&cm);
	}
	return NULL;
}

static pthread_mutex_t rec_static = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t ec_static = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;

static int unlock_fn(pthread_mutex_t *m) { return pthread_mutex_unlock(m); }
static int lock_fn(pthread_mutex_t *m) { return pthread_mutex_lock(m); }

static void recursive_tests(const char *name, pthread_mutex_t *m)
{
	printf("== %s recursion\n", name);
	int bad = 0;
	for (int i = 0; i < 100; i++)
		if (pthread_mutex_lock(m) != 0)
			bad++;
	for (int i = 0; i < 50; i++)
		if (pthread_mutex_trylock(m) != 0)
			bad++;
	printf("%s locked 150 deep, errors %d\n", name, bad);
	printf("%s other trylock while deep: %s\n", name, en(on_other(pthread_mutex_trylock, m)));
	printf("%s other unlock: %s\n", name, en(on_other(unlock_fn, m)));
	int unlocks = 0;
	while (pthread_mutex_unlock(m) == 0 && unlocks < 1000)
		unlocks++;
	printf("%s successful unlocks %d\n", name, unlocks);
	printf("%s unlock unlocked: %s\n", name, en(pthread_mutex_unlock(m)));
	printf("%s other trylock after: %s\n", name, en(on_other(pthread_mutex_trylock, m)));
	/* the other thread exited holding it; it stays locked by that thread */
	printf("%s my trylock (owned by dead thread): %s\n", name, en(pthread_mutex_trylock(m)));
}

static void errorcheck_tests(const char *name, pthread_mutex_t *m)
{
	printf("== %s errorcheck\n", name);
	printf("%s unlock unlocked: %s\n", name, en(pthread_mutex_unlock(m)));
	printf("%s lock: %s\n", name, en(pthread_mutex_lock(m)));
	printf("%s relock: %s\n", name, en(pthread_mutex_lock(m)));
	printf("%s trylock self: %s\n", name, en(pthread_mutex_trylock(m)));
	{
		struct timespec ts;
		deadline(CLOCK_REALTIME, &ts, 30);
		printf("%s timedlock self: %s\n", name, en(pthread_mutex_timedlock(m, &ts)));
	}
	printf("%s unlock by other: %s\n", name, en(on_other(unlock_fn, m)));
	printf("%s unlock: %s\n", name, en(pthread_mutex_unlock(m)));
	printf("%s unlock again: %s\n", name, en(pthread_mutex_unlock(m)));
	printf("%s lock on other: %s\n", name, en(on_other(lock_fn, m)));
	printf("%s unlock owned by exited other: %s\n", name, en(pthread_mutex_unlock(m)));
}

int main(void)
{
	weft_check_loaded();
	pthread_mutexattr_t a;
	pthread_mutex_t m;
	int kinds[] = { PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_RECURSIVE, PTHREAD_MUTEX_ERRORCHECK,
			PTHREAD_MUTEX_DEFAULT };
	const char *names[] = { "normal", "recursive", "errorcheck", "default" };
	for (int k = 0; k < 4; k++) {
		pthread_mutexattr_init(&a);
		printf("settype %s: %s\n", names[k], en(pthread_mutexattr_settype(&a, kinds[k])));
		pthread_mutex_init(&m, &a);
		pthread_mutexattr_destroy(&a);
		kind_tests(names[k], &m);
	}
	{
		pthread_mutex_t s = PTHREAD_MUTEX_INITIALIZER;
		kind_tests("static-normal", &s);
	}
	{
		pthread_mutex_t s = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;
		kind_tests("static-adaptive", &s);
	}
	{
		pthread_mutex_t s = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
		kind_tests("static-recursive", &s);
	}

	recursive_tests("rec-static", &rec_static);
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&m, &a);
	recursive_tests("rec-attr", &m);

	errorcheck_tests("ec-static", &ec_static);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&m, &a);
	errorcheck_tests("ec-attr", &m);
	pthread_mutexattr_destroy(&a);

	/* clocklock with an unsupported clock, on a held and on a free mutex */
	{
		pthread_mutex_t s = PTHREAD_MUTEX_INITIALIZER;
		pthread_mutex_lock(&s);
		printf("clocklock bad clock held: %s\n", en(on_other(timed_badclock, &s)));
		pthread_mutex_unlock(&s);
		printf("clocklock bad clock free: %s\n", en(timed_badclock(&s)));
	}
	/* contention: 8 threads x 20000 increments under each kind */
	for (int k = 0; k < 3; k++) {
		pthread_mutexattr_init(&a);
		pthread_mutexattr_settype(&a, kinds[k]);
		pthread_mutex_init(&cm, &a);
		pthread_mutexattr_destroy(&a);
		counter = 0;
		ckind = kinds[k];
		pthread_t t[8];
		for (int i = 0; i < 8; i++)
			pthread_create(&t[i], NULL, contend, NULL);
		for (int i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
		printf("contention %s: %ld\n", names[k], counter);
		pthread_mutex_destroy(&cm);
	}
	return 0;
}
