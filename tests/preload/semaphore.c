/* semaphore: unnamed private semaphores (producer/consumer, values, error
 * codes, timeouts, cancellation), a process-shared one and a named one.
 * Deterministic output. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"

static const char *en(int r)
{
	if (r == 0)
		return "0";
	switch (errno) {
	case EAGAIN: return "-1 EAGAIN";
	case EINVAL: return "-1 EINVAL";
	case ETIMEDOUT: return "-1 ETIMEDOUT";
	case EOVERFLOW: return "-1 EOVERFLOW";
	case EINTR: return "-1 EINTR";
	default: return "-1 other";
	}
}

static struct timespec in_ms(clockid_t clk, long ms)
{
	struct timespec t;
	clock_gettime(clk, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000;
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	return t;
}

static long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int value(sem_t *s)
{
	int v = -12345;
	sem_getvalue(s, &v);
	return v;
}

/* ---- 1. bounded buffer: 4 producers, 4 consumers, 100000 items ---- */
#define NPROD 4
#define NCONS 4
#define ITEMS 100000
#define SLOTS 16
static sem_t empty, full;
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static long buf[SLOTS];
static int head, tail;
static long sums[NCONS];
static int counts[NCONS];

static void *producer(void *arg)
{
	long id = (long)arg;
	for (long i = id; i < ITEMS; i += NPROD) {
		while (sem_wait(&empty) != 0)
			;
		pthread_mutex_lock(&qlock);
		buf[tail] = i + 1;
		tail = (tail + 1) % SLOTS;
		pthread_mutex_unlock(&qlock);
		sem_post(&full);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < ITEMS / NCONS; i++) {
		while (sem_wait(&full) != 0)
			;
		pthread_mutex_lock(&qlock);
		long v = buf[head];
		head = (head + 1) % SLOTS;
		pthread_mutex_unlock(&qlock);
		sem_post(&empty);
		sums[id] += v;
		counts[id]++;
	}
	return NULL;
}

static void producer_consumer(void)
{
	pthread_t p[NPROD], c[NCONS];
	sem_init(&empty, 0, SLOTS);
	sem_init(&full, 0, 0);
	for (long i = 0; i < NCONS; i++)
		pthread_create(&c[i], NULL, consumer, (void *)i);
	for (long i = 0; i < NPROD; i++)
		pthread_create(&p[i], NULL, producer, (void *)i);
	for (int i = 0; i < NPROD; i++)
		pthread_join(p[i], NULL);
	for (int i = 0; i < NCONS; i++)
		pthread_join(c[i], NULL);
	long sum = 0, n = 0;
	for (int i = 0; i < NCONS; i++) {
		sum += sums[i];
		n += counts[i];
	}
	printf("producer/consumer: %ld items, sum %ld (expect %ld), empty=%d full=%d\n", n, sum,
	       (long)ITEMS * (ITEMS + 1) / 2, value(&empty), value(&full));
	sem_destroy(&empty);
	sem_destroy(&full);
}

/* ---- 2. values and error codes ---- */
static void values_and_errors(void)
{
	sem_t s;
	int r;
	errno = 0;
	r = sem_init(&s, 0, (unsigned)SEM_VALUE_MAX + 1);
	printf("sem_init SEM_VALUE_MAX+1: %s\n", en(r));
	r = sem_init(&s, 0, 0);
	printf("sem_init 0: %s, value %d\n", en(r), value(&s));
	r = sem_trywait(&s);
	printf("trywait on 0: %s\n", en(r));
	r = sem_post(&s);
	printf("post: %s, value %d\n", en(r), value(&s));
	r = sem_post(&s);
	printf("post: %s, value %d\n", en(r), value(&s));
	r = sem_trywait(&s);
	printf("trywait: %s, value %d\n", en(r), value(&s));
	r = sem_wait(&s);
	printf("wait: %s, value %d\n", en(r), value(&s));
	r = sem_trywait(&s);
	printf("trywait on 0: %s\n", en(r));

	struct timespec bad = { 0, -1 }, bad2 = { 0, 1000000000 };
	sem_post(&s);
	r = sem_timedwait(&s, &bad);
	printf("timedwait bad nsec, value 1: %s, value %d\n", en(r), value(&s));
	r = sem_clockwait(&s, CLOCK_MONOTONIC, &bad2);
	printf("clockwait bad nsec, value 1: %s, value %d\n", en(r), value(&s));
	struct timespec ok = in_ms(CLOCK_MONOTONIC, 1000);
	r = sem_clockwait(&s, CLOCK_PROCESS_CPUTIME_ID, &ok);
	printf("clockwait bad clock, value 1: %s, value %d\n", en(r), value(&s));
	r = sem_clockwait(&s, CLOCK_MONOTONIC, &ok);
	printf("clockwait, value 1: %s, value %d\n", en(r), value(&s));
	r = sem_timedwait(&s, &bad);
	printf("timedwait bad nsec, value 0: %s\n", en(r));

	struct { const char *name; int clockv; clockid_t clk; } v[] = {
		{ "timedwait", 0, CLOCK_REALTIME },
		{ "clockwait realtime", 1, CLOCK_REALTIME },
		{ "clockwait mono", 1, CLOCK_MONOTONIC },
	};
	for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++) {
		struct timespec ts = in_ms(v[i].clk, 60);
		long t0 = now_ms();
		r = v[i].clockv ? sem_clockwait(&s, v[i].clk, &ts) : sem_timedwait(&s, &ts);
		printf("%s on 0: %s, waited >= 50ms: %s\n", v[i].name, en(r),
		       now_ms() - t0 >= 50 ? "yes" : "no");
	}
	struct timespec past = { -1, 0 }, zero = { 0, 0 };
	r = sem_clockwait(&s, CLOCK_MONOTONIC, &past);
	printf("clockwait mono negative deadline: %s\n", en(r));
	r = sem_clockwait(&s, CLOCK_MONOTONIC, &zero);
	printf("clockwait mono deadline 0: %s\n", en(r));
	r = sem_timedwait(&s, &zero);
	printf("timedwait deadline 0: %s\n", en(r));
	sem_post(&s);
	r = sem_timedwait(&s, &past);
	printf("timedwait past deadline, value 1: %s, value %d\n", en(r), value(&s));
	printf("value after timeouts %d\n", value(&s));
	sem_destroy(&s);

	r = sem_init(&s, 0, SEM_VALUE_MAX);
	printf("sem_init SEM_VALUE_MAX: %s, value == SEM_VALUE_MAX: %s\n", en(r),
	       value(&s) == SEM_VALUE_MAX ? "yes" : "no");
	r = sem_post(&s);
	printf("post at SEM_VALUE_MAX: %s\n", en(r));
	sem_trywait(&s);
	r = sem_post(&s);
	printf("post after one wait: %s\n", en(r));
	sem_destroy(&s);
}

/* ---- 3. blocking wait woken by a post; timed wait woken in time ---- */
static sem_t ws;
static atomic_int woke;
static void *waiter(void *arg)
{
	int r;
	if (arg) {
		struct timespec ts = in_ms(CLOCK_REALTIME, 5000);
		r = sem_timedwait(&ws, &ts);
	} else {
		r = sem_wait(&ws);
	}
	atomic_fetch_add(&woke, 1);
	return (void *)(long)r;
}

static void wakeups(void)
{
	pthread_t t[6];
	sem_init(&ws, 0, 0);
	for (long i = 0; i < 6; i++)
		pthread_create(&t[i], NULL, waiter, (void *)(i & 1));
	usleep(50 * 1000);
	printf("6 waiters parked, woke %d\n", atomic_load(&woke));
	for (int i = 0; i < 3; i++)
		sem_post(&ws);
	while (atomic_load(&woke) < 3)
		usleep(1000);
	usleep(20 * 1000);
	printf("3 posts woke %d, value %d\n", atomic_load(&woke), value(&ws));
	for (int i = 0; i < 3; i++)
		sem_post(&ws);
	int ok = 0;
	for (int i = 0; i < 6; i++) {
		void *r;
		pthread_join(t[i], &r);
		ok += r == NULL;
	}
	printf("all 6 returned 0: %s, value %d\n", ok == 6 ? "yes" : "no", value(&ws));
	sem_destroy(&ws);
}

/* ---- 4. sem_wait is a cancellation point ---- */
static sem_t cs;
static atomic_int cleaned;
static void cleanup(void *arg)
{
	atomic_store(&cleaned, 1);
}
static void *cancel_me(void *arg)
{
	pthread_cleanup_push(cleanup, NULL);
	sem_wait(&cs);
	pthread_cleanup_pop(0);
	return NULL;
}

static void cancellation(void)
{
	pthread_t t;
	void *r;
	sem_init(&cs, 0, 0);
	pthread_create(&t, NULL, cancel_me, NULL);
	usleep(50 * 1000);
	pthread_cancel(t);
	pthread_join(t, &r);
	printf("canceled in sem_wait: %s, cleanup ran: %s, value %d\n",
	       r == PTHREAD_CANCELED ? "yes" : "no", atomic_load(&cleaned) ? "yes" : "no",
	       value(&cs));
	/* The semaphore still works. */
	sem_post(&cs);
	int r2 = sem_trywait(&cs);
	printf("after cancel: trywait %s\n", en(r2));
	sem_destroy(&cs);
}

/* ---- 5. process-shared and named semaphores (glibc's) ---- */
static sem_t *named;
/* A glibc semaphore's wait blocks its worker (no hand-off yet), so the
 * threads here never wait for one another on it. */
static void *named_poster(void *arg)
{
	return (void *)(long)sem_post(named);
}

static void shared_and_named(void)
{
	sem_t s;
	int r = sem_init(&s, 1, 2);
	printf("pshared init: %s, value %d\n", en(r), value(&s));
	r = sem_wait(&s);
	printf("pshared wait: %s\n", en(r));
	r = sem_trywait(&s);
	printf("pshared trywait: %s\n", en(r));
	r = sem_trywait(&s);
	printf("pshared trywait on 0: %s\n", en(r));
	sem_post(&s);
	struct timespec ts = in_ms(CLOCK_REALTIME, 1000);
	r = sem_timedwait(&s, &ts);
	printf("pshared timedwait: %s, value %d\n", en(r), value(&s));
	r = sem_destroy(&s);
	printf("pshared destroy: %s\n", en(r));

	char name[64];
	snprintf(name, sizeof name, "/weft-test-sem-%d", (int)getpid());
	named = sem_open(name, O_CREAT | O_EXCL, 0600, 2);
	if (named == SEM_FAILED) {
		printf("sem_open failed\n");
		return;
	}
	printf("named: value %d\n", value(named));
	r = sem_wait(named);
	printf("named wait: %s, value %d\n", en(r), value(named));
	r = sem_trywait(named);
	printf("named trywait: %s\n", en(r));
	r = sem_trywait(named);
	printf("named trywait on 0: %s\n", en(r));
	pthread_t t;
	void *pr;
	pthread_create(&t, NULL, named_poster, NULL);
	pthread_join(t, &pr);
	r = sem_wait(named);
	printf("named post by another thread: %s, wait: %s, value %d\n",
	       pr == NULL ? "0" : "failed", en(r), value(named));
	sem_t *again = sem_open(name, 0);
	sem_post(again);
	printf("named reopened: value seen by first handle %d\n", value(named));
	r = sem_close(again);
	printf("named close: %s\n", en(r));
	r = sem_close(named);
	printf("named close: %s\n", en(r));
	r = sem_unlink(name);
	printf("named unlink: %s\n", en(r));
}

int main(void)
{
	weft_check_loaded();
	setvbuf(stdout, NULL, _IOLBF, 0);
	producer_consumer();
	values_and_errors();
	wakeups();
	cancellation();
	shared_and_named();
	printf("done\n");
	return 0;
}
