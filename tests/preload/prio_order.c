/* Real-time policies among threads, on one CPU (the program pins itself:
 * natively the order is then the kernel's, and weft must show the same):
 *   - created by a SCHED_FIFO 90 main, threads run when main blocks,
 *     real-time before SCHED_OTHER, higher priority first, FIFO order
 *     within a priority;
 *   - a thread raised above the running one, or the running one lowered
 *     below a ready one, runs at once;
 *   - SCHED_FIFO threads of one priority yielding take turns;
 *   - SCHED_RR threads of one priority share the CPU in time slices,
 *     SCHED_FIFO ones run to completion one after the other;
 *   - a PTHREAD_PRIO_INHERIT mutex: its holder (FIFO 10) runs at its
 *     waiter's priority (30) before a FIFO 20 thread; errorcheck and
 *     recursive kinds keep glibc's results.
 * Busy parts are bounded (~0.5 s in all); main restores SCHED_OTHER.
 * Which waiter a release wakes: prio_wake.c (in the process) and
 * prio_pshared.c (across processes); a spinner's own SIGPROF:
 * prio_sigprof.c.
 * Needs root (CI runs as root). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "prio_util.h"
#include "test_util.h"
#include "weft_check.h"

static char logbuf[4096];
static pthread_mutex_t loglock = PTHREAD_MUTEX_INITIALIZER;

static void say(const char *s)
{
	pthread_mutex_lock(&loglock);
	strcat(logbuf, s);
	strcat(logbuf, " ");
	pthread_mutex_unlock(&loglock);
}

static void flush(const char *what)
{
	printf("%s: %s\n", what, logbuf);
	logbuf[0] = 0;
}

static void *say_name(void *a)
{
	say(a);
	return NULL;
}

/* Runs for `ms` of its own running time (gaps of more than 1 ms, when
 * another thread ran, do not count), noting each time it got the CPU
 * back after another thread of this test had it. */
static _Atomic int last_runner = -1;
static char turns[256];
static _Atomic int nturns;

static void busy(int me, double ms)
{
	double ran = 0, t = now_s();
	while (ran < ms / 1000) {
		if (atomic_exchange(&last_runner, me) != me) {
			int i = atomic_fetch_add(&nturns, 1);
			if (i < 255)
				turns[i] = 'A' + me;
		}
		double u = now_s();
		if (u - t < 0.001)
			ran += u - t;
		t = u;
	}
}

static void *busy_thread(void *a)
{
	busy((int)(long)a, 150);
	return NULL;
}

static void *yielder(void *a)
{
	for (int i = 0; i < 4; i++) {
		say(a);
		sched_yield();
	}
	return NULL;
}

static pthread_mutex_t pim;
static sem_t locked;

static void *low(void *a)
{
	pthread_mutex_lock(&pim);
	say("L-locked");
	sem_post(&locked); /* main (90) takes the CPU back */
	say("L-unlocks");
	pthread_mutex_unlock(&pim);
	say("L-done");
	return a;
}

static void *high(void *a)
{
	say("H-wants");
	pthread_mutex_lock(&pim);
	say("H-got");
	pthread_mutex_unlock(&pim);
	return a;
}

static void *check_pi_other(void *a)
{
	printf("  other: trylock %s, unlock %s\n", E(pthread_mutex_trylock(a)),
	       E(pthread_mutex_unlock(a)));
	return NULL;
}

static void pi_kinds(void)
{
	pthread_mutexattr_t ma;
	pthread_mutex_t m;
	pthread_t th;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&m, &ma);
	printf("errorcheck PI: lock %s, ", E(pthread_mutex_lock(&m)));
	printf("again %s, ", E(pthread_mutex_lock(&m)));
	printf("trylock %s, owner set %d\n", E(pthread_mutex_trylock(&m)), m.__data.__owner != 0);
	pthread_create(&th, NULL, check_pi_other, &m);
	pthread_join(th, NULL);
	printf("  unlock %s, ", E(pthread_mutex_unlock(&m)));
	printf("again %s, owner set %d, ", E(pthread_mutex_unlock(&m)), m.__data.__owner != 0);
	printf("destroy %s\n", E(pthread_mutex_destroy(&m)));
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&m, &ma);
	printf("recursive PI: lock %s, ", E(pthread_mutex_lock(&m)));
	printf("%s, ", E(pthread_mutex_lock(&m)));
	printf("trylock %s, ", E(pthread_mutex_trylock(&m)));
	printf("unlock %s ", E(pthread_mutex_unlock(&m)));
	printf("%s ", E(pthread_mutex_unlock(&m)));
	printf("%s ", E(pthread_mutex_unlock(&m)));
	printf("%s, ", E(pthread_mutex_unlock(&m)));
	printf("destroy %s\n", E(pthread_mutex_destroy(&m)));
	pthread_mutexattr_destroy(&ma);
}

int main(void)
{
	weft_check_loaded();
	setvbuf(stdout, NULL, _IOLBF, 0);
	cpu_set_t all;
	printf("pin: %s\n", E(pin_first_cpu(&all) ? errno : 0));
	pthread_t me = pthread_self();
	struct sched_param sp = { 90 };
	printf("main FIFO 90: %s\n", E(pthread_setschedparam(me, SCHED_FIFO, &sp)));

	/* Created while main runs at 90: they run once it waits. */
	pthread_t t[8];
	t[0] = spawn(SCHED_OTHER, 0, say_name, "O");
	t[1] = spawn(SCHED_FIFO, 10, say_name, "F10");
	t[2] = spawn(SCHED_FIFO, 30, say_name, "F30");
	t[3] = spawn(SCHED_FIFO, 20, say_name, "F20");
	t[4] = spawn(SCHED_RR, 20, say_name, "R20");
	t[5] = spawn(SCHED_RR, 1, say_name, "R1");
	say("main");
	for (int i = 0; i < 6; i++)
		pthread_join(t[i], NULL);
	flush("priority order");

	/* Lowered below a ready thread; a ready thread raised. */
	t[0] = spawn(SCHED_FIFO, 40, say_name, "F40");
	say("main-90");
	printf("lower to 30: %s\n", E(pthread_setschedprio(me, 30)));
	say("main-30");
	t[1] = spawn(SCHED_FIFO, 20, say_name, "F20-raised-to-50");
	say("created");
	sp.sched_priority = 50;
	printf("raise to 50: %s\n", E(pthread_setschedparam(t[1], SCHED_FIFO, &sp)));
	say("main-after-raise");
	t[2] = spawn(SCHED_FIFO, 35, say_name, "F35");
	say("main-after-create");
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	flush("preemption");

	/* FIFO threads of one priority that yield take turns. */
	sp.sched_priority = 90;
	pthread_setschedparam(me, SCHED_FIFO, &sp);
	t[0] = spawn(SCHED_FIFO, 20, yielder, "a");
	t[1] = spawn(SCHED_FIFO, 20, yielder, "b");
	t[2] = spawn(SCHED_FIFO, 20, yielder, "c");
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	flush("yield");

	/* Time slices: RR threads of one priority alternate, FIFO do not. */
	for (int pol = 0; pol < 2; pol++) {
		int policy = pol ? SCHED_FIFO : SCHED_RR;
		atomic_store(&nturns, 0);
		atomic_store(&last_runner, -1);
		memset(turns, 0, sizeof turns);
		t[0] = spawn(policy, 20, busy_thread, (void *)0);
		t[1] = spawn(policy, 20, busy_thread, (void *)1);
		pthread_join(t[0], NULL);
		pthread_join(t[1], NULL);
		int n = atomic_load(&nturns);
		printf("%s: first %.2s, %s\n", pol ? "FIFO" : "RR", turns,
		       n >= 3 ? "took turns" : n == 2 ? "one after the other" : "?");
	}

	/* Priority inheritance. */
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	printf("setprotocol: %s\n", E(pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT)));
	pthread_mutex_init(&pim, &ma);
	pthread_mutexattr_destroy(&ma);
	sem_init(&locked, 0, 0);
	t[0] = spawn(SCHED_FIFO, 10, low, NULL);
	sem_wait(&locked);
	say("main");
	t[1] = spawn(SCHED_FIFO, 30, high, NULL);
	t[2] = spawn(SCHED_FIFO, 20, say_name, "M");
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	flush("inheritance");
	pthread_mutex_destroy(&pim);
	pi_kinds();

	main_other(&all);
	return 0;
}
