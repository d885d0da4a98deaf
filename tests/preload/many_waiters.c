/* 50,000 threads all waiting on one condition variable at once.  Under weft
 * they are tasks parked on GOMAXPROCS workers: the process keeps a handful
 * of OS threads.  Natively this exceeds the kernel's thread limit, so the
 * native run only prints SKIP-NATIVE. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test_util.h"
#include "weft_check.h"

#define N_MAX 50000
static int N = N_MAX; /* test_threads(N_MAX): fewer under emulation */

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;   /* waiters wait here */
static pthread_cond_t all_in = PTHREAD_COND_INITIALIZER;
static int waiting, go, done;

static void *waiter(void *a)
{
	pthread_mutex_lock(&m);
	if (++waiting == N)
		pthread_cond_signal(&all_in);
	while (!go)
		pthread_cond_wait(&c, &m);
	done++;
	pthread_mutex_unlock(&m);
	return a;
}

int main(void)
{
	weft_check_loaded();
	N = test_threads(N_MAX);
	const char *e = getenv("WEFT_EXPECT");
	if (!e || *e != '1') {
		printf("SKIP-NATIVE\n");
		return 0;
	}
	int procs;
	const char *g = getenv("GOMAXPROCS");
	if (g && atoi(g) > 0) {
		procs = atoi(g);
	} else {
		cpu_set_t set;
		sched_getaffinity(0, sizeof set, &set);
		procs = CPU_COUNT(&set);
	}
	static pthread_t t[N_MAX];
	int created = 0;
	for (; created < N; created++)
		if (pthread_create(&t[created], NULL, waiter, (void *)(long)created) != 0)
			break;
	if (created != N) {
		printf("created only %d threads\n", created);
		return 1;
	}
	pthread_mutex_lock(&m);
	while (waiting < N)
		pthread_cond_wait(&all_in, &m);
	int nthreads = os_threads();
	go = 1;
	pthread_cond_broadcast(&c);
	pthread_mutex_unlock(&m);
	long bad = 0;
	for (int i = 0; i < N; i++) {
		void *r;
		if (pthread_join(t[i], &r) != 0 || (long)r != i)
			bad++;
	}
	int ok = nthreads >= 1 && nthreads <= procs + 3 && done == N && bad == 0;
	if (!ok)
		printf("FAIL: %d OS threads with %d waiting (limit %d), %d woke, %ld bad joins\n",
		       nthreads, N, procs + 3, done, bad);
	else
		printf("ok\n");
	return ok ? 0 : 1;
}
