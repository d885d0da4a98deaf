/*
 * cpubound [THREADS] [MITER] — what does the number of CPUs buy?  THREADS
 * threads (default 8) each run the same fixed CPU loop (MITER million
 * xorshift steps, default 50) with no waiting; prints the wall time from
 * the first create to the last join.  Run it
 * with one CPU and with two (taskset -c 0 / -c 0,1 natively, GOMAXPROCS=1
 * / 2 under a user-level scheduler) for the speedup.
 */
#include <pthread.h>
#include <sched.h>

#include "bench.h"

static long miter;
static unsigned long result[256];

static void *work(void *arg)
{
	long i = (long)arg;
	unsigned long x = 88172645463325252ul + (unsigned long)i;
	for (long k = 0; k < miter * 1000000; k++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	result[i % 256] = x;
	return NULL;
}

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, 1, 8);
	miter = arg_long(argc, argv, 2, 50);
	pthread_t *th = calloc(n, sizeof *th);
	if (!th)
		return perror("calloc"), 1;
	double t0 = now_s();
	long ok = 0;
	for (long i = 0; i < n; i++, ok++) {
		int e = pthread_create(&th[i], NULL, work, (void *)i);
		if (e) {
			printf("thread %ld of %ld failed: %s\n", i + 1, n, strerror(e));
			break;
		}
	}
	for (long i = 0; i < ok; i++)
		pthread_join(th[i], NULL);
	double t1 = now_s();
	unsigned long sum = 0;
	for (long i = 0; i < ok && i < 256; i++)
		sum += result[i];
	printf("threads: %ld, %ld million steps each (checksum %lx)\n", ok, miter, sum);
	printf("wall time: %.3f s\n", t1 - t0);
	return 0;
}
