/* Condition variables: timeouts on both clocks, clockwait, signal vs
 * broadcast, and a producer/consumer queue. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"
#include "test_util.h"



static int passed(clockid_t clk, const struct timespec *ts)
{
	struct timespec now;
	clock_gettime(clk, &now);
	return now.tv_sec > ts->tv_sec || (now.tv_sec == ts->tv_sec && now.tv_nsec >= ts->tv_nsec);
}

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void timeouts(const char *who)
{
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	struct timespec ts;
	int r;

	pthread_mutex_lock(&m);
	deadline(CLOCK_REALTIME, &ts, 20);
	do r = pthread_cond_timedwait(&c, &m, &ts); while (r == 0);
	printf("%s timedwait realtime: %s deadline passed %d\n", who, en(r), passed(CLOCK_REALTIME, &ts));
	/* already passed deadline */
	r = pthread_cond_timedwait(&c, &m, &ts);
	printf("%s timedwait past deadline: %s\n", who, en(r));
	ts.tv_sec = 0;
	ts.tv_nsec = 0;
	r = pthread_cond_timedwait(&c, &m, &ts);
	printf("%s timedwait epoch: %s\n", who, en(r));
	ts.tv_nsec = 1000000000;
	r = pthread_cond_timedwait(&c, &m, &ts);
	printf("%s timedwait bad nsec: %s\n", who, en(r));
	/* the mutex is still held by us after each return */
	printf("%s mutex held: trylock %s\n", who, pthread_mutex_trylock(&m) == EBUSY ? "EBUSY" : "??");

	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_t cm;
	pthread_cond_init(&cm, &ca);
	clockid_t got;
	pthread_condattr_getclock(&ca, &got);
	printf("%s condattr clock monotonic: %d\n", who, got == CLOCK_MONOTONIC);
	pthread_condattr_destroy(&ca);
	deadline(CLOCK_MONOTONIC, &ts, 20);
	do r = pthread_cond_timedwait(&cm, &m, &ts); while (r == 0);
	printf("%s timedwait monotonic attr: %s deadline passed %d\n", who, en(r), passed(CLOCK_MONOTONIC, &ts));
	pthread_cond_destroy(&cm);

	deadline(CLOCK_MONOTONIC, &ts, 20);
	do r = pthread_cond_clockwait(&c, &m, CLOCK_MONOTONIC, &ts); while (r == 0);
	printf("%s clockwait monotonic: %s deadline passed %d\n", who, en(r), passed(CLOCK_MONOTONIC, &ts));
	deadline(CLOCK_REALTIME, &ts, 20);
	do r = pthread_cond_clockwait(&c, &m, CLOCK_REALTIME, &ts); while (r == 0);
	printf("%s clockwait realtime: %s deadline passed %d\n", who, en(r), passed(CLOCK_REALTIME, &ts));
	r = pthread_cond_clockwait(&c, &m, CLOCK_PROCESS_CPUTIME_ID, &ts);
	printf("%s clockwait bad clock: %s\n", who, en(r));
	pthread_mutex_unlock(&m);
	pthread_cond_destroy(&c);
}

static void *timeouts_thread(void *a)
{
	timeouts(a);
	return NULL;
}

/* ---- signal vs broadcast ---- */
#define NW 10
static pthread_cond_t sc = PTHREAD_COND_INITIALIZER;
static int waiting, woken, go_gen;
static void *waiter(void *a)
{
	(void)a;
	pthread_mutex_lock(&m);
	int gen = go_gen;
	waiting++;
	pthread_cond_broadcast(&sc); /* tell main (it waits on sc too, with its own predicate) */
	while (go_gen == gen)
		pthread_cond_wait(&sc, &m);
	woken++;
	waiting--;
	pthread_cond_broadcast(&sc); /* main waits for woken */
	pthread_mutex_unlock(&m);
	return NULL;
}

static void signal_broadcast(void)
{
	pthread_t t[NW];
	for (int i = 0; i < NW; i++)
		pthread_create(&t[i], NULL, waiter, NULL);
	pthread_mutex_lock(&m);
	while (waiting < NW)
		pthread_cond_wait(&sc, &m);
	pthread_mutex_unlock(&m);
	/* give them time to be really parked (not required for correctness) */
	usleep(10000);
	/* A spurious-wakeup-proof test: generation bump + one signal must
	 * release at least one waiter. */
	pthread_mutex_lock(&m);
	go_gen++;
	int gen_done = 0;
	pthread_cond_signal(&sc);
	pthread_mutex_unlock(&m);
	struct timespec ts;
	deadline(CLOCK_REALTIME, &ts, 5000);
	pthread_mutex_lock(&m);
	while (woken < 1 && pthread_cond_timedwait(&sc, &m, &ts) == 0)
		;
	gen_done = woken >= 1;
	pthread_mutex_unlock(&m);
	printf("signal woke at least one: %d\n", gen_done);
	pthread_mutex_lock(&m);
	pthread_cond_broadcast(&sc);
	pthread_mutex_unlock(&m);
	for (int i = 0; i < NW; i++)
		pthread_join(t[i], NULL);
	printf("broadcast: all %d woken: %d\n", NW, woken == NW);

	/* Pure signal counting with a predicate per wake: NW waiters, each
	 * needs a token; NW signals each with one token. */
	woken = 0;
	waiting = 0;
	for (int i = 0; i < NW; i++)
		pthread_create(&t[i], NULL, waiter, NULL);
	pthread_mutex_lock(&m);
	while (waiting < NW)
		pthread_cond_wait(&sc, &m);
	go_gen++;
	pthread_cond_broadcast(&sc);
	pthread_mutex_unlock(&m);
	for (int i = 0; i < NW; i++)
		pthread_join(t[i], NULL);
	printf("broadcast round 2: woken %d\n", woken);
}

/* tokens: each signal hands exactly one token; each waiter consumes one */
static pthread_cond_t tc = PTHREAD_COND_INITIALIZER;
static int tokens, consumed;
static void *token_waiter(void *a)
{
	(void)a;
	pthread_mutex_lock(&m);
	while (tokens == 0)
		pthread_cond_wait(&tc, &m);
	tokens--;
	consumed++;
	pthread_mutex_unlock(&m);
	return NULL;
}
static void signal_tokens(void)
{
	pthread_t t[NW];
	for (int i = 0; i < NW; i++)
		pthread_create(&t[i], NULL, token_waiter, NULL);
	usleep(5000);
	for (int i = 0; i < NW; i++) {
		pthread_mutex_lock(&m);
		tokens++;
		pthread_cond_signal(&tc);
		pthread_mutex_unlock(&m);
	}
	for (int i = 0; i < NW; i++)
		pthread_join(t[i], NULL);
	printf("signal tokens consumed %d left %d\n", consumed, tokens);
}

/* ---- producer / consumer ---- */
#define QCAP 64
#define ITEMS 100000
#define NP 4
#define NC 4
static pthread_mutex_t qm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t notfull = PTHREAD_COND_INITIALIZER, notempty = PTHREAD_COND_INITIALIZER;
static long q[QCAP];
static int qh, qt, qn, producers_left = NP;
static unsigned long long csum[NC], ccount[NC];

static void *producer(void *a)
{
	long id = (long)a;
	for (long i = id; i < ITEMS; i += NP) {
		pthread_mutex_lock(&qm);
		while (qn == QCAP)
			pthread_cond_wait(&notfull, &qm);
		q[qt] = i + 1;
		qt = (qt + 1) % QCAP;
		qn++;
		pthread_cond_signal(&notempty);
		pthread_mutex_unlock(&qm);
	}
	pthread_mutex_lock(&qm);
	if (--producers_left == 0)
		pthread_cond_broadcast(&notempty);
	pthread_mutex_unlock(&qm);
	return NULL;
}

static void *consumer(void *a)
{
	long id = (long)a;
	for (;;) {
		pthread_mutex_lock(&qm);
		while (qn == 0 && producers_left > 0)
			pthread_cond_wait(&notempty, &qm);
		if (qn == 0) {
			pthread_mutex_unlock(&qm);
			return NULL;
		}
		long v = q[qh];
		qh = (qh + 1) % QCAP;
		qn--;
		pthread_cond_signal(&notfull);
		pthread_mutex_unlock(&qm);
		csum[id] += (unsigned long long)v * v;
		ccount[id]++;
	}
}

static void prodcons(void)
{
	pthread_t p[NP], c[NC];
	for (long i = 0; i < NC; i++)
		pthread_create(&c[i], NULL, consumer, (void *)i);
	for (long i = 0; i < NP; i++)
		pthread_create(&p[i], NULL, producer, (void *)i);
	for (int i = 0; i < NP; i++)
		pthread_join(p[i], NULL);
	for (int i = 0; i < NC; i++)
		pthread_join(c[i], NULL);
	unsigned long long s = 0, n = 0, want = 0;
	for (int i = 0; i < NC; i++) {
		s += csum[i];
		n += ccount[i];
	}
	for (unsigned long long i = 1; i <= ITEMS; i++)
		want += i * i;
	printf("prodcons items %llu checksum ok %d\n", n, s == want);
}

int main(void)
{
	weft_check_loaded();
	timeouts("main");
	pthread_t t;
	pthread_create(&t, NULL, timeouts_thread, "thread");
	pthread_join(t, NULL);
	signal_broadcast();
	signal_tokens();
	prodcons();
	return 0;
}
