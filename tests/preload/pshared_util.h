/*
 * pshared_util.h — helpers for the tests that share memory with a forked
 * child.
 *   shared_page(n)            n zeroed bytes of MAP_SHARED anonymous memory
 *   sfutex(addr, op, val, t, addr2, val3)
 *                             syscall(SYS_futex, ...)
 *   reap(pid)                 waits for pid; its exit status, 128+signal if
 *                             a signal ended it
 *   pshared_mutex_cond(m, type, c)
 *                             m a PTHREAD_PROCESS_SHARED mutex of kind type
 *                             (PTHREAD_MUTEX_DEFAULT: the attribute's kind
 *                             is left as it is), c a PTHREAD_PROCESS_SHARED
 *                             condition variable
 *   struct pshared_waiters    a process-shared mutex and condition
 *                             variable, the waiters counted and their flag
 *   wake_waiters(th, n, fn, w)
 *                             up to n threads (th[]) run fn, fewer if a
 *                             pthread_create fails; once w->waiting (under
 *                             w->mu) counts every one made, w->go is set,
 *                             w->cv broadcast and all are joined; returns
 *                             how many were made
 *   mutex_free(m)             "yes" if a timed lock of m (5 s) gets it (then
 *                             unlocked), else the error's name (en)
 * Every test arms alarm(): a wait that never ends fails the test in seconds
 * (SIGALRM's exit status differs from the native run's) instead of the
 * runner's two minutes.
 */
#ifndef WEFT_PSHARED_UTIL_H
#define WEFT_PSHARED_UTIL_H
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

static inline void *shared_page(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

static inline long sfutex(void *addr, int op, int val, long t, void *addr2, int val3)
{
	return syscall(SYS_futex, addr, op, val, t, addr2, val3);
}

static inline int reap(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static inline void pshared_mutex_cond(pthread_mutex_t *m, int type, pthread_cond_t *c)
{
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	if (type != PTHREAD_MUTEX_DEFAULT)
		pthread_mutexattr_settype(&ma, type);
	pthread_mutex_init(m, &ma);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_cond_init(c, &ca);
}

struct pshared_waiters {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int waiting; /* [mu] */
	int go;      /* [mu] */
};

static inline int wake_waiters(pthread_t *th, int n, void *(*fn)(void *),
			       struct pshared_waiters *w)
{
	int made = 0;
	for (; made < n; made++)
		if (pthread_create(&th[made], NULL, fn, NULL))
			break;
	for (;;) {
		pthread_mutex_lock(&w->mu);
		if (w->waiting >= made) {
			w->go = 1;
			pthread_cond_broadcast(&w->cv);
			pthread_mutex_unlock(&w->mu);
			break;
		}
		pthread_mutex_unlock(&w->mu);
		usleep(2000);
	}
	for (int i = 0; i < made; i++)
		pthread_join(th[i], NULL);
	return made;
}

static inline const char *mutex_free(pthread_mutex_t *m)
{
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 5;
	int tl = pthread_mutex_timedlock(m, &dl);
	if (tl == 0)
		pthread_mutex_unlock(m);
	return tl == 0 ? "yes" : en(tl);
}
#endif
