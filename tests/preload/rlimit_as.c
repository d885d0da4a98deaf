/* Under an address-space limit (ulimit -v, RLIMIT_AS), as batch clusters
 * and some containers set it, threads are created until the limit is
 * reached, then pthread_create fails with EAGAIN and the program goes on:
 * the threads already made run and are joined, and once they are gone new
 * threads can be created again.  The limit has to be in place before the
 * program (and weft) starts, so the test re-executes itself under it.
 * Exact counts differ between runs natively already (malloc arenas, the
 * loader's mappings), so the test checks floors and the error, not counts. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "test_util.h"
#include "weft_check.h"

#define LIMIT (1536ul << 20) /* 1.5 GiB: about 180 threads of 8 MiB */
#define MAXT 1000

static struct gate released = GATE_INIT;

static void *waiter(void *a)
{
	gate_wait(&released);
	return a;
}

static void *deep(void *a)
{
	/* Uses 6 MiB of its 8 MiB stack: the stack is really there. */
	volatile char buf[6 << 20];
	buf[0] = 1;
	buf[sizeof buf - 1] = 2;
	return (void *)(long)(buf[0] + buf[sizeof buf - 1]);
}

int main(int argc, char **argv)
{
	weft_check_loaded();
	if (argc < 2) {
		struct rlimit rl = { LIMIT, LIMIT };
		if (setrlimit(RLIMIT_AS, &rl))
			return 1;
		execl("/proc/self/exe", argv[0], "limited", (char *)NULL);
		return 2;
	}
	static pthread_t t[MAXT];
	int n = 0, err = 0;
	while (n < MAXT && !(err = pthread_create(&t[n], NULL, waiter, NULL)))
		n++;
	printf("under a 1.5 GiB address-space limit: more than 100 threads: %s\n",
	       n > 100 ? "yes" : "no");
	printf("then pthread_create fails with %s\n",
	       err == EAGAIN ? "EAGAIN" : err == ENOMEM ? "ENOMEM" : err ? "other" : "nothing");
	gate_open(&released);
	int joined = 0;
	for (int i = 0; i < n; i++)
		joined += pthread_join(t[i], NULL) == 0;
	printf("all joined: %s\n", joined == n ? "yes" : "no");
	pthread_t d[8];
	long sum = 0;
	for (int i = 0; i < 8; i++)
		if (pthread_create(&d[i], NULL, deep, NULL))
			return 3;
	for (int i = 0; i < 8; i++) {
		void *r;
		pthread_join(d[i], &r);
		sum += (long)r;
	}
	printf("8 new threads each using 6 MiB of stack: %ld\n", sum);
	return 0;
}
