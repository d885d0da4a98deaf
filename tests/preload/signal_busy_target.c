/*
 * A signal sent to a busy thread is handled, whatever the thread is busy
 * with.  A sender pthread_kills one target thread with SIGUSR1, whose
 * handler posts a semaphore (async-signal-safe), and waits for the post
 * before it sends again.  The target, in turn:
 *   spin      loops in its own code;
 *   sched     loops on pthread_setschedparam (SCHED_FIFO, then back to
 *             SCHED_OTHER) and pthread_getschedparam, while the sender
 *             runs SCHED_FIFO where the process may (root): under weft
 *             these take the real-time queue's lock and read the clock
 *             (the vDSO, outside libweft) under it, and the post readies
 *             a real-time task, which takes the same lock.  A handler run
 *             there waited for ever on the lock its own thread held (7
 *             hangs in 32 runs of a conformance test; 3 in 4 runs here);
 *   create    loops on pthread_create and pthread_join of a thread that
 *             returns at once (the lists of tasks, slabs, stacks);
 *   affinity  loops on sched_getaffinity (and every 16th time
 *             sched_setaffinity) and pthread_getcpuclockid + clock_gettime
 *             of its own CPU clock.
 * Each round must see its handler run within 5 s (else the phase stops and
 * says so), and every signal sent must have run its handler once.  A
 * watchdog ends the test if a phase takes more than 60 s (a thread stuck
 * in a handler).  Rates are not compared (bench/signal_rate.c measures
 * them).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "test_util.h"
#include "weft_check.h"

#define ROUNDS 500

enum { SPIN, SCHED, CREATE, AFFINITY };
static const char *const names[] = { "spin", "sched", "create", "affinity" };

static sem_t sem;
static atomic_long handled;
static atomic_int stop, phase_now = -1;
static pthread_t target;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
	sem_post(&sem);
}

static void *nothing(void *arg)
{
	return arg;
}

static void *busy(void *arg)
{
	int kind = (int)(long)arg;
	volatile unsigned long spins = 0;
	cpu_set_t set;
	while (!stop) {
		switch (kind) {
		case SPIN:
			spins++;
			break;
		case SCHED: {
			struct sched_param sp = { .sched_priority = 1 };
			int pol;
			pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
			pthread_getschedparam(pthread_self(), &pol, &sp);
			sp.sched_priority = 0;
			pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
			pthread_getschedparam(pthread_self(), &pol, &sp);
			break;
		}
		case CREATE: {
			pthread_t c;
			if (pthread_create(&c, NULL, nothing, NULL) == 0)
				pthread_join(c, NULL);
			break;
		}
		case AFFINITY: {
			clockid_t clk;
			struct timespec ts;
			if (sched_getaffinity(0, sizeof set, &set) == 0 && ++spins % 16 == 0)
				sched_setaffinity(0, sizeof set, &set);
			if (pthread_getcpuclockid(pthread_self(), &clk) == 0)
				clock_gettime(clk, &ts);
			break;
		}
		}
	}
	return NULL;
}

static void *watchdog(void *arg)
{
	(void)arg;
	for (;;) {
		int p = phase_now;
		if (p == -2)
			return NULL;
		for (int i = 0; i < 600 && phase_now == p; i++)
			usleep(100000);
		if (phase_now == p && p >= 0) {
			printf("phase %s: stuck for 60 s\n", names[p]);
			fflush(stdout);
			_exit(3);
		}
	}
}

static void phase(int kind)
{
	stop = 0;
	handled = 0;
	phase_now = kind;
	if (pthread_create(&target, NULL, busy, (void *)(long)kind) != 0) {
		printf("phase %s: no thread\n", names[kind]);
		return;
	}
	long sent = 0, late = 0;
	for (int i = 0; i < ROUNDS; i++) {
		if (pthread_kill(target, SIGUSR1) != 0)
			break;
		sent++;
		struct timespec ts;
		deadline(CLOCK_REALTIME, &ts, 5000);
		int r;
		while ((r = sem_timedwait(&sem, &ts)) != 0 && errno == EINTR)
			;
		if (r != 0) {
			late++;
			break;
		}
	}
	stop = 1;
	pthread_join(target, NULL);
	/* A signal whose handler had not run by the 5 s has run by now (the
	 * target's exit takes its pending signals) or never will. */
	while (sem_trywait(&sem) == 0)
		;
	printf("phase %s: sent %ld, handled %ld, late %ld\n", names[kind], sent, (long)handled,
	       late);
}

int main(void)
{
	weft_check_loaded();
	sem_init(&sem, 0, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	pthread_t w;
	pthread_create(&w, NULL, watchdog, NULL);
	phase(SPIN);
	phase(CREATE);
	phase(AFFINITY);
	/* The sender real-time where it may be (root): the handler's post
	 * readies a real-time task. */
	struct sched_param sp = { .sched_priority = 2 };
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	phase(SCHED);
	sp.sched_priority = 0;
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	phase_now = -2;
	pthread_join(w, NULL);
	return 0;
}
