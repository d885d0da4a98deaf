/* 100,000 threads started and joined, in batches: five batches of 2000
 * threads all alive at once (they meet at a barrier), the rest in batches of
 * 100.  At most 2000 alive at once keeps the native run within the kernel's
 * limits (pid_max), so the output is identical natively and under weft.
 *
 * Natively each thread gets a 64 KiB stack: thread creation with 8 MiB
 * stacks costs ~0.5 ms here and 100k of them would take minutes.  Under weft
 * the default attributes are used (the output does not depend on it). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include "weft_check.h"
#include "test_util.h"

#define BIG_MAX 2000
#define BIG_BATCHES 5
static int BIG = BIG_MAX;        /* test_threads(BIG_MAX): fewer under emulation */
static long TOTAL = 50L * BIG_MAX;
#define SMALL 100

static atomic_long counter, sum;
static pthread_barrier_t bar;
static __thread long mine;

static void *inc(void *a)
{
	mine = (long)a;
	atomic_fetch_add(&counter, 1);
	atomic_fetch_add(&sum, mine);
	return (void *)(mine + 1);
}

static void *inc_barrier(void *a)
{
	inc(a);
	pthread_barrier_wait(&bar); /* the whole batch is alive at once */
	return (void *)(mine + 1);
}

int main(void)
{
	weft_check_loaded();
	BIG = test_threads(BIG_MAX);
	TOTAL = 50L * BIG;
	const char *e = getenv("WEFT_EXPECT");
	int under_weft = e && *e == '1';
	pthread_attr_t small_attr, *attr = NULL;
	if (!under_weft) {
		pthread_attr_init(&small_attr);
		pthread_attr_setstacksize(&small_attr, 64 << 10);
		attr = &small_attr;
	}
	static pthread_t t[BIG_MAX];
	long started = 0, create_fail = 0, ret_bad = 0;
	int batches = 0, big_batches = 0;
	while (started < TOTAL) {
		int big = batches < BIG_BATCHES;
		int size = big ? BIG : SMALL;
		if (big)
			pthread_barrier_init(&bar, NULL, BIG + 1);
		int n = 0;
		for (; n < size && started < TOTAL; n++, started++)
			if (pthread_create(&t[n], attr, big ? inc_barrier : inc, (void *)started)) {
				create_fail++;
				break;
			}
		if (big) {
			if (n == BIG) {
				pthread_barrier_wait(&bar);
				big_batches++;
			} else {
				printf("barrier batch incomplete\n");
			}
		}
		for (int i = 0; i < n; i++) {
			void *r;
			pthread_join(t[i], &r);
			if ((long)r != started - n + i + 1)
				ret_bad++;
		}
		if (big)
			pthread_barrier_destroy(&bar);
		batches++;
		if (create_fail)
			break;
	}
	printf("batches %d (%d with %d threads alive at once)\n", batches, big_batches, BIG);
	printf("create failures %ld\n", create_fail);
	printf("counter %ld\n", atomic_load(&counter));
	printf("sum ok %d\n", atomic_load(&sum) == (long)TOTAL * (TOTAL - 1) / 2);
	printf("bad return values %ld\n", ret_bad);
	return 0;
}
