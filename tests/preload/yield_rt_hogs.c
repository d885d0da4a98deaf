/* A SCHED_FIFO thread's sched_yield, with no thread of the caller's at its
 * priority ready, keeps the CPU when SCHED_OTHER processes want it: the
 * kernel puts the caller at the back of its own priority's list, and
 * ordinary threads come after every real-time one.  Four SCHED_OTHER
 * children yield in a loop on the CPUs the process has (two or more: on
 * one CPU weft yields to the kernel, yield_procs.c) while main, at
 * SCHED_FIFO 10, yields 20,000 times.  Natively that takes a few ms and the kernel
 * switches main out a handful of times at most; a yield that handed the
 * CPU to a spinner would switch each time and wait a time slice for it
 * back.  Needs root (CI runs as root). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"

#define YIELDS 20000

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void)
{
	weft_check_loaded();
	cpu_set_t all;
	sched_getaffinity(0, sizeof all, &all);
	if (CPU_COUNT(&all) < 2) {
		printf("one CPU: nothing to check\n");
		return 0;
	}
	pid_t hog[4];
	for (int i = 0; i < 4; i++) {
		hog[i] = fork();
		if (hog[i] == 0) {
			double end = now() + 30;
			while (now() < end)
				sched_yield();
			_exit(0);
		}
	}
	struct sched_param sp = { 10 };
	int r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	printf("FIFO 10: %s\n", r ? strerror(r) : "0");
	struct rusage a, b;
	getrusage(RUSAGE_SELF, &a);
	double end = now() + 2;
	int n = 0, bad = 0;
	for (; n < YIELDS && now() < end; n++)
		bad |= sched_yield() != 0;
	getrusage(RUSAGE_SELF, &b);
	sp.sched_priority = 0;
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	long switched = b.ru_nivcsw - a.ru_nivcsw;
	printf("yields returning 0: %s\n", bad ? "no" : "yes");
	printf("%d yields within 2 s: %s\n", YIELDS, n == YIELDS ? "yes" : "no");
	printf("switched out fewer than 1,000 times: %s\n", switched < 1000 ? "yes" : "no");
	if (switched >= 1000)
		fprintf(stderr, "involuntary switches: %ld in %d yields\n", switched, n);
	for (int i = 0; i < 4; i++) {
		kill(hog[i], SIGKILL);
		waitpid(hog[i], NULL, 0);
	}
	return 0;
}
