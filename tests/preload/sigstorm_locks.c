/*
 * Signal storms (sigstorm.h) on threads that take locks and wait on them:
 * mutex lock, trylock and timedlock; condition variable wait, timedwait,
 * signal and broadcast; rwlock read, write, try and timed; barrier;
 * pthread_once.  None of these calls may return EINTR, lose a wake-up or
 * count twice while handlers run on their threads, with SA_RESTART or
 * without.  Each line's number depends only on the work done.
 */
#include "sigstorm.h"

#define NT 4
#define FAR 60000 /* ms: a timed wait's deadline that is never met */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long counter; /* [mu] */
static atomic_long bad; /* an outcome that must not happen: printed */

/* lock, trylock (retried on EBUSY), timedlock (never ETIMEDOUT). */
static long mutex_body(int idx)
{
	(void)idx;
	long mine = 0;
	for (int i = 0; i < 6000; i++) {
		int r = 0;
		switch (i % 3) {
		case 0:
			r = pthread_mutex_lock(&mu);
			break;
		case 1:
			while ((r = pthread_mutex_trylock(&mu)) == EBUSY)
				sched_yield();
			break;
		case 2: {
			struct timespec ts = storm_deadline(FAR);
			r = pthread_mutex_timedlock(&mu, &ts);
			break;
		}
		}
		if (r != 0) {
			atomic_fetch_add(&bad, 1);
			continue;
		}
		counter++;
		mine++;
		pthread_mutex_unlock(&mu);
	}
	return mine;
}

static void mutex_reset(void)
{
	counter = 0;
}

/* A bounded queue: NT/2 producers, NT/2 consumers; wait and timedwait,
 * signal.  Consumers take exactly what producers made. */
#define ITEMS 3000
static pthread_cond_t notfull = PTHREAD_COND_INITIALIZER, notempty = PTHREAD_COND_INITIALIZER;
static int queued; /* [mu] */

static long cond_body(int idx)
{
	long got = 0;
	for (int i = 0; i < ITEMS; i++) {
		pthread_mutex_lock(&mu);
		if (idx % 2 == 0) {
			while (queued >= 4)
				pthread_cond_wait(&notfull, &mu);
			queued++;
			pthread_cond_signal(&notempty);
		} else {
			while (queued == 0) {
				struct timespec ts = storm_deadline(FAR);
				int r = i % 2 ? pthread_cond_timedwait(&notempty, &mu, &ts)
					      : pthread_cond_wait(&notempty, &mu);
				if (r != 0)
					atomic_fetch_add(&bad, 1);
			}
			queued--;
			got++;
			pthread_cond_signal(&notfull);
		}
		pthread_mutex_unlock(&mu);
	}
	return got;
}

static void cond_reset(void)
{
	queued = 0;
}

/* Rounds of all NT: the last to arrive broadcasts the next generation. */
static pthread_cond_t gen_cv = PTHREAD_COND_INITIALIZER;
static int arrived; /* [mu] */
static long gen;    /* [mu] */

static long broadcast_body(int idx)
{
	(void)idx;
	for (int i = 0; i < 1500; i++) {
		pthread_mutex_lock(&mu);
		if (++arrived == NT) {
			arrived = 0;
			gen++;
			pthread_cond_broadcast(&gen_cv);
		} else {
			long g = gen;
			while (g == gen)
				pthread_cond_wait(&gen_cv, &mu);
		}
		pthread_mutex_unlock(&mu);
	}
	return idx == 0 ? gen : 0;
}

static void broadcast_reset(void)
{
	arrived = 0;
	gen = 0;
}

/* Readers see both halves equal; writers move both. */
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static long half_a, half_b; /* [rw] */

static long rwlock_body(int idx)
{
	long writes = 0;
	for (int i = 0; i < 4000; i++) {
		int r;
		if ((i + idx) % 4 == 0) {
			if (i % 8 == 0) {
				struct timespec ts = storm_deadline(FAR);
				r = pthread_rwlock_timedwrlock(&rw, &ts);
			} else {
				r = pthread_rwlock_wrlock(&rw);
			}
			if (r) {
				atomic_fetch_add(&bad, 1);
				continue;
			}
			half_a++;
			sched_yield();
			half_b++;
			writes++;
		} else {
			if (i % 3 == 0) {
				while ((r = pthread_rwlock_tryrdlock(&rw)) == EBUSY)
					sched_yield();
			} else if (i % 3 == 1) {
				struct timespec ts = storm_deadline(FAR);
				r = pthread_rwlock_timedrdlock(&rw, &ts);
			} else {
				r = pthread_rwlock_rdlock(&rw);
			}
			if (r) {
				atomic_fetch_add(&bad, 1);
				continue;
			}
			if (half_a != half_b)
				atomic_fetch_add(&bad, 1);
		}
		pthread_rwlock_unlock(&rw);
	}
	return writes;
}

static void rwlock_reset(void)
{
	half_a = half_b = 0;
}

/* Each round: everyone counts in, waits; no one sees fewer arrivals than
 * the round needs; one serial thread per round. */
static pthread_barrier_t bar;
static atomic_long arrivals;

static long barrier_body(int idx)
{
	(void)idx;
	long serial = 0;
	for (long i = 0; i < 1500; i++) {
		atomic_fetch_add(&arrivals, 1);
		int r = pthread_barrier_wait(&bar);
		if (r == PTHREAD_BARRIER_SERIAL_THREAD)
			serial++;
		else if (r != 0)
			atomic_fetch_add(&bad, 1);
		if (atomic_load(&arrivals) < NT * (i + 1))
			atomic_fetch_add(&bad, 1);
	}
	return serial;
}

static void barrier_reset(void)
{
	static int made;
	if (made)
		pthread_barrier_destroy(&bar);
	pthread_barrier_init(&bar, NULL, NT);
	made = 1;
	atomic_store(&arrivals, 0);
}

/* Rounds of 64 once-controls, taken by every thread in its own order; an
 * init that naps (EINTR or not) widens the race: each runs exactly once. */
#define ONCES 64
#define ONCE_ROUNDS 40
static pthread_once_t onces[ONCE_ROUNDS][ONCES];
static atomic_int once_calls[ONCE_ROUNDS * ONCES];
static pthread_barrier_t once_bar;
static __thread int once_key; /* the control this thread's pthread_once call is for */

static void once_init(void)
{
	atomic_fetch_add(&once_calls[once_key], 1);
	struct timespec ts = { 0, 2000 };
	nanosleep(&ts, NULL);
}

static long once_total(void)
{
	long ones = 0;
	for (int i = 0; i < ONCE_ROUNDS * ONCES; i++)
		ones += atomic_load(&once_calls[i]) == 1;
	return ones;
}

static long once_body(int idx)
{
	for (int r = 0; r < ONCE_ROUNDS; r++) {
		pthread_barrier_wait(&once_bar);
		for (int j = 0; j < ONCES; j++) {
			int k = (j * (2 * idx + 1) + idx * 7) % ONCES;
			once_key = r * ONCES + k;
			if (pthread_once(&onces[r][k], once_init) != 0)
				atomic_fetch_add(&bad, 1);
		}
	}
	pthread_barrier_wait(&once_bar);
	return idx == 0 ? once_total() : 0;
}

static void once_reset(void)
{
	static int made;
	if (made)
		pthread_barrier_destroy(&once_bar);
	pthread_barrier_init(&once_bar, NULL, NT);
	made = 1;
	for (int r = 0; r < ONCE_ROUNDS; r++)
		for (int k = 0; k < ONCES; k++) {
			onces[r][k] = (pthread_once_t)PTHREAD_ONCE_INIT;
			atomic_store(&once_calls[r * ONCES + k], 0);
		}
}

int main(void)
{
	storm_init();
	storm("mutex lock/trylock/timedlock, increments", mutex_body, NT, mutex_reset);
	storm("cond wait/timedwait/signal, items consumed", cond_body, NT, cond_reset);
	storm("cond broadcast, generations", broadcast_body, NT, broadcast_reset);
	storm("rwlock rd/wr/try/timed, writes", rwlock_body, NT, rwlock_reset);
	storm("barrier, serial returns", barrier_body, NT, barrier_reset);
	storm("pthread_once, inits that ran exactly once", once_body, NT, once_reset);
	printf("mutex counter %ld, rwlock halves %ld/%ld; errors, timeouts or torn reads: %ld\n",
	       counter, half_a, half_b, atomic_load(&bad));
	return 0;
}
