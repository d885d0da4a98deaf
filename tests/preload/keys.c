/* pthread keys: per-thread values, destructors at thread exit, destructor
 * re-arming, more keys than glibc's first-level block (32), key_delete. */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "weft_check.h"

#define NT 16
#define NKEYS 100

static pthread_key_t k_basic, k_rearm, k_null, k_deleted, many[NKEYS];
static atomic_int basic_calls, basic_bad, rearm_calls, null_calls, deleted_calls, many_calls,
	many_bad, values_ok;
static atomic_long basic_sum;

static void basic_dtor(void *v)
{
	if (!v)
		atomic_fetch_add(&basic_bad, 1);
	atomic_fetch_add(&basic_calls, 1);
	atomic_fetch_add(&basic_sum, *(long *)v);
	free(v);
}

/* re-sets its own value every time: runs PTHREAD_DESTRUCTOR_ITERATIONS times */
static void rearm_dtor(void *v)
{
	atomic_fetch_add(&rearm_calls, 1);
	pthread_setspecific(k_rearm, (char *)v + 1);
}

static void null_dtor(void *v)
{
	(void)v;
	atomic_fetch_add(&null_calls, 1);
}

static void deleted_dtor(void *v)
{
	(void)v;
	atomic_fetch_add(&deleted_calls, 1);
}

static void many_dtor(void *v)
{
	if ((uintptr_t)v % 1000 == 0)
		atomic_fetch_add(&many_bad, 1);
	atomic_fetch_add(&many_calls, 1);
}

/* rearm_once: re-sets a different key once; that key's dtor must run too */
static pthread_key_t k_chain1, k_chain2;
static atomic_int chain1_calls, chain2_calls;
static void chain2_dtor(void *v)
{
	(void)v;
	atomic_fetch_add(&chain2_calls, 1);
}
static void chain1_dtor(void *v)
{
	(void)v;
	atomic_fetch_add(&chain1_calls, 1);
	pthread_setspecific(k_chain2, (void *)1);
}

static pthread_barrier_t bar;

static void *worker(void *arg)
{
	long id = (long)arg;
	long *p = malloc(sizeof *p);
	*p = id;
	pthread_setspecific(k_basic, p);
	pthread_setspecific(k_rearm, (void *)(uintptr_t)(id * 100 + 1));
	pthread_setspecific(k_null, (void *)1);
	pthread_setspecific(k_null, NULL); /* NULL at exit: no destructor call */
	pthread_setspecific(k_deleted, (void *)2);
	pthread_setspecific(k_chain1, (void *)3);
	for (int i = 0; i < NKEYS; i++)
		pthread_setspecific(many[i], (void *)(uintptr_t)(id * 1000 + i + 1));
	int ok = 1;
	for (int r = 0; r < 20; r++) {
		if (r % 2)
			sched_yield();
		else
			usleep(200);
		if (pthread_getspecific(k_basic) != p || *(long *)pthread_getspecific(k_basic) != id)
			ok = 0;
		for (int i = 0; i < NKEYS; i++)
			if (pthread_getspecific(many[i]) != (void *)(uintptr_t)(id * 1000 + i + 1))
				ok = 0;
	}
	atomic_fetch_add(&values_ok, ok);
	/* main deletes k_deleted between these barriers */
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	if (id % 2)
		pthread_exit(NULL); /* destructors run for pthread_exit too */
	return NULL;
}

static void *fresh(void *a)
{
	(void)a;
	/* a thread that never set anything sees NULL everywhere */
	int nulls = pthread_getspecific(k_basic) == NULL;
	for (int i = 0; i < NKEYS; i++)
		nulls += pthread_getspecific(many[i]) == NULL;
	return (void *)(uintptr_t)nulls;
}

int main(void)
{
	weft_check_loaded();
	pthread_key_create(&k_basic, basic_dtor);
	pthread_key_create(&k_rearm, rearm_dtor);
	pthread_key_create(&k_null, null_dtor);
	pthread_key_create(&k_deleted, deleted_dtor);
	pthread_key_create(&k_chain1, chain1_dtor);
	pthread_key_create(&k_chain2, chain2_dtor);
	int created = 0;
	for (int i = 0; i < NKEYS; i++)
		created += pthread_key_create(&many[i], many_dtor) == 0;
	printf("keys created %d\n", created);
	printf("PTHREAD_DESTRUCTOR_ITERATIONS %d\n", PTHREAD_DESTRUCTOR_ITERATIONS);

	/* main's own values are independent of the threads' */
	pthread_setspecific(k_basic, NULL);
	pthread_setspecific(many[NKEYS - 1], (void *)77);

	pthread_barrier_init(&bar, NULL, NT + 1);
	pthread_t t[NT];
	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	pthread_barrier_wait(&bar);
	printf("delete k_deleted: %d\n", pthread_key_delete(k_deleted));
	pthread_barrier_wait(&bar);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("values ok in %d threads\n", values_ok);
	printf("basic dtor calls %d bad %d sum %ld\n", basic_calls, basic_bad, basic_sum);
	printf("rearm dtor calls %d (= %d x %d)\n", rearm_calls, NT, PTHREAD_DESTRUCTOR_ITERATIONS);
	printf("null-valued dtor calls %d\n", null_calls);
	printf("deleted-key dtor calls %d\n", deleted_calls);
	printf("chain dtor calls %d %d\n", chain1_calls, chain2_calls);
	printf("many dtor calls %d bad %d\n", many_calls, many_bad);
	printf("main value kept %d\n", pthread_getspecific(many[NKEYS - 1]) == (void *)77);

	/* a key created after a delete does not show stale values */
	pthread_key_t k2;
	pthread_key_create(&k2, NULL);
	printf("new key value in main NULL %d\n", pthread_getspecific(k2) == NULL);

	pthread_t f;
	void *r;
	pthread_create(&f, NULL, fresh, NULL);
	pthread_join(f, &r);
	printf("fresh thread NULL values %ld of %d\n", (long)(uintptr_t)r, NKEYS + 1);

	/* second round after deleting every key: no destructor calls */
	for (int i = 0; i < NKEYS; i++)
		pthread_key_delete(many[i]);
	pthread_key_delete(k_basic);
	pthread_key_delete(k_rearm);
	pthread_key_delete(k_chain1);
	pthread_key_delete(k_chain2);
	basic_calls = rearm_calls = many_calls = chain1_calls = chain2_calls = 0;
	/* re-create keys, some of which reuse slots: new threads start NULL */
	for (int i = 0; i < NKEYS; i++)
		pthread_key_create(&many[i], many_dtor);
	pthread_create(&f, NULL, fresh, NULL);
	pthread_join(f, &r);
	printf("fresh thread after re-create NULL values %ld\n", (long)(uintptr_t)r);
	printf("round 2 dtor calls %d\n", basic_calls + rearm_calls + many_calls + chain1_calls + chain2_calls);
	return 0;
}
