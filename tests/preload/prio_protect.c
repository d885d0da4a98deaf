/* PTHREAD_PRIO_PROTECT mutexes, as glibc runs them natively:
 * - a SCHED_OTHER thread's lock of one fails (glibc sets the ceiling as the
 *   thread's priority under its own policy, which has none: EINVAL);
 * - at SCHED_FIFO the holder runs at the highest ceiling it holds:
 *   sched_getparam shows it, pthread_getschedparam shows the thread's own
 *   priority (glibc's cached copy), and the priority falls back as each is
 *   unlocked; pthread_setschedparam while holding one keeps the ceiling;
 * - a caller whose priority is above the ceiling gets EINVAL;
 * - getprioceiling / setprioceiling, on a free mutex and on a recursive
 *   one the caller holds; trylock (EBUSY from another thread), errorcheck
 *   (EDEADLK), recursive counts, timedlock;
 * - the wake order of a plain mutex's waiters uses the boosted priority:
 *   a SCHED_FIFO 5 thread holding a ceiling-30 mutex is woken before a
 *   SCHED_FIFO 20 one that queued first (one CPU: the program pins itself);
 * - a process-shared one: a forked child blocks on it until the parent
 *   unlocks, and the child's lock raises the child's priority;
 * - a waiter with asynchronous cancellation enabled, on a private or a
 *   shared one, is cancelled during its wait.
 * Needs root for SCHED_FIFO (CI runs as root); without it, says so and
 * checks only the SCHED_OTHER part. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>
#include "prio_util.h"
#include "weft_check.h"

static void init_pp(pthread_mutex_t *m, int type, int ceiling, int pshared)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, type);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_PROTECT);
	pthread_mutexattr_setprioceiling(&a, ceiling);
	pthread_mutexattr_setpshared(&a, pshared);
	int r = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	if (r) {
		printf("init: %s\n", E(r));
		exit(1);
	}
}

/* The kernel's view (boosted) and glibc's cached one. */
static void show(const char *what)
{
	struct sched_param sp, gp;
	int gpol;
	sched_getparam(0, &sp);
	pthread_getschedparam(pthread_self(), &gpol, &gp);
	printf("%s: sched_getparam %d, pthread_getschedparam %s %d\n", what, sp.sched_priority,
	       gpol == SCHED_FIFO ? "FIFO" : gpol == SCHED_OTHER ? "OTHER" : "?", gp.sched_priority);
}

static pthread_mutex_t pp10, pp20, pprec, pperr, mu = PTHREAD_MUTEX_INITIALIZER;

static void *other_thread(void *arg)
{
	(void)arg;
	int r = pthread_mutex_lock(&pp10);
	printf("SCHED_OTHER lock: %s\n", E(r));
	if (r == 0)
		pthread_mutex_unlock(&pp10);
	return NULL;
}

static void *try_other(void *arg)
{
	printf("trylock of a held one from another thread: %s\n", E(pthread_mutex_trylock(arg)));
	return NULL;
}

static char order[64];
static _Atomic int arrived;

static void *waiter(void *arg)
{
	const char *name = arg;
	int boosted = name[0] == 'P';
	if (boosted)
		pthread_mutex_lock(&pp20); /* ceiling 30 by then */
	arrived++;
	pthread_mutex_lock(&mu);
	strcat(order, name);
	strcat(order, " ");
	pthread_mutex_unlock(&mu);
	if (boosted)
		pthread_mutex_unlock(&pp20);
	return NULL;
}

static _Atomic int ready;

static void *async_waiter(void *arg)
{
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	ready = 1;
	pthread_mutex_lock(arg);
	pthread_mutex_unlock(arg);
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(20);
	init_pp(&pp10, PTHREAD_MUTEX_NORMAL, 10, PTHREAD_PROCESS_PRIVATE);
	init_pp(&pp20, PTHREAD_MUTEX_NORMAL, 20, PTHREAD_PROCESS_PRIVATE);
	int r;
	int c = -1;
	r = pthread_mutex_getprioceiling(&pp10, &c);
	printf("getprioceiling: %s %d\n", E(r), c);

	pthread_t th;
	pthread_create(&th, NULL, other_thread, NULL);
	pthread_join(th, NULL);

	cpu_set_t all;
	pin_first_cpu(&all);
	struct sched_param sp = { 1 };
	r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (r) {
		printf("SCHED_FIFO not permitted (%s): the rest needs root\n", E(r));
		return 0;
	}
	show("FIFO 1");
	printf("lock ceiling 10: %s\n", E(pthread_mutex_lock(&pp10)));
	show("holding 10");
	printf("lock ceiling 20: %s\n", E(pthread_mutex_lock(&pp20)));
	show("holding 10, 20");
	printf("unlock 20: %s\n", E(pthread_mutex_unlock(&pp20)));
	show("holding 10");
	sp.sched_priority = 5;
	printf("setschedparam FIFO 5 while holding: %s\n",
	       E(pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)));
	show("holding 10 at 5");
	printf("unlock 10: %s\n", E(pthread_mutex_unlock(&pp10)));
	show("none held");

	sp.sched_priority = 15;
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	printf("at 15, lock ceiling 10: %s\n", E(pthread_mutex_lock(&pp10)));
	printf("at 15, trylock ceiling 10: %s\n", E(pthread_mutex_trylock(&pp10)));
	show("after the refusals");
	sp.sched_priority = 1;
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

	int old = -1;
	r = pthread_mutex_setprioceiling(&pp20, 30, &old);
	printf("setprioceiling 30: %s, old %d\n", E(r), old);
	r = pthread_mutex_getprioceiling(&pp20, &c);
	printf("getprioceiling: %s %d\n", E(r), c);
	printf("setprioceiling 0: %s\n", E(pthread_mutex_setprioceiling(&pp20, 0, &old)));
	printf("setprioceiling of a plain mutex: %s\n",
	       E(pthread_mutex_setprioceiling(&mu, 30, &old)));

	printf("trylock ceiling 30: %s\n", E(pthread_mutex_trylock(&pp20)));
	show("holding 30");
	pthread_create(&th, NULL, try_other, &pp20);
	pthread_join(th, NULL);
	printf("unlock 30: %s\n", E(pthread_mutex_unlock(&pp20)));

	init_pp(&pperr, PTHREAD_MUTEX_ERRORCHECK, 10, PTHREAD_PROCESS_PRIVATE);
	printf("errorcheck: %s", E(pthread_mutex_lock(&pperr)));
	printf(" %s", E(pthread_mutex_lock(&pperr)));
	printf(" %s", E(pthread_mutex_unlock(&pperr)));
	printf(" %s\n", E(pthread_mutex_unlock(&pperr)));

	init_pp(&pprec, PTHREAD_MUTEX_RECURSIVE, 10, PTHREAD_PROCESS_PRIVATE);
	printf("recursive: %s", E(pthread_mutex_lock(&pprec)));
	printf(" %s", E(pthread_mutex_lock(&pprec)));
	r = pthread_mutex_setprioceiling(&pprec, 12, &old);
	printf(" setprioceiling 12 held: %s old %d\n", E(r), old);
	show("recursive held");
	printf(" %s", E(pthread_mutex_unlock(&pprec)));
	printf(" %s", E(pthread_mutex_unlock(&pprec)));
	printf(" %s\n", E(pthread_mutex_unlock(&pprec)));
	show("recursive released");

	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	printf("timedlock: %s", E(pthread_mutex_timedlock(&pp10, &ts)));
	printf(" %s\n", E(pthread_mutex_unlock(&pp10)));
	printf("destroy: %s\n", E(pthread_mutex_destroy(&pp10)));

	/* Wake order: F20 queues on mu first, then P5 (FIFO 5, holding the
	 * ceiling-30 mutex); main's unlock wakes the highest. */
	pthread_mutex_lock(&mu);
	pthread_t w1 = spawn(SCHED_FIFO, 20, waiter, "F20");
	pthread_t w2 = spawn(SCHED_FIFO, 5, waiter, "P5");
	/* Natively both ran at once (above main on its one CPU); with two
	 * procs either may still be on its way to the lock. */
	while (arrived < 2)
		usleep(1000);
	usleep(50000);
	pthread_mutex_unlock(&mu);
	pthread_join(w1, NULL);
	pthread_join(w2, NULL);
	printf("wake order: %s\n", order);

	/* Process-shared: the child blocks until the parent unlocks. */
	pthread_mutex_t *sm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				   -1, 0);
	init_pp(sm, PTHREAD_MUTEX_NORMAL, 25, PTHREAD_PROCESS_SHARED);
	/* Turns passed in the shared page, polled: 1 the parent holds it, 2
	 * the child tried. */
	_Atomic int *turn = (_Atomic int *)(sm + 1);
	pid_t child = fork();
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		while (*turn != 1)
			usleep(1000);
		int e = pthread_mutex_trylock(sm);
		*turn = 2;
		int l = pthread_mutex_lock(sm);
		struct sched_param csp;
		sched_getparam(0, &csp);
		int u = pthread_mutex_unlock(sm);
		struct sched_param after;
		sched_getparam(0, &after);
		printf("child: trylock %s, lock %s at %d, unlock %s, then %d\n", E(e), E(l),
		       csp.sched_priority, E(u), after.sched_priority);
		_exit(0);
	}
	printf("shared lock: %s\n", E(pthread_mutex_lock(sm)));
	show("holding shared 25");
	*turn = 1;
	while (*turn != 2)
		usleep(1000);
	usleep(100000); /* it blocks in its lock meanwhile */
	int u = pthread_mutex_unlock(sm);
	int st;
	waitpid(child, &st, 0);
	printf("shared unlock: %s\n", E(u));
	printf("child exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);

	/* A waiter with asynchronous cancellation is cancelled in its wait. */
	for (int i = 0; i < 2; i++) {
		pthread_mutex_t *m = i ? sm : &pp20;
		printf("%s lock: %s\n", i ? "shared" : "private", E(pthread_mutex_lock(m)));
		ready = 0;
		pthread_t w = spawn(SCHED_FIFO, 2, async_waiter, m);
		while (!ready)
			usleep(1000);
		usleep(50000); /* it sleeps in the lock meanwhile */
		pthread_cancel(w);
		void *res;
		pthread_join(w, &res);
		printf("asynchronous cancel of its waiter: %s\n",
		       res == PTHREAD_CANCELED ? "canceled" : "returned");
		printf("unlock: %s\n", E(pthread_mutex_unlock(m)));
	}
	show("end");

	sp.sched_priority = 0;
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	sched_setaffinity(0, sizeof all, &all);
	return 0;
}
