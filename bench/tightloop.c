/*
 * tightloop [STALL_MS] — can a loop with no calls starve main?  A thread runs
 * while (!stop) counter++ (a relaxed atomic load and a volatile store, no
 * function call) while main sleeps in usleep(100000); prints how long
 * until main resumed.  Run it on one CPU (taskset -c 0 natively,
 * GOMAXPROCS=1 under a user-level scheduler)
 * (Go: 116 ms; with async preemption off, never).  If main gets no CPU
 * for STALL_MS (default 3000), the watchdog (bench.h) stops the loop and
 * the line says so.
 */
#include <pthread.h>

#include "bench.h"

static atomic_int stop, started;
static volatile unsigned long counter;

static void *loop(void *arg)
{
	atomic_store(&started, 1);
	atomic_fetch_add(&wd_beat, 1);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		counter++;
	return arg;
}

static void rescue(void)
{
	atomic_store(&stop, 1);
}

int main(int argc, char **argv)
{
	long stall_ms = arg_long(argc, argv, 1, 3000);
	pthread_t th;
	wd_stage = 1;
	watchdog_start(stall_ms, rescue);
	int e = pthread_create(&th, NULL, loop, NULL);
	if (e) {
		printf("thread failed: %s\n", strerror(e));
		return 1;
	}
	wd_stage = 2;
	double t0 = now_s();
	usleep(100000);
	double t1 = now_s();
	int ran = atomic_load(&started);
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	watchdog_stop();
	if (wd_fired == 1)
		printf("main resumed after: stalled (main got no CPU for %ld ms before it slept; "
		       "the watchdog stopped the loop)\n", stall_ms);
	else if (wd_fired)
		printf("main resumed after: %.0f ms (stalled: the watchdog stopped the loop at %.0f ms)\n",
		       (t1 - t0) * 1e3, (wd_at - t0) * 1e3);
	else
		printf("main resumed after: %.0f ms\n", (t1 - t0) * 1e3);
	printf("the loop %s while main slept\n", ran ? "ran" : "did not run");
	return 0;
}
