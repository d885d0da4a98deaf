/* Memory of threads that are gone comes back.  10,000 threads wait on one
 * condition variable at once, are woken and joined; within 6 s of the last
 * join the process's memory (resident pages plus page tables) must be back
 * within 4.5 MB (460 bytes a thread) of what it was before them.  glibc
 * frees each thread's stack beyond its cache at once (natively 3.2-3.4 MB
 * stay); a runtime that keeps the stacks of finished threads, the page
 * tables under them, or the freed per-thread malloc blocks (each thread's
 * DTV) inside malloc's heaps, does not get back there (weft without
 * trimming the heap: 5.0 MB; with: 1.5-1.8 MB). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test_util.h"
#include "weft_check.h"

#define N_MAX 10000
static int N = N_MAX; /* test_threads(N_MAX): fewer under emulation */
#define SLACK_KB (4608)

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static pthread_cond_t all_in = PTHREAD_COND_INITIALIZER;
static int waiting, go;

static void *waiter(void *a)
{
	pthread_mutex_lock(&m);
	if (++waiting == N)
		pthread_cond_signal(&all_in);
	while (!go)
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);
	return a;
}

static long mem_kb(void)
{
	return status_kb("VmRSS") + status_kb("VmPTE");
}

int main(void)
{
	weft_check_loaded();
	if (skip_native_rss())
		return 0;
	N = test_threads(N_MAX);
	static pthread_t t[N_MAX];
	long before = mem_kb();
	int n = 0;
	for (; n < N; n++)
		if (pthread_create(&t[n], NULL, waiter, NULL))
			break;
	wait_parked(&m, &waiting, n);
	release_parked(&m, &c, &go);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	long after = mem_kb();
	for (int i = 0; i < 24 && after - before > SLACK_KB; i++) {
		usleep(250000);
		after = mem_kb();
	}
	printf("threads: %s\n", n >= 1000 ? "at least 1000" : "fewer than 1000");
	if (after - before > SLACK_KB)
		printf("memory not returned: %ld KB above the start 6 s after the last join\n",
		       after - before);
	else
		printf("memory returned\n");
	return 0;
}
