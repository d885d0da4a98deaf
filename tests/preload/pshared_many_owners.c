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
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int waiting;
	int go;
	int errs[8]; /* by kind */
	int nowners;
	int owners[N];
};
static struct shm *s;

enum { E_LOCK, E_WAIT, E_UNLOCK, E_OWNER };

static void *waiter(void *a)
{
	(void)a;
	int r = pthread_mutex_lock(&s->mu);
	if (r) {
		__atomic_fetch_add(&s->errs[E_LOCK], 1, __ATOMIC_RELAXED);
		return NULL;
	}
	s->waiting++;
	s->owners[s->nowners++] = s->mu.__data.__owner;
	while (!s->go) {
		r = pthread_cond_wait(&s->cv, &s->mu);
		if (r) {
			s->errs[E_WAIT]++;
			if (r == EDEADLK) /* not held: nothing to unlock */
				return NULL;
		}
	}
	/* An error-checking mutex held by the caller: a second lock says EDEADLK. */
	if (pthread_mutex_trylock(&s->mu) != EBUSY || pthread_mutex_lock(&s->mu) != EDEADLK)
		s->errs[E_OWNER]++;
	if (pthread_mutex_unlock(&s->mu))
		__atomic_fetch_add(&s->errs[E_UNLOCK], 1, __ATOMIC_RELAXED);
	return NULL;
}

static int round_(int n)
{
	static pthread_t th[N];
	s->waiting = 0;
	s->go = 0;
	s->nowners = 0;
	memset(s->errs, 0, sizeof s->errs);
	int made = 0;
	for (; made < n; made++)
		if (pthread_create(&th[made], NULL, waiter, NULL))
			break;
	for (;;) {
		pthread_mutex_lock(&s->mu);
		int w = s->waiting;
		if (w >= made) {
			s->go = 1;
			pthread_cond_broadcast(&s->cv);
			pthread_mutex_unlock(&s->mu);
			break;
		}
		pthread_mutex_unlock(&s->mu);
		usleep(2000);
	}
	for (int i = 0; i < made; i++)
		pthread_join(th[i], NULL);
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
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&s->mu, &ma);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_cond_init(&s->cv, &ca);
	int n = test_threads(N);
	round_(n);
	round_(n);
	printf("cond destroy: %s, mutex destroy: %s\n", en(pthread_cond_destroy(&s->cv)),
	       en(pthread_mutex_destroy(&s->mu)));
	return 0;
}
