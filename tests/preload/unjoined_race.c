/* Threads that return at once, looked up by their pthread_t while they
 * exit: a joiner joins each as soon as it is created, a prober asks
 * pthread_kill(0), pthread_getattr_np and pthread_getname_np of the
 * newest ones, and every fifth is detached by its creator, all racing the
 * threads' exits (weft swaps an exited thread's record for a small one at
 * that moment: sched/core/task.c).  Every join must get the thread's own value,
 * every probe the answer of a live or exited thread, and a second round
 * joined only after all have exited (each its record swapped by then)
 * must give the same values to join, tryjoin and timedjoin, and the same
 * answers to the probes. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"
#include "test_util.h"

#define N_MAX 4000
static int N = N_MAX;
static pthread_t ids[N_MAX];
static atomic_int made, exited, stop;
static atomic_long kill_bad, attr_bad, name_bad, probes;

static void *body(void *arg)
{
	long i = (long)arg;
	char name[16];
	snprintf(name, sizeof name, "w%ld", i);
	pthread_setname_np(pthread_self(), name);
	atomic_fetch_add(&exited, 1);
	return (void *)(i * 7 + 3);
}

static void probe(pthread_t th, int k)
{
	atomic_fetch_add(&probes, 1);
	if (pthread_kill(th, 0) != 0)
		atomic_fetch_add(&kill_bad, 1);
	pthread_attr_t a;
	if (pthread_getattr_np(th, &a) == 0) {
		size_t size = 0;
		void *addr = NULL;
		pthread_attr_getstack(&a, &addr, &size);
		if (size < 16384 || !addr)
			atomic_fetch_add(&attr_bad, 1);
		pthread_attr_destroy(&a);
	} else {
		atomic_fetch_add(&attr_bad, 1);
	}
	char name[16] = "";
	/* Natively an exited thread's name is gone (ENOENT); a live one's
	 * is its creator's or its own: either is fine, another's is not. */
	if (pthread_getname_np(th, name, sizeof name) == 0 && name[0] == 'w' &&
	    atoi(name + 1) != k)
		atomic_fetch_add(&name_bad, 1);
}

static void *prober(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		int n = atomic_load(&made);
		for (int k = n - 1; k >= 0 && k >= n - 4; k--)
			if (k % 5 && k % 2) /* neither detached nor joined by the joiner */
				probe(ids[k], k);
		sched_yield();
	}
	return NULL;
}

static atomic_long joined_ok;

static void *joiner(void *arg)
{
	(void)arg;
	/* Joins the even ones that are not detached, each as soon as made. */
	for (int i = 0; i < N; i++) {
		if (i % 5 == 0 || i % 2)
			continue;
		while (atomic_load(&made) <= i)
			sched_yield();
		void *v = NULL;
		if (pthread_join(ids[i], &v) == 0 && (long)v == i * 7 + 3)
			atomic_fetch_add(&joined_ok, 1);
	}
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	N = test_threads(N_MAX) / 10 * 10;
	alarm(60);
	pthread_t pj, pp;
	pthread_create(&pj, NULL, joiner, NULL);
	pthread_create(&pp, NULL, prober, NULL);
	long detached = 0;
	for (long i = 0; i < N; i++) {
		if (pthread_create(&ids[i], NULL, body, (void *)i)) {
			printf("create %ld failed\n", i);
			return 1;
		}
		atomic_store(&made, (int)i + 1);
		if (i % 5 == 0)
			detached += pthread_detach(ids[i]) == 0;
	}
	pthread_join(pj, NULL);
	while (atomic_load(&exited) < N)
		usleep(1000);
	atomic_store(&stop, 1);
	pthread_join(pp, NULL);
	printf("detached at once: %ld of %d\n", detached, N / 5);
	printf("joined as they exited, with their values: %ld of %d\n", atomic_load(&joined_ok),
	       N / 2 - N / 10);
	printf("probes: %s; pthread_kill(0) not 0: %ld, getattr_np wrong: %ld, name wrong: %ld\n",
	       atomic_load(&probes) > 0 ? "some" : "none", atomic_load(&kill_bad),
	       atomic_load(&attr_bad), atomic_load(&name_bad));

	/* The odd ones have all exited unjoined: probed again, then joined
	 * three ways. */
	usleep(100000); /* natively, until the kernel has cleared their tids */
	atomic_store(&kill_bad, 0);
	atomic_store(&attr_bad, 0);
	atomic_store(&name_bad, 0);
	for (int i = 1; i < N; i += 2)
		if (i % 5)
			probe(ids[i], i);
	printf("after exit: pthread_kill(0) not 0: %ld, getattr_np wrong: %ld, name wrong: %ld\n",
	       atomic_load(&kill_bad), atomic_load(&attr_bad), atomic_load(&name_bad));
	long ok[3] = { 0 }, second = 0;
	for (int i = 1; i < N; i += 2) {
		if (i % 5 == 0)
			continue;
		void *v = NULL;
		int how = (i / 2) % 3, e;
		if (how == 0) {
			e = pthread_join(ids[i], &v);
		} else if (how == 1) {
			while ((e = pthread_tryjoin_np(ids[i], &v)) == EBUSY)
				sched_yield();
		} else {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 30;
			e = pthread_timedjoin_np(ids[i], &v, &ts);
		}
		ok[how] += e == 0 && (long)v == i * 7 + 3;
		/* Another thread's join of the same ID now: undefined natively
		 * once joined, so only the count of successful joins matters. */
		second += e == 0;
	}
	printf("joined after exit: join %ld, tryjoin %ld, timedjoin %ld; joins done %ld\n", ok[0],
	       ok[1], ok[2], second);
	return 0;
}
