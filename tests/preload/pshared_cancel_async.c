/*
 * A thread with asynchronous cancellation enabled, blocked locking a
 * PTHREAD_PROCESS_SHARED mutex (lock, timedlock, and a robust one), a
 * shared rwlock (read and write), or waiting in a shared barrier, is
 * cancelled during the wait, as natively (glibc's cancellation signal acts
 * anywhere): pthread_join gives PTHREAD_CANCELED and its cleanup handler
 * ran, while nothing releases what it waits for.  The objects are shared
 * with a forked child that holds them, so the wait really is another
 * process's.  With deferred cancellation the same mutex wait is not
 * cancelled (pthread_mutex_lock is no cancellation point): the thread gets
 * the mutex once the child releases it, and its next cancellation point
 * acts.  A cancel that does not act shows as SIGALRM (alarm(20)), whose
 * exit status differs from the native run's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "weft_check.h"
#include "pshared_util.h"

enum kind { MUTEX, TIMEDLOCK, ROBUST, RDLOCK, WRLOCK, BARRIER, NKIND };
static const char *names[NKIND] = { "pthread_mutex_lock", "pthread_mutex_timedlock",
				    "pthread_mutex_lock (robust)", "pthread_rwlock_rdlock",
				    "pthread_rwlock_wrlock", "pthread_barrier_wait" };

struct shm {
	pthread_mutex_t mu[3]; /* MUTEX, TIMEDLOCK, ROBUST */
	pthread_mutex_t dmu;   /* the deferred case's */
	pthread_rwlock_t rw[2];
	pthread_barrier_t bar;
	_Atomic int held;      /* the child holds everything */
	_Atomic int release;   /* the child releases dmu */
	_Atomic int done;      /* the child may exit */
};
static struct shm *s;
static _Atomic int ready, cleanup_ran, got_it;

static void cleanup(void *a)
{
	(void)a;
	cleanup_ran = 1;
}

static void *waiter(void *a)
{
	enum kind k = (enum kind)(long)a;
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 3600;
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	pthread_cleanup_push(cleanup, NULL);
	ready = 1;
	switch (k) {
	case MUTEX:
	case ROBUST:
		pthread_mutex_lock(&s->mu[k]);
		break;
	case TIMEDLOCK:
		pthread_mutex_timedlock(&s->mu[k], &dl);
		break;
	case RDLOCK:
		pthread_rwlock_rdlock(&s->rw[0]);
		break;
	case WRLOCK:
		pthread_rwlock_wrlock(&s->rw[1]);
		break;
	default:
		pthread_barrier_wait(&s->bar);
		break;
	}
	got_it = 1;
	pthread_cleanup_pop(0);
	return NULL;
}

static void *deferred(void *a)
{
	(void)a;
	pthread_cleanup_push(cleanup, NULL);
	ready = 1;
	pthread_mutex_lock(&s->dmu);
	got_it = 1;
	pthread_mutex_unlock(&s->dmu);
	pthread_testcancel();
	pthread_cleanup_pop(0);
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(20);
	s = shared_page(sizeof *s);
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&s->mu[MUTEX], &ma);
	pthread_mutex_init(&s->mu[TIMEDLOCK], &ma);
	pthread_mutex_init(&s->dmu, &ma);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&s->mu[ROBUST], &ma);
	pthread_rwlockattr_t ra;
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setpshared(&ra, PTHREAD_PROCESS_SHARED);
	pthread_rwlock_init(&s->rw[0], &ra);
	pthread_rwlock_init(&s->rw[1], &ra);
	pthread_barrierattr_t ba;
	pthread_barrierattr_init(&ba);
	pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
	pthread_barrier_init(&s->bar, &ba, 2);

	pid_t child = fork();
	if (child == 0) {
		alarm(20);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (int i = 0; i < 3; i++)
			pthread_mutex_lock(&s->mu[i]);
		pthread_mutex_lock(&s->dmu);
		pthread_rwlock_wrlock(&s->rw[0]);
		pthread_rwlock_wrlock(&s->rw[1]);
		s->held = 1;
		while (!s->release)
			usleep(1000);
		pthread_mutex_unlock(&s->dmu);
		while (!s->done)
			usleep(1000);
		_exit(7);
	}
	while (!s->held)
		usleep(1000);

	for (int k = 0; k < NKIND; k++) {
		ready = cleanup_ran = got_it = 0;
		pthread_t t;
		pthread_create(&t, NULL, waiter, (void *)(long)k);
		while (!ready)
			usleep(1000);
		usleep(50000); /* it sleeps in the wait meanwhile */
		pthread_cancel(t);
		void *r;
		pthread_join(t, &r);
		printf("asynchronous, %s: %s, cleanup ran: %s, got it: %s\n", names[k],
		       r == PTHREAD_CANCELED ? "canceled" : "returned", cleanup_ran ? "yes" : "no",
		       got_it ? "yes" : "no");
	}

	ready = cleanup_ran = got_it = 0;
	pthread_t t;
	pthread_create(&t, NULL, deferred, NULL);
	while (!ready)
		usleep(1000);
	usleep(50000);
	pthread_cancel(t);
	usleep(50000); /* not cancelled meanwhile: still waiting */
	int early = got_it || cleanup_ran;
	s->release = 1;
	void *r;
	pthread_join(t, &r);
	printf("deferred, pthread_mutex_lock: %s, acted before the release: %s, got it: %s, "
	       "cleanup ran: %s\n",
	       r == PTHREAD_CANCELED ? "canceled" : "returned", early ? "yes" : "no",
	       got_it ? "yes" : "no", cleanup_ran ? "yes" : "no");

	s->done = 1;
	printf("child: exit %d\n", reap(child));
	return 0;
}
