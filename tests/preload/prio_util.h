/*
 * prio_util.h — helpers of the tests of real-time policies (prio_*),
 * which run on one CPU so that the order natively is the kernel's.
 * Include it after #define _GNU_SOURCE.
 *   E(e)                    an error number's name (strerrorname_np), "0"
 *                           for 0
 *   spawn(policy, prio, fn, arg)
 *                           a thread created at that policy and priority
 *                           (PTHREAD_EXPLICIT_SCHED); a failure prints
 *                           "pthread_create: E" and exits with status 1
 *   pin_first_cpu(all)      pins the process to the first CPU it may run
 *                           on, *all getting the set it had; returns
 *                           sched_setaffinity's result (errno says why)
 *   main_other(all)         main back to SCHED_OTHER ("main OTHER: E"
 *                           printed) and the process back on *all
 */
#ifndef WEFT_PRIO_UTIL_H
#define WEFT_PRIO_UTIL_H
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline const char *E(int e) { return e ? strerrorname_np(e) : "0"; }

static inline pthread_t spawn(int policy, int prio, void *(*fn)(void *), void *arg)
{
	pthread_attr_t a;
	pthread_t th;
	struct sched_param sp = { prio };
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, policy);
	pthread_attr_setschedparam(&a, &sp);
	int r = pthread_create(&th, &a, fn, arg);
	pthread_attr_destroy(&a);
	if (r) {
		printf("pthread_create: %s\n", E(r));
		exit(1);
	}
	return th;
}

static inline int pin_first_cpu(cpu_set_t *all)
{
	cpu_set_t one;
	sched_getaffinity(0, sizeof *all, all);
	CPU_ZERO(&one);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, all)) {
			CPU_SET(c, &one);
			break;
		}
	return sched_setaffinity(0, sizeof one, &one);
}

static inline void main_other(const cpu_set_t *all)
{
	struct sched_param sp = { 0 };
	printf("main OTHER: %s\n", E(pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp)));
	sched_setaffinity(0, sizeof *all, all);
}
#endif
