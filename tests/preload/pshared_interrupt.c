/*
 * A task waiting on a process-shared object (a PTHREAD_PROCESS_SHARED
 * condition variable and mutex in MAP_SHARED memory, a named semaphore)
 * can still be cancelled and signalled, as POSIX and glibc promise:
 *   - pthread_cond_wait and sem_wait are cancellation points: the cancel
 *     acts, the cleanup handler runs (for the condvar with the mutex held
 *     again), pthread_join gives PTHREAD_CANCELED;
 *   - pthread_kill's handler runs on the waiting thread; sem_wait then
 *     fails with EINTR (never restarted, SA_RESTART or not: signal(7)); a
 *     condvar wait resumes (or returns 0) and ends when signalled; a
 *     mutex lock goes on waiting and gets the lock once it is unlocked.
 * A broadcast after the cancel of the condvar waiter finds nobody (the
 * cancel acted during the wait; pshared_cancel_wait checks that without
 * it).  The waits are in
 * progress when the request comes (the waiter says it is
 * about to wait; the main thread then sleeps 100 ms).  A sem_wait that the
 * signal did not end is ended by a post a second later, and a condvar
 * waiter by a broadcast, so a failure shows in the output, not as a hang;
 * alarm(20) bounds the rest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "weft_check.h"
#include "test_util.h"
#include "pshared_util.h"

struct shm {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int go;
};
static struct shm *s;
static sem_t *sem;
static volatile int about_to_wait;
static volatile int cleanup_ran, cleanup_held;
static pthread_t handler_thread;
static volatile int handler_ran;

static void on_usr1(int sig)
{
	(void)sig;
	handler_thread = pthread_self();
	handler_ran = 1;
}

static void cleanup_unlock(void *a)
{
	(void)a;
	/* The mutex is held again: unlocking it succeeds (errorcheck-free
	 * normal mutex: EPERM is not promised, so test by trylock after). */
	cleanup_ran = 1;
	cleanup_held = pthread_mutex_unlock(&s->mu) == 0;
}

static void cleanup_note(void *a)
{
	(void)a;
	cleanup_ran = 1;
}

static void *cond_waiter(void *a)
{
	(void)a;
	pthread_mutex_lock(&s->mu);
	pthread_cleanup_push(cleanup_unlock, NULL);
	about_to_wait = 1;
	while (!s->go)
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_cleanup_pop(0);
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

static void *sem_waiter(void *a)
{
	(void)a;
	int r;
	pthread_cleanup_push(cleanup_note, NULL);
	about_to_wait = 1;
	r = sem_wait(sem) ? errno : 0;
	pthread_cleanup_pop(0);
	return (void *)(long)r;
}

static void *mutex_waiter(void *a)
{
	(void)a;
	about_to_wait = 1;
	int r = pthread_mutex_lock(&s->mu);
	if (!r)
		pthread_mutex_unlock(&s->mu);
	return (void *)(long)r;
}

static pthread_t start(void *(*fn)(void *))
{
	pthread_t t;
	about_to_wait = 0;
	cleanup_ran = cleanup_held = handler_ran = 0;
	handler_thread = 0;
	pthread_create(&t, NULL, fn, NULL);
	while (!about_to_wait)
		usleep(1000);
	usleep(100000);
	return t;
}

static const char *joined(pthread_t t)
{
	void *r;
	pthread_join(t, &r);
	if (r == PTHREAD_CANCELED)
		return "canceled";
	static char buf[32];
	int e = (int)(long)r;
	snprintf(buf, sizeof buf, "returned %s", e == EINTR ? "EINTR" : en(e));
	return buf;
}

int main(void)
{
	weft_check_loaded();
	alarm(20);
	s = shared_page(sizeof *s);
	pshared_mutex_cond(&s->mu, PTHREAD_MUTEX_DEFAULT, &s->cv);
	char name[64];
	snprintf(name, sizeof name, "/weft-pshared-interrupt-%d", (int)getpid());
	sem = sem_open(name, O_CREAT | O_EXCL, 0600, 0);
	if (sem == SEM_FAILED)
		return 2;
	sem_unlink(name);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);

	/* A forked child waits on the same condvar and semaphore meanwhile:
	 * the objects really are shared between processes. */
	pid_t child = fork();
	if (child == 0) {
		alarm(20); /* not inherited */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pthread_mutex_lock(&s->mu);
		while (s->go != 2)
			pthread_cond_wait(&s->cv, &s->mu);
		pthread_mutex_unlock(&s->mu);
		_exit(sem_wait(sem) == 0 ? 7 : 8);
	}

	pthread_t t = start(cond_waiter);
	pthread_cancel(t);
	/* The cancel has acted by now; to a waiter still there, this
	 * broadcast is a spurious wake-up (go stays 0). */
	usleep(100000);
	pthread_mutex_lock(&s->mu);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	const char *j = joined(t);
	printf("shared condvar wait, cancel: %s, cleanup ran: %s, mutex held in cleanup: %s\n", j,
	       cleanup_ran ? "yes" : "no", cleanup_held ? "yes" : "no");
	/* Not a trylock: the child, woken by the broadcast, holds the mutex
	 * for a moment before it waits again. */
	printf("mutex free afterwards: %s\n", mutex_free(&s->mu));

	t = start(sem_waiter);
	pthread_cancel(t);
	j = joined(t);
	printf("named semaphore wait, cancel: %s, cleanup ran: %s\n", j, cleanup_ran ? "yes" : "no");

	t = start(sem_waiter);
	pthread_kill(t, SIGUSR1);
	for (int i = 0; i < 1000 && !handler_ran; i++)
		usleep(1000);
	usleep(100000);
	int rescue = sem_post(sem); /* ends the wait if the signal did not */
	(void)rescue;
	const char *r = joined(t);
	printf("named semaphore wait, pthread_kill: handler ran on the waiter: %s, sem_wait %s\n",
	       handler_ran && pthread_equal(handler_thread, t) ? "yes" : "no", r);
	int v = -1;
	if (!strcmp(r, "returned EINTR"))
		sem_wait(sem); /* take the rescue post back */
	sem_getvalue(sem, &v);
	printf("semaphore value: %d\n", v);

	t = start(cond_waiter);
	pthread_kill(t, SIGUSR1);
	for (int i = 0; i < 1000 && !handler_ran; i++)
		usleep(1000);
	pthread_mutex_lock(&s->mu);
	s->go = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	j = joined(t);
	printf("shared condvar wait, pthread_kill: handler ran on the waiter: %s, wait %s\n",
	       handler_ran && pthread_equal(handler_thread, t) ? "yes" : "no", j);

	pthread_mutex_lock(&s->mu);
	t = start(mutex_waiter);
	pthread_kill(t, SIGUSR1);
	for (int i = 0; i < 1000 && !handler_ran; i++)
		usleep(1000);
	pthread_mutex_unlock(&s->mu);
	j = joined(t);
	printf("shared mutex lock, pthread_kill: handler ran on the waiter: %s, lock %s\n",
	       handler_ran && pthread_equal(handler_thread, t) ? "yes" : "no", j);

	pthread_mutex_lock(&s->mu);
	s->go = 2;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	sem_post(sem);
	printf("child: exit %d\n", reap(child));
	return 0;
}
