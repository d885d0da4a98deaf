/* Small fixed stacks on memory that default threads used before: 200
 * threads with default attributes run and are joined, then, three rounds,
 * 3,000 threads with a 64 KiB stack (glibc's least where that is more) each
 * use 56 KiB of it and wait together on a condition variable.  Every page
 * of a stack the size asked for must be usable, wherever it lies, and the
 * values written must read back. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "test_util.h"
#include "weft_check.h"

#define N_MAX 3000
static size_t SIZE = 64 << 10;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int waiting, go, bad;

static void *nothing(void *arg)
{
	volatile char buf[2048];
	memset((char *)buf, 1, sizeof buf);
	return arg;
}

/* Fills about 56 KiB below the caller with a pattern, then checks it. */
static int fill(int depth, unsigned seed)
{
	volatile unsigned buf[256]; /* 1 KiB a frame */
	for (int i = 0; i < 256; i++)
		buf[i] = seed * 2654435761u + (unsigned)i;
	int r = depth ? fill(depth - 1, seed + 1) : 0;
	for (int i = 0; i < 256; i++)
		if (buf[i] != seed * 2654435761u + (unsigned)i)
			r = 1;
	return r;
}

static void *user(void *arg)
{
	int r = fill(52, (unsigned)(long)arg);
	pthread_mutex_lock(&m);
	bad += r;
	park_counted(&m, &c, &waiting, &go);
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	int n = test_threads(N_MAX);
	if ((size_t)sysconf(_SC_THREAD_STACK_MIN) > SIZE)
		SIZE = (size_t)sysconf(_SC_THREAD_STACK_MIN);
	static pthread_t t[N_MAX];
	for (int i = 0; i < 200; i++)
		if (pthread_create(&t[i], NULL, nothing, NULL))
			return printf("default thread %d not created\n", i), 1;
	for (int i = 0; i < 200; i++)
		pthread_join(t[i], NULL);
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, SIZE);
	for (int round = 1; round <= 3; round++) {
		int k = 0;
		for (; k < n; k++)
			if (pthread_create(&t[k], &a, user, (void *)(long)k))
				break;
		wait_parked(&m, &waiting, k);
		release_parked(&m, &c, &go);
		for (int i = 0; i < k; i++)
			pthread_join(t[i], NULL);
		printf("round %d: %s threads, stacks usable: %s\n", round, k == n ? "all" : "not all",
		       bad ? "no" : "yes");
		waiting = go = bad = 0;
	}
	return 0;
}
