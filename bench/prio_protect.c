/*
 * prio_protect [N] — at SCHED_FIFO 1, N lock/unlock pairs (default
 * 200,000) of a PTHREAD_PRIO_PROTECT mutex with ceiling 10, uncontended:
 * each pair raises the thread to the ceiling and lowers it again (glibc:
 * two sched_setscheduler calls); prints the time of one pair, and the
 * thread's CPU time per pair (natively the thread is a kernel SCHED_FIFO
 * thread that other processes never preempt, a task's worker is not: on
 * a loaded machine the wall time says more about the load).  Needs the
 * privilege for SCHED_FIFO (root); says so otherwise.
 */
#include <sched.h>

#include "bench.h"

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, 1, 200000);
	struct sched_param sp = { 1 };
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)) {
		printf("SCHED_FIFO not permitted\n");
		return 0;
	}
	pthread_mutexattr_t a;
	pthread_mutex_t m;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_PROTECT);
	pthread_mutexattr_setprioceiling(&a, 10);
	pthread_mutex_init(&m, &a);
	struct timespec c0, c1;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	double t0 = now_s();
	for (long i = 0; i < n; i++) {
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
	}
	double t = now_s() - t0;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	double cpu = (c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) * 1e-9;
	sp.sched_priority = 0;
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	printf("pairs:             %ld\n", n);
	printf("one lock+unlock:   %.1f ns\n", t * 1e9 / n);
	printf("CPU per pair:      %.1f ns\n", cpu * 1e9 / n);
	return 0;
}
