/*
 * SIGURG sent by a program to its own process (kill, sigqueue) while its
 * threads loop in calls weft interposes (pthread_setschedparam and
 * pthread_getschedparam, which take weft's locks).  weft sends SIGURG to
 * its workers too (preemption requests, pokes): neither may stand in for
 * the other.
 *
 * Natively a standard signal coalesces with one of its kind pending, but a
 * handler runs after each kill: the kernel gives a signal sent to the
 * process to the main thread first when it does not block it (here, when
 * main is the sender, before kill returns; when main waits in a join, it
 * wakes and runs the handler before the join returns).  Each handler run
 * records the highest kill number sent when it started, so "a handler
 * started after the last kill" is read as an outcome, with no wait: after
 * a storm of kills from a thread (main in pthread_join meanwhile), after
 * one from main, and after each single kill and sigqueue from main.
 */
#define _GNU_SOURCE /* SCHED_BATCH */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "weft_check.h"

#define NT 4
#define STORM 200
#define SINGLE 200

static atomic_long sent, seen, runs;
static atomic_int stop, started;
static atomic_long bad; /* a policy not read back as set */

static void on_urg(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	long s = atomic_load(&sent);
	long m = atomic_load(&seen);
	while (m < s && !atomic_compare_exchange_weak(&seen, &m, s))
		;
	atomic_fetch_add(&runs, 1);
}

/* Own policy switched between SCHED_OTHER and SCHED_BATCH, read back. */
static void *looper(void *arg)
{
	long idx = (long)arg;
	atomic_fetch_add(&started, 1);
	for (long i = 0; !atomic_load(&stop); i++) {
		int want = (i + idx) % 2 ? SCHED_BATCH : SCHED_OTHER, got;
		struct sched_param sp = { 0 };
		if (pthread_setschedparam(pthread_self(), want, &sp) != 0 ||
		    pthread_getschedparam(pthread_self(), &got, &sp) != 0 || got != want)
			atomic_fetch_add(&bad, 1);
	}
	return NULL;
}

static void pause_us(long us)
{
	struct timespec ts = { 0, us * 1000 };
	nanosleep(&ts, NULL);
}

/* Signal number n to the process (the count first: a handler that starts
 * after the call sees n or more). */
static void send_one(long n, int queued)
{
	atomic_store(&sent, n);
	if (queued)
		sigqueue(getpid(), SIGURG, (union sigval){ .sival_int = (int)n });
	else
		kill(getpid(), SIGURG);
}

/* Bursts of four kills 20 µs apart, as a storm of pthread_kill to four
 * threads sends them, a few milliseconds between bursts. */
static void *storm(void *arg)
{
	long base = (long)arg;
	for (long i = 1; i <= STORM; i++) {
		send_one(base + i, 0);
		pause_us(i % 4 ? 20 : 2000);
	}
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_urg;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGURG, &sa, NULL);
	pthread_t th[NT];
	for (long i = 0; i < NT; i++)
		pthread_create(&th[i], NULL, looper, (void *)i);
	while (atomic_load(&started) < NT)
		sched_yield();

	pthread_t s;
	pthread_create(&s, NULL, storm, (void *)0L);
	pthread_join(s, NULL);
	printf("storm from a thread: a handler started after its last kill: %s\n",
	       atomic_load(&seen) >= STORM ? "yes" : "no");

	storm((void *)(long)STORM);
	printf("storm from main: a handler started after its last kill: %s\n",
	       atomic_load(&seen) >= 2 * STORM ? "yes" : "no");

	long n = 2 * STORM;
	for (int q = 0; q < 2; q++) {
		long late = 0;
		for (int i = 0; i < SINGLE; i++) {
			send_one(++n, q);
			late += atomic_load(&seen) < n;
			pause_us(i % 8 ? 20 : 1000);
		}
		printf("single %s from main: handler not run before the call returned: %ld\n",
		       q ? "sigqueues" : "kills", late);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	printf("policies read back wrong: %ld\n", atomic_load(&bad));
	return 0;
}
