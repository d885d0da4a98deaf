/*
 * 1,000 threads wait at once on a PTHREAD_PROCESS_SHARED condition variable
 * with a process-shared error-checking mutex: every owner id glibc records
 * in the mutex is distinct, as natively (kernel tids), so no re-lock after
 * a wait fails with EDEADLK, no unlock with EPERM, and both objects destroy
 * with 0 once the waiters are gone.  Twice, so that ids given back by
 * exited threads are handed out again without collisions.  Each thread
 * records the owner id glibc wrote in the mutex (__data.__owner) while
 * it holds it; all are alive at once, so the ids must all differ.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "weft_check.h"
#include "test_util.h"
#include "pshared_util.h"

#define N 1000

struct shm {
	struct pshared_waiters w;
	int errs[8]; /* by kind */
	int nowners;
	int owners[N];
};
static struct shm *s;

enum { E_LOCK, E_WAIT, E_UNLOCK, E_OWNER };

static void *waiter(void *a)
{
	(void)a;
	int r = pthread_mutex_lock(&s->w.mu);
	if (r) {
		__atomic_fetch_add(&s->errs[E_LOCK], 1, __ATOMIC_RELAXED);
		return NULL;
	}
	s->w.waiting++;
	s->owners[s->nowners++] = s->w.mu.__data.__owner;
	while (!s->w.go) {
		r = pthread_cond_wait(&s->w.cv, &s->w.mu);
		if (r) {
			s->errs[E_WAIT]++;
			if (r == EDEADLK) /* not held: nothing to unlock */
				return NULL;
		}
	}
	/* An error-checking mutex held by the caller: a second lock says EDEADLK. */
	if (pthread_mutex_trylock(&s->w.mu) != EBUSY || pthread_mutex_lock(&s->w.mu) != EDEADLK)
		s->errs[E_OWNER]++;
	if (pthread_mutex_unlock(&s->w.mu))
		__atomic_fetch_add(&s->errs[E_UNLOCK], 1, __ATOMIC_RELAXED);
	return NULL;
}

static int round_(int n)
{
	static pthread_t th[N];
	s->w.waiting = 0;
	s->w.go = 0;
	s->nowners = 0;
	memset(s->errs, 0, sizeof s->errs);
	int made = wake_waiters(th, n, waiter, &s->w);
	int dup = 0;
	for (int i = 0; i < s->nowners; i++)
		for (int j = i + 1; j < s->nowners; j++)
			dup += s->owners[i] == s->owners[j];
	printf("owner ids recorded: %s, repeated: %d\n", s->nowners == made ? "all" : "not all", dup);
	printf("%s waiters: lock errors %d, wait errors %d, owner wrong %d, unlock errors %d\n",
	       made == n ? "all" : "not all", s->errs[E_LOCK], s->errs[E_WAIT], s->errs[E_OWNER],
	       s->errs[E_UNLOCK]);
	return made;
}

int main(void)
{
	weft_check_loaded();
	alarm(60);
	s = shared_page(sizeof *s);
	pshared_mutex_cond(&s->w.mu, PTHREAD_MUTEX_ERRORCHECK, &s->w.cv);
	int n = test_threads(N);
	round_(n);
	round_(n);
	printf("cond destroy: %s, mutex destroy: %s\n", en(pthread_cond_destroy(&s->w.cv)),
	       en(pthread_mutex_destroy(&s->w.mu)));
	return 0;
}
