/* contend SECONDS: rounds of contention for SECONDS, each checked; any lost
 * update, missed wake-up or timed wait that times out though the object was
 * freed long before its deadline ends the run with status 1 and a line
 * saying which.  A hang is the runner's to catch (tests/stress/run.sh).
 * Each round:
 *   spin     8 threads take one spinlock 2,000 times each while SIGALRM
 *            fires every millisecond; holders yield or sleep with it held;
 *   condvar  8 consumers (half in 1 ms timed waits) and 3 producers pass
 *            30,000 tokens through one mutex and condvar, signal and
 *            broadcast mixed;
 *   pingpong two pairs pass a token 10,000 times over a condvar each, one
 *            pair with pthread_cond_signal and untimed waits, the other
 *            with timed waits (a deadline far away) and broadcast;
 *   rwlock   a writer holds the lock 1 ms while 8 timed readers and
 *            writers wait with a 5 s deadline: none may time out.
 * The machine may be loaded (other builds): no phase depends on a duration
 * except through deadlines seconds away. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static void fail(const char *what, long got, long want)
{
	printf("FAILED %s: %ld, expected %ld\n", what, got, want);
	fflush(stdout);
	exit(1);
}

static void after(struct timespec *ts, clockid_t clk, long ms)
{
	clock_gettime(clk, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

/* spin */
static pthread_spinlock_t sl;
static long counter;
static volatile sig_atomic_t alarms;
static void on_alarm(int s) { (void)s; alarms++; }

static void *spinner(void *a)
{
	long id = (long)a;
	for (int i = 0; i < 2000; i++) {
		pthread_spin_lock(&sl);
		long c = counter;
		if (i % 200 == id)
			(id & 1) ? (void)sched_yield() : (void)usleep(50);
		for (volatile int k = 0; k < 50; k++)
			;
		counter = c + 1;
		pthread_spin_unlock(&sl);
	}
	return NULL;
}

/* condvar */
#define ITEMS 30000
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long tokens, consumed;

static void *producer(void *a)
{
	(void)a;
	for (int i = 0; i < ITEMS / 3; i++) {
		pthread_mutex_lock(&mu);
		tokens++;
		if (i % 3 == 0)
			pthread_cond_broadcast(&cv);
		else
			pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

static void *consumer(void *a)
{
	long id = (long)a;
	for (;;) {
		pthread_mutex_lock(&mu);
		while (tokens == 0 && consumed < ITEMS) {
			if (id & 1) {
				struct timespec ts;
				after(&ts, CLOCK_REALTIME, 1);
				pthread_cond_timedwait(&cv, &mu, &ts);
			} else {
				pthread_cond_wait(&cv, &mu);
			}
		}
		if (consumed >= ITEMS) {
			pthread_mutex_unlock(&mu);
			return NULL;
		}
		tokens--;
		if (++consumed == ITEMS)
			pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
}

/* pingpong */
#define HANDOFFS 10000
struct pair {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int turn, timed;
	long handoffs, timeouts;
};
struct player { struct pair *p; int me; };

static void *player(void *a)
{
	struct player *pl = a;
	struct pair *p = pl->p;
	pthread_mutex_lock(&p->mu);
	while (p->handoffs < HANDOFFS) {
		while (p->turn != pl->me && p->handoffs < HANDOFFS) {
			if (p->timed) {
				struct timespec ts;
				after(&ts, CLOCK_MONOTONIC, 10000);
				if (pthread_cond_timedwait(&p->cv, &p->mu, &ts) == ETIMEDOUT)
					p->timeouts++;
			} else {
				pthread_cond_wait(&p->cv, &p->mu);
			}
		}
		if (p->handoffs >= HANDOFFS)
			break;
		p->turn = !pl->me;
		p->handoffs++;
		if (p->timed)
			pthread_cond_broadcast(&p->cv);
		else
			pthread_cond_signal(&p->cv);
	}
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* rwlock */
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static long rw_ok, rw_timedout;

static void *timed_locker(void *a)
{
	struct timespec ts;
	after(&ts, CLOCK_REALTIME, 5000);
	int r = (long)a ? pthread_rwlock_timedwrlock(&rw, &ts) : pthread_rwlock_timedrdlock(&rw, &ts);
	if (r == 0) {
		__atomic_add_fetch(&rw_ok, 1, __ATOMIC_RELAXED);
		pthread_rwlock_unlock(&rw);
	} else {
		__atomic_add_fetch(&rw_timedout, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10;
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_spin_init(&sl, 0);
	signal(SIGALRM, on_alarm);
	pthread_condattr_t mono;
	pthread_condattr_init(&mono);
	pthread_condattr_setclock(&mono, CLOCK_MONOTONIC);
	long rounds = 0;
	pthread_t t[16];
	do {
		/* spin */
		counter = 0;
		struct itimerval it = { { 0, 1000 }, { 0, 1000 } }, off = { { 0, 0 }, { 0, 0 } };
		setitimer(ITIMER_REAL, &it, NULL);
		for (long i = 0; i < 8; i++)
			pthread_create(&t[i], NULL, spinner, (void *)i);
		for (int i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
		setitimer(ITIMER_REAL, &off, NULL);
		if (counter != 8 * 2000)
			fail("spinlock updates", counter, 8 * 2000);
		/* condvar */
		tokens = consumed = 0;
		for (long i = 0; i < 8; i++)
			pthread_create(&t[i], NULL, consumer, (void *)i);
		for (long i = 0; i < 3; i++)
			pthread_create(&t[8 + i], NULL, producer, NULL);
		for (int i = 0; i < 11; i++)
			pthread_join(t[i], NULL);
		if (consumed != ITEMS || tokens != 0)
			fail("condvar tokens consumed", consumed, ITEMS);
		/* pingpong */
		struct pair pr[2];
		struct player pl[4];
		for (int k = 0; k < 2; k++) {
			pthread_mutex_init(&pr[k].mu, NULL);
			pthread_cond_init(&pr[k].cv, k ? &mono : NULL);
			pr[k].turn = 0, pr[k].timed = k, pr[k].handoffs = pr[k].timeouts = 0;
		}
		for (int i = 0; i < 4; i++) {
			pl[i] = (struct player){ &pr[i / 2], i % 2 };
			pthread_create(&t[i], NULL, player, &pl[i]);
		}
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		for (int k = 0; k < 2; k++) {
			if (pr[k].handoffs != HANDOFFS)
				fail("pingpong handoffs", pr[k].handoffs, HANDOFFS);
			if (pr[k].timeouts)
				fail("pingpong timed waits timed out", pr[k].timeouts, 0);
			pthread_cond_destroy(&pr[k].cv);
			pthread_mutex_destroy(&pr[k].mu);
		}
		/* rwlock */
		for (int r = 0; r < 5; r++) {
			pthread_rwlock_wrlock(&rw);
			for (long i = 0; i < 8; i++)
				pthread_create(&t[i], NULL, timed_locker, (void *)(i & 1));
			usleep(1000);
			pthread_rwlock_unlock(&rw);
			for (int i = 0; i < 8; i++)
				pthread_join(t[i], NULL);
		}
		if (rw_timedout)
			fail("rwlock timed waits timed out", rw_timedout, 0);
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - t0.tv_sec + (now.tv_nsec - t0.tv_nsec) * 1e-9 < secs);
	printf("contend: %ld rounds in %.0f s, alarms %s, rwlock locks %ld, all checks held\n",
	       rounds, now.tv_sec - t0.tv_sec + (now.tv_nsec - t0.tv_nsec) * 1e-9,
	       alarms ? "handled" : "none", rw_ok);
	return 0;
}
