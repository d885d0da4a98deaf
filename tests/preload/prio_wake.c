/* Which waiter a release wakes, on one CPU (the program pins itself):
 * main at SCHED_FIFO 1 holds a mutex, a semaphore at 0, a write lock, a
 * condition variable's predicate; threads at SCHED_FIFO 5, 10 and 20 (each
 * runs at once when created, above main) block on it in that order; and a
 * PTHREAD_PRIO_INHERIT mutex's waiters likewise.  One
 * release by main then wakes the highest priority first (POSIX: with the
 * Process Scheduling option the policy decides; natively the kernel's
 * futex queue is ordered by priority), and each waiter passes it on to
 * the next, highest first again.  SCHED_OTHER waiters queue behind the
 * real-time ones, in arrival order: they block while main (FIFO) sleeps,
 * one at a time (main waits until the semaphore counts it).
 * Needs root (CI runs as root). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "prio_util.h"
#include "weft_check.h"

static char logbuf[512];

/* Called only by the holder of the object under test (the waiters pass
 * it on, one at a time), so the log needs no lock of its own. */
static void say(const char *s)
{
	strcat(logbuf, s);
	strcat(logbuf, " ");
}

static void flush(const char *what)
{
	printf("%s: %s\n", what, logbuf);
	logbuf[0] = 0;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static sem_t sem;
static int go;

static void *mutex_waiter(void *name)
{
	pthread_mutex_lock(&mu);
	say(name);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static pthread_mutex_t pim;

static void *pi_waiter(void *name)
{
	pthread_mutex_lock(&pim);
	say(name);
	pthread_mutex_unlock(&pim);
	return NULL;
}

static void *sem_waiter(void *name)
{
	sem_wait(&sem);
	say(name);
	sem_post(&sem);
	return NULL;
}

static void *rw_waiter(void *name)
{
	pthread_rwlock_wrlock(&rw);
	say(name);
	pthread_rwlock_unlock(&rw);
	return NULL;
}

static void *cond_waiter(void *name)
{
	pthread_mutex_lock(&mu);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	go--;
	say(name);
	pthread_mutex_unlock(&mu);
	return NULL;
}

/* glibc's sem_t and weft's alike: the value in the low 32 bits of the
 * first word, the waiters counted in the high 32. */
static unsigned sem_waiters(void)
{
	return (unsigned)(__atomic_load_n((uint64_t *)(void *)&sem, __ATOMIC_RELAXED) >> 32);
}

/* Spawns the three waiters, lets release() free the object, and prints
 * the order they got it in, once they and the n threads in more ended. */
static void run_joined(const char *what, void *(*fn)(void *), void (*release)(void),
		       pthread_t *more, int n)
{
	static const int prio[3] = { 5, 10, 20 };
	static const char *name[3] = { "F5", "F10", "F20" };
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		t[i] = spawn(SCHED_FIFO, prio[i], fn, (void *)name[i]);
	release();
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < n; i++)
		pthread_join(more[i], NULL);
	flush(what);
}

static void run(const char *what, void *(*fn)(void *), void (*release)(void))
{
	run_joined(what, fn, release, NULL, 0);
}

static void release_mutex(void) { pthread_mutex_unlock(&mu); }
static void release_pi(void) { pthread_mutex_unlock(&pim); }
static void release_sem(void) { sem_post(&sem); }
static void release_rw(void) { pthread_rwlock_unlock(&rw); }

/* One signal at a time: the woken waiter runs (above main) and finds the
 * mutex held by main; main's unlock lets it in, then the next signal. */
static void release_cond(void)
{
	for (int i = 0; i < 3; i++) {
		pthread_mutex_lock(&mu);
		go++;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
	}
}

int main(void)
{
	weft_check_loaded();
	setvbuf(stdout, NULL, _IOLBF, 0);
	cpu_set_t all;
	printf("pin: %s\n", E(pin_first_cpu(&all) ? errno : 0));
	struct sched_param sp = { 1 };
	printf("main FIFO 1: %s\n", E(pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)));

	pthread_mutex_lock(&mu);
	run("mutex", mutex_waiter, release_mutex);

	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&pim, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_mutex_lock(&pim);
	run("mutex PRIO_INHERIT", pi_waiter, release_pi);
	pthread_mutex_destroy(&pim);

	sem_init(&sem, 0, 0);
	run("sem_post", sem_waiter, release_sem);

	pthread_rwlock_wrlock(&rw);
	run("rwlock writers", rw_waiter, release_rw);

	run("cond_signal", cond_waiter, release_cond);

	/* Two SCHED_OTHER waiters first, then the real-time ones.  The last
	 * waiter's post left a unit: start at 0 again. */
	sem_destroy(&sem);
	sem_init(&sem, 0, 0);
	pthread_t o[2];
	static const char *oname[2] = { "O1", "O2" };
	for (int i = 0; i < 2; i++) {
		o[i] = spawn(SCHED_OTHER, 0, sem_waiter, (void *)oname[i]);
		while (sem_waiters() != (unsigned)i + 1)
			usleep(1000);
		/* Counted, it is about to sleep in the kernel (natively) or
		 * park (weft): let it get there before the next one comes. */
		usleep(20000);
	}
	run_joined("sem_post, SCHED_OTHER first", sem_waiter, release_sem, o, 2);
	sem_destroy(&sem);

	main_other(&all);
	return 0;
}
