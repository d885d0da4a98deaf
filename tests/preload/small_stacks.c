/* Threads created with a small explicit stack size (64 KiB, or 128 KiB
 * where that is glibc's least, as on aarch64).  Each round
 * starts 5,000 of them that wait on one condition variable; while all wait
 * the memory they cost (resident pages plus page tables, per thread) must
 * be at most 10 KB: glibc lays such stacks side by side, a parked thread
 * costing its TCB page and its first stack page, so 64 KiB stacks share
 * page-table pages (glibc 2.43's first round: 9.51-9.52 KB).  Counted from each round's start: what the rounds
 * before left (glibc's stack cache) is not this round's.  Every thread checks the stack it got: the size
 * pthread_getattr_np reports, and 48 KiB of it usable.  Three rounds, so
 * the stacks of joined threads are reused. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test_util.h"
#include "weft_check.h"

#define N_MAX 5000
static int N = N_MAX; /* test_threads(N_MAX): fewer under emulation */
/* 64 KiB, or glibc's least where that is more (128 KiB on aarch64, whose
 * kernels may have 64 KiB pages). */
static size_t SIZE = 64 << 10;

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int waiting, go, bad;

static void *waiter(void *deep)
{
	pthread_attr_t a;
	size_t size = 0;
	void *addr;
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		pthread_attr_getstack(&a, &addr, &size);
		pthread_attr_destroy(&a);
	}
	if (deep)
		use_stack_kb(48);
	pthread_mutex_lock(&m);
	if (size != SIZE)
		bad++;
	park_counted(&m, &c, &waiting, &go);
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	if (skip_native_rss())
		return 0;
	N = test_threads(N_MAX);
	if ((size_t)sysconf(_SC_THREAD_STACK_MIN) > SIZE)
		SIZE = (size_t)sysconf(_SC_THREAD_STACK_MIN);
	static pthread_t t[N_MAX];
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, SIZE);
	for (int round = 1; round <= 3; round++) {
		long before = status_kb("VmRSS") + status_kb("VmPTE");
		int n = 0;
		/* The deep ones last, after the memory is read. */
		for (; n < N; n++)
			if (pthread_create(&t[n], &a, waiter, NULL))
				break;
		wait_parked(&m, &waiting, n);
		long per = (status_kb("VmRSS") + status_kb("VmPTE") - before) * 1000 / (n ? n : 1);
		pthread_t deep[4];
		int nd = 0;
		for (; nd < 4; nd++)
			if (pthread_create(&deep[nd], &a, waiter, (void *)1))
				break;
		wait_parked(&m, &waiting, n + nd);
		release_parked(&m, &c, &go);
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		for (int i = 0; i < nd; i++)
			pthread_join(deep[i], NULL);
		printf("round %d: %s threads, stacks as asked: %s, per parked thread: %s\n", round,
		       n == N ? "all" : "not all", bad ? "no" : "yes",
		       per <= 10000 ? "at most 10 KB" : "more than 10 KB");
		if (per > 10000)
			fprintf(stderr, "round %d: %ld bytes per parked thread\n", round, per);
		waiting = go = bad = 0;
	}
	return 0;
}
