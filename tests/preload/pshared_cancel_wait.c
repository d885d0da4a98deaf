/*
 * pthread_cancel of a thread waiting on a PTHREAD_PROCESS_SHARED condition
 * variable acts during the wait, as glibc's does: nothing wakes the wait
 * (no signal, no broadcast), the cancelled thread holds the mutex again
 * when its cleanup handler runs, and pthread_join gives PTHREAD_CANCELED.
 * The same for pthread_cond_timedwait (a deadline far away) and
 * pthread_cond_clockwait, and for a waiter in a forked child's company
 * (the objects really are shared).  sem_wait, sem_timedwait and
 * sem_clockwait on a process-shared semaphore are cancelled during their
 * waits too.  Afterwards the condvar still works: a
 * second waiter is signalled and returns 0, and both objects destroy
 * cleanly.  A cancel that does not act shows as SIGALRM (alarm(20)), whose
 * exit status differs from the native run's.  From glibc 2.41 on, glibc's
 * cancellation of a blocked call no longer opens the window weft acts in
 * (docs/limits.md): the condvar cases are then left out, natively
 * and under weft alike, and the line says so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <gnu/libc-version.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "weft_check.h"
#include "test_util.h"
#include "pshared_util.h"

struct shm {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int waiting;
	int go;
	sem_t sem;
};
static struct shm *s;
static volatile int cleanup_ran, cleanup_held;

static void cleanup_unlock(void *a)
{
	(void)a;
	cleanup_ran = 1;
	/* Held again (an error-checking mutex would say EPERM otherwise): the
	 * unlock succeeds and leaves it free for the main thread. */
	cleanup_held = pthread_mutex_unlock(&s->mu) == 0;
}

enum kind { WAIT, TIMEDWAIT, CLOCKWAIT };

static void *waiter(void *a)
{
	enum kind k = (enum kind)(long)a;
	struct timespec dl;
	clock_gettime(k == CLOCKWAIT ? CLOCK_MONOTONIC : CLOCK_REALTIME, &dl);
	dl.tv_sec += 3600;
	pthread_mutex_lock(&s->mu);
	pthread_cleanup_push(cleanup_unlock, NULL);
	s->waiting++;
	while (!s->go) {
		if (k == WAIT)
			pthread_cond_wait(&s->cv, &s->mu);
		else if (k == TIMEDWAIT)
			pthread_cond_timedwait(&s->cv, &s->mu, &dl);
		else
			pthread_cond_clockwait(&s->cv, &s->mu, CLOCK_MONOTONIC, &dl);
	}
	pthread_cleanup_pop(0);
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

static volatile int sem_about_to_wait, sem_cleanup_ran;

static void sem_cleanup(void *a)
{
	(void)a;
	sem_cleanup_ran = 1;
}

static void *sem_waiter(void *a)
{
	int k = (int)(long)a;
	struct timespec dl;
	clock_gettime(k == CLOCKWAIT ? CLOCK_MONOTONIC : CLOCK_REALTIME, &dl);
	dl.tv_sec += 3600;
	int r;
	pthread_cleanup_push(sem_cleanup, NULL);
	sem_about_to_wait = 1;
	if (k == WAIT)
		r = sem_wait(&s->sem);
	else if (k == TIMEDWAIT)
		r = sem_timedwait(&s->sem, &dl);
	else
		r = sem_clockwait(&s->sem, CLOCK_MONOTONIC, &dl);
	pthread_cleanup_pop(0);
	return (void *)(long)r;
}

/* Returns once `n` waiters counted themselves and the last of them is in
 * its wait (it released the mutex), plus a moment for it to sleep. */
static void wait_waiting(int n)
{
	for (;;) {
		pthread_mutex_lock(&s->mu);
		int w = s->waiting;
		pthread_mutex_unlock(&s->mu);
		if (w >= n)
			break;
		usleep(1000);
	}
	usleep(50000);
}

static const char *names[] = { "pthread_cond_wait", "pthread_cond_timedwait",
			       "pthread_cond_clockwait" };

int main(void)
{
	weft_check_loaded();
	alarm(20);
	s = shared_page(sizeof *s);
	pshared_mutex_cond(&s->mu, PTHREAD_MUTEX_ERRORCHECK, &s->cv);

	/* A forked child waits on the same condvar throughout. */
	pid_t child = fork();
	if (child == 0) {
		alarm(20);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pthread_mutex_lock(&s->mu);
		s->waiting++;
		while (s->go != 2)
			pthread_cond_wait(&s->cv, &s->mu);
		pthread_mutex_unlock(&s->mu);
		_exit(7);
	}
	wait_waiting(1);

	int major = 0, minor = 0;
	sscanf(gnu_get_libc_version(), "%d.%d", &major, &minor);
	bool window = major == 2 && minor < 41;
	if (!window)
		printf("condvar waits: not cancelled during the wait on glibc 2.41 and later\n");
	for (int k = WAIT; window && k <= CLOCKWAIT; k++) {
		cleanup_ran = cleanup_held = 0;
		int before = s->waiting;
		pthread_t t;
		pthread_create(&t, NULL, waiter, (void *)(long)k);
		wait_waiting(before + 1);
		pthread_cancel(t);
		void *r;
		pthread_join(t, &r);
		printf("%s, cancel: %s, cleanup ran: %s, mutex held in cleanup: %s\n", names[k],
		       r == PTHREAD_CANCELED ? "canceled" : "returned", cleanup_ran ? "yes" : "no",
		       cleanup_held ? "yes" : "no");
		/* Not a trylock: the child, woken spuriously by the cancelled
		 * wait's hand-on (glibc's), may hold it for a moment. */
		printf("mutex free afterwards: %s\n", mutex_free(&s->mu));
	}

	static const char *sem_names[] = { "sem_wait", "sem_timedwait", "sem_clockwait" };
	sem_init(&s->sem, 1, 0);
	for (int k = WAIT; k <= CLOCKWAIT; k++) {
		sem_about_to_wait = sem_cleanup_ran = 0;
		pthread_t t;
		pthread_create(&t, NULL, sem_waiter, (void *)(long)k);
		while (!sem_about_to_wait)
			usleep(1000);
		usleep(50000);
		pthread_cancel(t);
		void *r;
		pthread_join(t, &r);
		printf("shared %s, cancel: %s, cleanup ran: %s\n", sem_names[k],
		       r == PTHREAD_CANCELED ? "canceled" : "returned", sem_cleanup_ran ? "yes" : "no");
	}
	printf("sem_destroy: %d\n", sem_destroy(&s->sem));

	/* The condvar still works: a waiter is signalled (with the child
	 * waiting too, a broadcast) and returns. */
	pthread_t t;
	int before = s->waiting;
	pthread_create(&t, NULL, waiter, (void *)(long)WAIT);
	wait_waiting(before + 1);
	pthread_mutex_lock(&s->mu);
	s->go = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	void *r;
	pthread_join(t, &r);
	printf("a later waiter: %s\n", r == PTHREAD_CANCELED ? "canceled" : "returned");
	pthread_mutex_lock(&s->mu);
	s->go = 2;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	printf("child: exit %d\n", reap(child));
	printf("cond destroy: %s, mutex destroy: %s\n", en(pthread_cond_destroy(&s->cv)),
	       en(pthread_mutex_destroy(&s->mu)));
	return 0;
}
