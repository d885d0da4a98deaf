/* Condition variables over every kind of mutex.  A waiter releases a
 * mutex of weft's only once it is parked, and one of glibc's (robust,
 * process-shared) itself first: both ways must give the same results.
 *  - a ping-pong between two threads with each kind of mutex, each wait
 *    returning with the mutex held by the waiter (its owner, its count,
 *    its user count: the mutex's destroy says EBUSY when that is off);
 *  - pthread_cond_wait on a mutex the caller does not hold: EPERM;
 *  - a recursive mutex held twice: the wait times out, the count is 2;
 *  - timeouts, cancels and a broadcast leave no waiter counted: the
 *    condvar's destroy returns at once after each.
 * A waiter left counted would hang pthread_cond_destroy (the run's
 * timeout fails the test). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "test_util.h"

enum { ROUNDS = 5000, CROWD = 200 };

struct kind {
	const char *name;
	int type, protocol, robust, pshared;
};

static const struct kind kinds[] = {
	{ "normal", PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_NONE, 0, 0 },
	{ "errorcheck", PTHREAD_MUTEX_ERRORCHECK, PTHREAD_PRIO_NONE, 0, 0 },
	{ "recursive", PTHREAD_MUTEX_RECURSIVE, PTHREAD_PRIO_NONE, 0, 0 },
	{ "adaptive", PTHREAD_MUTEX_ADAPTIVE_NP, PTHREAD_PRIO_NONE, 0, 0 },
	{ "prio-inherit", PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_INHERIT, 0, 0 },
	{ "robust", PTHREAD_MUTEX_ERRORCHECK, PTHREAD_PRIO_NONE, 1, 0 },
	{ "pshared", PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_NONE, 0, 1 },
};

static void make_mutex(pthread_mutex_t *m, const struct kind *k)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, k->type);
	pthread_mutexattr_setprotocol(&a, k->protocol);
	if (k->robust)
		pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	if (k->pshared)
		pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	if (pthread_mutex_init(m, &a))
		printf("mutex init failed\n");
	pthread_mutexattr_destroy(&a);
}

/* ---- ping-pong ---- */

static pthread_mutex_t pm;
static pthread_cond_t pc[2];
static int turn, probe_type;
static long moves[2], not_owner[2];

/* After a wait the caller holds pm: an errorcheck mutex says EDEADLK to
 * its owner's lock, a recursive one counts up and down again. */
static int owns(void)
{
	if (probe_type == PTHREAD_MUTEX_ERRORCHECK)
		return pthread_mutex_lock(&pm) == EDEADLK;
	if (probe_type == PTHREAD_MUTEX_RECURSIVE)
		return pthread_mutex_lock(&pm) == 0 && pthread_mutex_unlock(&pm) == 0;
	return 1;
}

static void *player(void *arg)
{
	int me = (int)(long)arg;
	pthread_mutex_lock(&pm);
	for (int i = 0; i < ROUNDS; i++) {
		while (turn != me) {
			if (pthread_cond_wait(&pc[me], &pm) || !owns())
				not_owner[me]++;
		}
		moves[me]++;
		turn = !me;
		pthread_cond_signal(&pc[!me]);
	}
	pthread_mutex_unlock(&pm);
	return NULL;
}

static void pingpong(const struct kind *k)
{
	make_mutex(&pm, k);
	pthread_cond_init(&pc[0], NULL);
	pthread_cond_init(&pc[1], NULL);
	turn = 0;
	moves[0] = moves[1] = not_owner[0] = not_owner[1] = 0;
	probe_type = k->type;
	pthread_t a, b;
	pthread_create(&a, NULL, player, (void *)0L);
	pthread_create(&b, NULL, player, (void *)1L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("%-12s ping-pong %ld + %ld moves, %ld waits without the mutex after, destroy %s %s, "
	       "mutex destroy %s\n", k->name, moves[0], moves[1], not_owner[0] + not_owner[1],
	       en(pthread_cond_destroy(&pc[0])),
	       en(pthread_cond_destroy(&pc[1])), en(pthread_mutex_destroy(&pm)));
}

/* ---- a mutex the caller does not hold ---- */

static pthread_mutex_t held;
static struct gate holding = GATE_INIT, done_holding = GATE_INIT;

static void *holder(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&held);
	gate_open(&holding);
	gate_wait(&done_holding);
	pthread_mutex_unlock(&held);
	return NULL;
}

static void not_held(const struct kind *k)
{
	pthread_cond_t c;
	pthread_cond_init(&c, NULL);
	make_mutex(&held, k);
	int free_r = pthread_cond_wait(&c, &held); /* nobody holds it */
	gate_reset(&holding);
	gate_reset(&done_holding);
	pthread_t h;
	pthread_create(&h, NULL, holder, NULL);
	gate_wait(&holding);
	int other_r = pthread_cond_wait(&c, &held); /* another thread holds it */
	gate_open(&done_holding);
	pthread_join(h, NULL);
	printf("%-12s wait without the mutex: %s, held by another: %s, destroy %s\n", k->name,
	       en(free_r), en(other_r), en(pthread_cond_destroy(&c)));
	pthread_mutex_destroy(&held);
}

/* ---- a recursive mutex held twice ---- */

static void recursive_twice(void)
{
	pthread_mutex_t m;
	pthread_cond_t c;
	struct timespec ts;
	make_mutex(&m, &kinds[2]);
	pthread_cond_init(&c, NULL);
	pthread_mutex_lock(&m);
	pthread_mutex_lock(&m);
	deadline(CLOCK_REALTIME, &ts, 30);
	int r = pthread_cond_timedwait(&c, &m, &ts);
	int u1 = pthread_mutex_unlock(&m), u2 = pthread_mutex_unlock(&m);
	int u3 = pthread_mutex_unlock(&m);
	printf("recursive held twice: timedwait %s, unlocks %s %s %s, destroy %s\n", en(r), en(u1),
	       en(u2), en(u3), en(pthread_cond_destroy(&c)));
	pthread_mutex_destroy(&m);
}

/* ---- timeouts ---- */

static void timeouts(const struct kind *k)
{
	pthread_mutex_t m;
	pthread_cond_t c;
	struct timespec ts;
	int r[3];
	make_mutex(&m, k);
	pthread_cond_init(&c, NULL);
	pthread_cond_signal(&c); /* nobody waits: no wake is kept for later */
	pthread_mutex_lock(&m);
	for (int i = 0; i < 3; i++) {
		deadline(CLOCK_REALTIME, &ts, 5 + 5 * i);
		r[i] = pthread_cond_timedwait(&c, &m, &ts);
	}
	int u = pthread_mutex_unlock(&m);
	printf("%-12s three timeouts: %s %s %s, unlock %s, destroy %s\n", k->name, en(r[0]),
	       en(r[1]), en(r[2]), en(u), en(pthread_cond_destroy(&c)));
	pthread_mutex_destroy(&m);
}

/* ---- cancel ---- */

static pthread_mutex_t cm;
static pthread_cond_t cc;
static int cwaiting, cleanup_unlock = -1;

static void cleanup(void *arg)
{
	(void)arg;
	cleanup_unlock = pthread_mutex_unlock(&cm); /* held again, as POSIX says */
}

static void *cancel_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&cm);
	cwaiting = 1;
	pthread_cleanup_push(cleanup, NULL);
	for (;;)
		pthread_cond_wait(&cc, &cm);
	pthread_cleanup_pop(0);
	return NULL;
}

static void cancel(const struct kind *k)
{
	make_mutex(&cm, k);
	pthread_cond_init(&cc, NULL);
	cwaiting = 0;
	cleanup_unlock = -1;
	pthread_t t;
	pthread_create(&t, NULL, cancel_waiter, NULL);
	for (;;) { /* once it set cwaiting and we hold cm, it is in its wait */
		pthread_mutex_lock(&cm);
		int w = cwaiting;
		pthread_mutex_unlock(&cm);
		if (w)
			break;
		usleep(1000);
	}
	pthread_cancel(t);
	void *ret;
	pthread_join(t, &ret);
	printf("%-12s cancelled in wait: %s, cleanup's unlock %s, destroy %s\n", k->name,
	       ret == PTHREAD_CANCELED ? "canceled" : "returned", en(cleanup_unlock),
	       en(pthread_cond_destroy(&cc)));
	pthread_mutex_destroy(&cm);
}

/* ---- a crowd woken by one broadcast, the condvar destroyed at once ---- */

static pthread_mutex_t bm;
static pthread_cond_t bc;
static int bwaiting, bopen, bwoken;

static void *crowd_member(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&bm);
	bwaiting++;
	while (!bopen)
		pthread_cond_wait(&bc, &bm);
	bwoken++;
	pthread_mutex_unlock(&bm);
	return NULL;
}

static void crowd(const struct kind *k)
{
	static pthread_t th[CROWD];
	make_mutex(&bm, k);
	pthread_cond_init(&bc, NULL);
	bwaiting = bopen = bwoken = 0;
	for (int i = 0; i < CROWD; i++)
		pthread_create(&th[i], NULL, crowd_member, NULL);
	for (;;) {
		pthread_mutex_lock(&bm);
		int w = bwaiting;
		if (w == CROWD)
			break; /* all in their wait: we hold bm */
		pthread_mutex_unlock(&bm);
		usleep(1000);
	}
	bopen = 1;
	pthread_cond_broadcast(&bc);
	pthread_mutex_unlock(&bm);
	int d = pthread_cond_destroy(&bc); /* no thread is blocked on it now */
	for (int i = 0; i < CROWD; i++)
		pthread_join(th[i], NULL);
	printf("%-12s broadcast to %d: destroy right after %s, %d woken\n", k->name, CROWD, en(d),
	       bwoken);
	pthread_mutex_destroy(&bm);
}

int main(void)
{
	weft_check_loaded();
	setvbuf(stdout, NULL, _IOLBF, 0);
	size_t n = sizeof kinds / sizeof kinds[0];
	for (size_t i = 0; i < n; i++)
		pingpong(&kinds[i]);
	not_held(&kinds[1]); /* errorcheck */
	not_held(&kinds[5]); /* robust */
	recursive_twice();
	for (size_t i = 0; i < n; i++)
		timeouts(&kinds[i]);
	cancel(&kinds[1]);
	cancel(&kinds[5]);
	crowd(&kinds[0]);
	crowd(&kinds[5]);
	return 0;
}
