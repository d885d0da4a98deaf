/*
 * Signal storms (sigstorm.h) on threads that manage threads:
 * pthread_create, pthread_exit and pthread_join of children;
 * pthread_setschedparam and pthread_getschedparam.  Each call is made
 * while handlers run on the calling thread, with SA_RESTART and without:
 * every child's value comes back through its join, every policy set is
 * the one read back.  fork with pthread_atfork under a storm is
 * sigstorm_fork.
 */
#define _GNU_SOURCE /* SCHED_BATCH */
#include <unistd.h>

#include "sigstorm.h"

#define NT 4

static atomic_long bad; /* an outcome that must not happen: printed */

/* Children that return or call pthread_exit with their number, joined. */
static void *child(void *arg)
{
	long v = (long)arg;
	if (v % 2)
		pthread_exit((void *)(v * 3));
	return (void *)(v * 3);
}

static long spawn_body(int idx)
{
	long sum = 0;
	for (long i = 0; i < 300; i++) {
		pthread_t t;
		int r = pthread_create(&t, NULL, child, (void *)(idx * 1000 + i));
		if (r != 0) {
			atomic_fetch_add(&bad, 1);
			continue;
		}
		void *ret;
		if (pthread_join(t, &ret) != 0)
			atomic_fetch_add(&bad, 1);
		else
			sum += (long)ret;
	}
	return sum;
}

/* Own policy switched between SCHED_OTHER and SCHED_BATCH (no privilege
 * needed), read back each time. */
static long sched_body(int idx)
{
	long same = 0;
	for (int i = 0; i < 2000; i++) {
		int want = (i + idx) % 2 ? SCHED_BATCH : SCHED_OTHER, got;
		struct sched_param sp = { 0 };
		if (pthread_setschedparam(pthread_self(), want, &sp) != 0 ||
		    pthread_getschedparam(pthread_self(), &got, &sp) != 0 || got != want ||
		    sp.sched_priority != 0)
			atomic_fetch_add(&bad, 1);
		else
			same++;
	}
	struct sched_param sp = { 0 };
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	return same;
}

int main(void)
{
	storm_init();
	storm("pthread_create/exit/join, children's values", spawn_body, NT, NULL);
	storm("pthread_setschedparam/getschedparam, policies read back", sched_body, NT, NULL);
	/* SIGURG, weft's own signal too: the program's handler is held back
	 * while the task holds the real-time queue's lock, as SIGUSR1's is. */
	storm_sig = SIGURG;
	storm("pthread_setschedparam/getschedparam under SIGURG, policies read back", sched_body,
	      NT, NULL);
	printf("errors or wrong values: %ld\n", atomic_load(&bad));
	return 0;
}
