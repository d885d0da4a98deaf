/* Threads that have exited but are not joined yet keep their pthread_t:
 * POSIX makes a thread ID unique until the thread is joined or detached,
 * and the joiner gets the thread's own value.  Two waves of threads that
 * return at once are left unjoined (the second wave is created while the
 * first has exited, which is when a runtime could hand a dead thread's
 * stack on; it has stacks of a fixed 320 KiB, which must keep all but the
 * TCB and TLS of that size wherever a runtime puts the TCB to keep it
 * off the first wave's IDs); then every ID must differ from every other, equal what the
 * thread saw as pthread_self, answer pthread_kill(0), pthread_getattr_np
 * and pthread_sigqueue as an exited thread's does, and give its value to
 * exactly one join, whatever order joins and detaches come in. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "weft_check.h"
#include "test_util.h"

#define N_MAX 3000
static int WAVE = N_MAX / 2, N = N_MAX; /* test_threads(N_MAX): fewer under emulation */

static pthread_t ids[N_MAX], selves[N_MAX];
static atomic_int done;

#define FIXED (320 * 1024) /* over the 256 KiB weft packs: a home slot of its own */
#define FIXED_USE (FIXED - 24 * 1024) /* glibc takes the TCB and static TLS off the size */

static __attribute__((noinline)) void use_stack(void)
{
	volatile char buf[FIXED_USE];
	for (long k = 0; k < FIXED_USE; k += 4096)
		buf[k] = 1;
	buf[0] = buf[FIXED_USE - 1];
}

static void *body(void *arg)
{
	long i = (long)arg;
	if (i >= WAVE && i < 2 * WAVE)
		use_stack();
	selves[i] = pthread_self();
	atomic_fetch_add(&done, 1);
	return (void *)(i * 3 + 1);
}

static int cmp(const void *a, const void *b)
{
	pthread_t x = *(const pthread_t *)a, y = *(const pthread_t *)b;
	return x < y ? -1 : x > y;
}

static void wave(long from, const pthread_attr_t *attr)
{
	for (long i = from; i < from + WAVE; i++)
		if (pthread_create(&ids[i], attr, body, (void *)i)) {
			printf("create %ld failed\n", i);
			exit(1);
		}
	while (atomic_load(&done) < from + WAVE)
		usleep(1000);
	usleep(100000); /* natively, until the kernel has cleared their tids */
}

int main(void)
{
	weft_check_loaded();
	N = test_threads(N_MAX) / 2 * 2;
	WAVE = N / 2;
	alarm(60);
	pthread_attr_t fixed;
	pthread_attr_init(&fixed);
	pthread_attr_setstacksize(&fixed, FIXED);
	wave(0, NULL);
	wave(WAVE, &fixed);

	long self_ok = 0;
	for (long i = 0; i < N; i++)
		self_ok += pthread_equal(ids[i], selves[i]) != 0;
	printf("pthread_self equals the created ID: %ld of %d\n", self_ok, N);

	static pthread_t sorted[N_MAX];
	memcpy(sorted, ids, sizeof ids);
	qsort(sorted, N, sizeof *sorted, cmp);
	long dup = 0;
	for (long i = 1; i < N; i++)
		dup += sorted[i] == sorted[i - 1];
	printf("IDs shared by two unjoined threads: %ld\n", dup);

	long kill0 = 0, attr = 0, sq = 0;
	for (long i = 0; i < N; i++) {
		kill0 += pthread_kill(ids[i], 0) == 0;
		pthread_attr_t a;
		int ds = -1;
		if (pthread_getattr_np(ids[i], &a) == 0) {
			pthread_attr_getdetachstate(&a, &ds);
			pthread_attr_destroy(&a);
		}
		attr += ds == PTHREAD_CREATE_JOINABLE;
		sq += pthread_sigqueue(ids[i], SIGUSR1, (union sigval){ 0 }) == ESRCH;
	}
	printf("pthread_kill(0) returns 0: %ld of %d\n", kill0, N);
	printf("pthread_getattr_np says joinable: %ld of %d\n", attr, N);
	printf("pthread_sigqueue says ESRCH: %ld of %d\n", sq, N);

	/* Joins from the last to the first, every third one detached. */
	long values = 0, detached = 0;
	for (long i = N - 1; i >= 0; i--) {
		if (i % 3 == 0) {
			detached += pthread_detach(ids[i]) == 0;
			continue;
		}
		void *v = NULL;
		int e = pthread_join(ids[i], &v);
		values += e == 0 && (long)v == i * 3 + 1;
	}
	printf("joins with the thread's value: %ld, detached: %ld\n", values, detached);

	/* A third wave after all are gone: IDs may repeat now; values still
	 * come back right. */
	atomic_store(&done, 0);
	for (long i = 0; i < WAVE; i++)
		pthread_create(&ids[i], NULL, body, (void *)i);
	long again = 0;
	for (long i = 0; i < WAVE; i++) {
		void *v = NULL;
		again += pthread_join(ids[i], &v) == 0 && (long)v == i * 3 + 1;
	}
	printf("third wave joined with values: %ld of %d\n", again, WAVE);
	return 0;
}
