/*
 * A handler that runs during a timed wait does not make the wait time out
 * when the object is free once it returns.  A thread waits with a deadline
 * on an object main holds (mutex, rwlock for writing and for reading,
 * semaphore); main sends it SIGUSR1, whose handler waits until main has
 * released the object, then sleeps past the deadline.  POSIX:
 * pthread_mutex_timedlock and the rwlock's timed locks do not fail with
 * ETIMEDOUT if the lock can be taken; sem_timedwait may end with EINTR
 * (glibc's does) or take the posted unit.  Under weft the handler's own
 * sleep reused the wait's record, and the wait ended with the sleep's
 * timeout.  (A condition variable is left out: glibc's own timed wait may
 * time out after such a handler though it was signalled meanwhile.)
 * On a machine loaded enough that the wait's 300 ms passed before the
 * signal came (the waiter timed out with no handler run), the case is
 * tried again: that is the load, natively as under weft.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "test_util.h"
#include "weft_check.h"

enum { MUTEX, WRLOCK, RDLOCK, SEM, NKINDS };
static const char *const names[NKINDS] = { "mutex_timedlock", "rwlock_timedwrlock",
					   "rwlock_timedrdlock", "sem_timedwait" };

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static sem_t sem;
static atomic_int waiting, in_handler, released, early;
static struct timespec dl;

static void on_usr1(int sig)
{
	(void)sig;
	atomic_store(&in_handler, 1);
	while (!atomic_load(&released))
		usleep(1000);
	/* Until 50 ms past the waiter's deadline. */
	long long end = dl.tv_sec * 1000000000LL + dl.tv_nsec + 50000000;
	for (;;) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		if (now.tv_sec * 1000000000LL + now.tv_nsec > end)
			break;
		usleep(20000);
	}
}

static void *waiter(void *arg)
{
	int kind = (int)(long)arg;
	int r = 0;
	deadline(CLOCK_REALTIME, &dl, 300);
	atomic_store(&waiting, 1);
	switch (kind) {
	case MUTEX:
		r = pthread_mutex_timedlock(&mtx, &dl);
		if (!r)
			pthread_mutex_unlock(&mtx);
		break;
	case WRLOCK:
		r = pthread_rwlock_timedwrlock(&rw, &dl);
		if (!r)
			pthread_rwlock_unlock(&rw);
		break;
	case RDLOCK:
		r = pthread_rwlock_timedrdlock(&rw, &dl);
		if (!r)
			pthread_rwlock_unlock(&rw);
		break;
	case SEM:
		r = sem_timedwait(&sem, &dl) ? errno : 0;
		break;
	}
	if (!atomic_load(&in_handler))
		atomic_store(&early, 1); /* the wait ended before the signal came */
	return (void *)(long)r;
}

int main(void)
{
	weft_check_loaded();
	struct sigaction sa = { 0 };
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sem_init(&sem, 0, 0);
	for (long k = 0, tries = 0; k < NKINDS; k++) {
		atomic_store(&waiting, 0);
		atomic_store(&in_handler, 0);
		atomic_store(&released, 0);
		atomic_store(&early, 0);
		if (k == MUTEX)
			pthread_mutex_lock(&mtx);
		if (k == WRLOCK || k == RDLOCK)
			pthread_rwlock_wrlock(&rw);
		pthread_t th;
		pthread_create(&th, NULL, waiter, (void *)k);
		while (!atomic_load(&waiting))
			usleep(1000);
		usleep(20000); /* let it wait */
		pthread_kill(th, SIGUSR1);
		while (!atomic_load(&in_handler) && !atomic_load(&early))
			usleep(1000);
		if (k == MUTEX)
			pthread_mutex_unlock(&mtx);
		if (k == WRLOCK || k == RDLOCK)
			pthread_rwlock_unlock(&rw);
		if (k == SEM)
			sem_post(&sem);
		atomic_store(&released, 1);
		void *rv;
		pthread_join(th, &rv);
		int r = (int)(long)rv;
		if (atomic_load(&early) && ++tries < 20) {
			while (k == SEM && sem_trywait(&sem) == 0)
				; /* the unit posted after the timeout */
			k--;
			continue;
		}
		tries = 0;
		/* sem_timedwait may end with EINTR (glibc's does) or take the
		 * unit; neither is a timeout. */
		if (k == SEM && r == EINTR)
			r = 0;
		printf("%s: %s\n", names[k], en(r));
	}
	return 0;
}
