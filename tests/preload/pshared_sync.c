/*
 * pshared_sync: PTHREAD_PROCESS_SHARED mutexes (normal, errorcheck,
 * recursive, robust), condition variables, rwlocks, barriers and unnamed
 * semaphores in MAP_SHARED memory, used by a parent and its forked child.
 *   - a lock held by the parent is not the child's: trylock gives EBUSY, an
 *     errorcheck timed lock times out (no EDEADLK), a recursive trylock
 *     fails, a timed wrlock times out (no EDEADLK);
 *   - a robust mutex whose holder process died gives EOWNERDEAD, then
 *     pthread_mutex_consistent makes it usable again;
 *   - round trips over a shared mutex + condvar, a shared barrier and two
 *     shared semaphores complete;
 *   - two tasks waiting on a shared condvar do not keep 770 runnable
 *     threads (the one that signals among them) from running.
 * alarm(8) bounds it: natively all of it takes well under a second.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>

#include "weft_check.h"
#include "test_util.h"
#include "pshared_util.h"

#define TRIPS 300
#define RUNNERS 770

struct shm {
	pthread_mutex_t normal, errchk, recur, robust, dead, m;
	pthread_cond_t c;
	pthread_rwlock_t rw;
	pthread_barrier_t bar;
	sem_t s1, s2;
	int turn;
	_Atomic int flag;
};
static struct shm *S;

static void mutex_init(pthread_mutex_t *m, int type, int robust)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_settype(&a, type);
	if (robust)
		pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}

static void init_all(struct shm *s)
{
	mutex_init(&s->normal, PTHREAD_MUTEX_NORMAL, 0);
	mutex_init(&s->errchk, PTHREAD_MUTEX_ERRORCHECK, 0);
	mutex_init(&s->recur, PTHREAD_MUTEX_RECURSIVE, 0);
	mutex_init(&s->robust, PTHREAD_MUTEX_NORMAL, 1);
	mutex_init(&s->dead, PTHREAD_MUTEX_ERRORCHECK, 1);
	mutex_init(&s->m, PTHREAD_MUTEX_NORMAL, 0);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_cond_init(&s->c, &ca);
	pthread_rwlockattr_t ra;
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setpshared(&ra, PTHREAD_PROCESS_SHARED);
	pthread_rwlock_init(&s->rw, &ra);
	pthread_barrierattr_t ba;
	pthread_barrierattr_init(&ba);
	pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
	pthread_barrier_init(&s->bar, &ba, 2);
	sem_init(&s->s1, 1, 0);
	sem_init(&s->s2, 1, 0);
}

/* The child's view of the parent's locks; one line, printed by the child. */
static int owner_child(struct shm *s)
{
	struct timespec ts;
	int t1 = pthread_mutex_trylock(&s->normal);
	int t2 = pthread_mutex_trylock(&s->errchk);
	deadline(CLOCK_REALTIME, &ts, 100);
	int t3 = pthread_mutex_timedlock(&s->errchk, &ts);
	int t4 = pthread_mutex_trylock(&s->recur);
	int t5 = pthread_mutex_trylock(&s->robust);
	int t6 = pthread_rwlock_trywrlock(&s->rw);
	deadline(CLOCK_REALTIME, &ts, 100);
	int t7 = pthread_rwlock_timedwrlock(&s->rw, &ts);
	int t8 = pthread_mutex_unlock(&s->errchk);
	printf("child: trylock normal %s, errorcheck %s, timed errorcheck %s, recursive %s, "
	       "robust %s, trywrlock %s, timed wrlock %s, errorcheck unlock %s\n",
	       en(t1), en(t2), en(t3), en(t4), en(t5), en(t6), en(t7), en(t8));
	return 0;
}

static int dying_child(struct shm *s)
{
	pthread_mutex_lock(&s->dead);
	_exit(0); /* dies holding it */
}

static int pingpong_child(struct shm *s)
{
	for (int i = 0; i < TRIPS; i++) {
		pthread_mutex_lock(&s->m);
		while (s->turn != 2 * i + 1)
			pthread_cond_wait(&s->c, &s->m);
		s->turn = 2 * i + 2;
		pthread_cond_broadcast(&s->c);
		pthread_mutex_unlock(&s->m);
	}
	for (int i = 0; i < TRIPS; i++)
		pthread_barrier_wait(&s->bar);
	for (int i = 0; i < TRIPS; i++) {
		sem_wait(&s->s1);
		sem_post(&s->s2);
	}
	return 0;
}

static int nwaiting;
static void *cond_waiter(void *arg)
{
	pthread_mutex_lock(&S->m);
	nwaiting++;
	while (!atomic_load(&S->flag))
		pthread_cond_wait(&S->c, &S->m);
	pthread_mutex_unlock(&S->m);
	return arg;
}

static _Atomic int ran;
static void *runner(void *arg)
{
	for (int i = 0; i < 5; i++)
		sched_yield();
	if ((long)arg == RUNNERS / 2) {
		pthread_mutex_lock(&S->m);
		atomic_store(&S->flag, 1);
		pthread_cond_broadcast(&S->c);
		pthread_mutex_unlock(&S->m);
	}
	atomic_fetch_add(&ran, 1);
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	alarm(8);
	setvbuf(stdout, NULL, _IONBF, 0);
	struct shm *s = S = shared_page(4096);
	init_all(s);

	/* Ownership across processes. */
	int r1 = pthread_mutex_lock(&s->normal), r2 = pthread_mutex_lock(&s->errchk);
	int r3 = pthread_mutex_lock(&s->recur), r4 = pthread_mutex_lock(&s->recur);
	int r5 = pthread_mutex_lock(&s->robust), r6 = pthread_rwlock_wrlock(&s->rw);
	printf("parent: lock %s %s %s %s %s wrlock %s\n", en(r1), en(r2), en(r3), en(r4), en(r5),
	       en(r6));
	pid_t pid = fork();
	if (pid == 0)
		_exit(owner_child(s));
	printf("owner child: %d\n", reap(pid));
	r1 = pthread_mutex_lock(&s->errchk);
	r2 = pthread_mutex_unlock(&s->normal);
	r3 = pthread_mutex_unlock(&s->errchk);
	r4 = pthread_mutex_unlock(&s->recur);
	r5 = pthread_mutex_unlock(&s->recur);
	r6 = pthread_mutex_unlock(&s->robust);
	int r7 = pthread_rwlock_unlock(&s->rw);
	printf("parent: errorcheck relock %s, unlock %s %s %s %s %s rwlock %s\n", en(r1), en(r2),
	       en(r3), en(r4), en(r5), en(r6), en(r7));

	/* A robust mutex's holder process dies. */
	pid = fork();
	if (pid == 0)
		_exit(dying_child(s));
	printf("dying child: %d\n", reap(pid));
	int r = pthread_mutex_lock(&s->dead);
	printf("robust lock after the holder died: %s\n", r == EOWNERDEAD ? "EOWNERDEAD" : en(r));
	r1 = pthread_mutex_consistent(&s->dead);
	r2 = pthread_mutex_unlock(&s->dead);
	r3 = pthread_mutex_lock(&s->dead);
	r4 = pthread_mutex_lock(&s->dead);
	r5 = pthread_mutex_unlock(&s->dead);
	printf("consistent %s, unlock %s, lock %s, relock %s, unlock %s\n", en(r1), en(r2), en(r3),
	       en(r4), en(r5));

	/* Round trips: condvar, barrier, semaphores. */
	pid = fork();
	if (pid == 0)
		_exit(pingpong_child(s));
	for (int i = 0; i < TRIPS; i++) {
		pthread_mutex_lock(&s->m);
		s->turn = 2 * i + 1;
		pthread_cond_broadcast(&s->c);
		while (s->turn != 2 * i + 2)
			pthread_cond_wait(&s->c, &s->m);
		pthread_mutex_unlock(&s->m);
	}
	for (int i = 0; i < TRIPS; i++)
		pthread_barrier_wait(&s->bar);
	for (int i = 0; i < TRIPS; i++) {
		sem_post(&s->s1);
		sem_wait(&s->s2);
	}
	printf("round trips: condvar %d, barrier %d, semaphore %d; child %d\n", TRIPS, TRIPS,
	       TRIPS, reap(pid));

	/* Two shared-condvar waiters and many runnable threads. */
	pthread_t w[2], t[RUNNERS];
	for (int i = 0; i < 2; i++)
		pthread_create(&w[i], NULL, cond_waiter, NULL);
	for (int n = 0; n < 2;) { /* both waiting: they gave the mutex up */
		sched_yield();
		pthread_mutex_lock(&s->m);
		n = nwaiting;
		pthread_mutex_unlock(&s->m);
	}
	for (long i = 0; i < RUNNERS; i++)
		if (pthread_create(&t[i], NULL, runner, (void *)i)) {
			printf("pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < RUNNERS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(w[i], NULL);
	printf("runners: %d, waiters woken: 2\n", atomic_load(&ran));
	return 0;
}
