/*
 * C11 threads (<threads.h>): thrd_create/join/detach/exit with their int
 * results, thrd_current/equal, thrd_sleep and thrd_yield, mtx_* of each
 * type (mtx_trylock -> thrd_busy, mtx_timedlock -> thrd_timedout on a
 * TIME_UTC deadline), cnd_* (signal, broadcast, timedwait), tss_* with
 * destructors, call_once from many threads, and thrd_exit in main.
 *
 * glibc's thrd_* and mtx_* call its internal pthread functions, so under
 * weft the C11 names must be weft's own for the threads to be tasks: 200
 * threads waiting on one cnd_t then hold a few OS threads, not 200.  The
 * count is printed as "as expected" for the run's kind (one OS thread each
 * natively; at most GOMAXPROCS + 3 under weft).  At GOMAXPROCS=1 a
 * call_once waiter or a timed mutex wait that blocked its worker would
 * hang the run.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <threads.h>
#include "test_util.h"
#include "weft_check.h"

static const char *rc(int r)
{
	switch (r) {
	case thrd_success: return "thrd_success";
	case thrd_busy: return "thrd_busy";
	case thrd_error: return "thrd_error";
	case thrd_nomem: return "thrd_nomem";
	case thrd_timedout: return "thrd_timedout";
	default: return "other";
	}
}

/* now on TIME_UTC + ms */
static struct timespec utc_in(long ms)
{
	struct timespec ts;
	timespec_get(&ts, TIME_UTC);
	ts.tv_nsec += ms * 1000000;
	while (ts.tv_nsec >= 1000000000) {
		ts.tv_nsec -= 1000000000;
		ts.tv_sec++;
	}
	return ts;
}

/* ---- create, join, results, thrd_exit, current/equal ---- */

static thrd_t seen_self[8];

static int worker(void *arg)
{
	int i = (int)(intptr_t)arg;
	seen_self[i] = thrd_current();
	thrd_yield();
	return i * 3 - 7; /* negative for the first three */
}

static _Noreturn void leave(int v)
{
	thrd_exit(v);
}

static int exiter(void *arg)
{
	leave((int)(intptr_t)arg);
}

static void create_join(void)
{
	thrd_t t[8];
	for (int i = 0; i < 8; i++)
		if (thrd_create(&t[i], worker, (void *)(intptr_t)i) != thrd_success)
			printf("thrd_create %d failed\n", i);
	int sum = 0, same = 0;
	for (int i = 0; i < 8; i++) {
		int r = 12345;
		int j = thrd_join(t[i], &r);
		printf("join %d: %s result %d\n", i, rc(j), r);
		sum += r;
		same += thrd_equal(t[i], seen_self[i]) != 0;
	}
	printf("results sum %d; thrd_current in each thread equals its thrd_t: %d of 8\n", sum,
	       same);
	printf("main: thrd_equal(current, current) %d, thrd_equal(current, a thread) %d\n",
	       thrd_equal(thrd_current(), thrd_current()) != 0,
	       thrd_equal(thrd_current(), t[0]) != 0);
	printf("thrd_current is pthread_self: %d\n", thrd_current() == pthread_self());

	thrd_t e[3];
	int vals[3] = { 42, -1, 0x12345678 };
	for (int i = 0; i < 3; i++)
		thrd_create(&e[i], exiter, (void *)(intptr_t)vals[i]);
	for (int i = 0; i < 3; i++) {
		int r = 0;
		int j = thrd_join(e[i], &r);
		printf("thrd_exit(%d): join %s result %d\n", vals[i], rc(j), r);
	}
	/* A NULL result pointer is allowed. */
	thrd_t n;
	thrd_create(&n, worker, (void *)(intptr_t)5);
	printf("join with NULL res: %s\n", rc(thrd_join(n, NULL)));
	/* A pthread join of a C11 thread sees the int as a pointer-sized value. */
	thrd_create(&n, exiter, (void *)(intptr_t)-3);
	void *pv = NULL;
	pthread_join((pthread_t)n, &pv);
	printf("pthread_join of a thrd_exit(-3) thread: %ld\n", (long)(intptr_t)pv);
}

/* ---- detach ---- */

static mtx_t dm;
static cnd_t dc;
static int detached_done;

static int detached(void *arg)
{
	mtx_lock(&dm);
	detached_done++;
	cnd_signal(&dc);
	mtx_unlock(&dm);
	return 0;
}

static void detach(void)
{
	mtx_init(&dm, mtx_plain);
	cnd_init(&dc);
	for (int i = 0; i < 4; i++) {
		thrd_t t;
		thrd_create(&t, detached, NULL);
		int d = thrd_detach(t);
		if (d != thrd_success)
			printf("thrd_detach: %s\n", rc(d));
	}
	mtx_lock(&dm);
	while (detached_done < 4)
		cnd_wait(&dc, &dm);
	mtx_unlock(&dm);
	printf("4 detached threads ran\n");
	cnd_destroy(&dc);
	mtx_destroy(&dm);
}

/* ---- mutexes ---- */

static mtx_t held;
static int try_result, timed_result, timed_free_result;

static int other_locker(void *arg)
{
	try_result = mtx_trylock(&held);
	struct timespec ts = utc_in(50);
	timed_result = mtx_timedlock(&held, &ts);
	return 0;
}

static int later_locker(void *arg)
{
	struct timespec ts = utc_in(5000);
	timed_free_result = mtx_timedlock(&held, &ts);
	if (timed_free_result == thrd_success)
		mtx_unlock(&held);
	return 0;
}

static long counter;

static int adder(void *arg)
{
	mtx_t *m = arg;
	for (int i = 0; i < 20000; i++) {
		mtx_lock(m);
		counter++;
		mtx_unlock(m);
	}
	return 0;
}

static void mutexes(void)
{
	static const struct { int type; const char *name; } types[] = {
		{ mtx_plain, "mtx_plain" },
		{ mtx_timed, "mtx_timed" },
		{ mtx_plain | mtx_recursive, "mtx_plain|mtx_recursive" },
		{ mtx_timed | mtx_recursive, "mtx_timed|mtx_recursive" },
	};
	for (int k = 0; k < 4; k++) {
		int r = mtx_init(&held, types[k].type);
		printf("%s: init %s", types[k].name, rc(r));
		if (types[k].type & mtx_recursive) {
			/* The owner may lock it again, try-lock included. */
			int a = mtx_lock(&held), b = mtx_lock(&held), c = mtx_trylock(&held);
			printf(", relock %s %s %s", rc(a), rc(b), rc(c));
			mtx_unlock(&held);
			mtx_unlock(&held);
		} else {
			mtx_lock(&held);
		}
		thrd_t t;
		thrd_create(&t, other_locker, NULL);
		thrd_join(t, NULL);
		printf(", held: trylock %s timedlock %s", rc(try_result), rc(timed_result));
		/* Released while another waits with a far deadline: it gets it. */
		thrd_create(&t, later_locker, NULL);
		struct timespec d = { 0, 20 * 1000000 };
		thrd_sleep(&d, NULL);
		printf(", unlock %s", rc(mtx_unlock(&held)));
		thrd_join(t, NULL);
		printf(", timedlock after release %s", rc(timed_free_result));
		struct timespec past = utc_in(-1000);
		int p = mtx_timedlock(&held, &past);
		printf(", free with a past deadline %s\n", rc(p));
		if (p == thrd_success)
			mtx_unlock(&held);
		mtx_destroy(&held);
	}

	mtx_t m;
	mtx_init(&m, mtx_plain);
	thrd_t t[4];
	for (int i = 0; i < 4; i++)
		thrd_create(&t[i], adder, &m);
	for (int i = 0; i < 4; i++)
		thrd_join(t[i], NULL);
	printf("4 threads x 20000 increments under mtx_lock: %ld\n", counter);
	mtx_destroy(&m);
}

/* ---- condition variables ---- */

static mtx_t cm;
static cnd_t cv;
static int cwaiting, cgo, cwoken;

static int cwaiter(void *arg)
{
	mtx_lock(&cm);
	cwaiting++;
	while (!cgo)
		cnd_wait(&cv, &cm);
	cwoken++;
	cgo--;
	mtx_unlock(&cm);
	return 0;
}

static void wait_for_waiters(int n)
{
	mtx_lock(&cm);
	while (cwaiting < n) {
		mtx_unlock(&cm);
		thrd_yield();
		struct timespec d = { 0, 1000000 };
		thrd_sleep(&d, NULL);
		mtx_lock(&cm);
	}
	mtx_unlock(&cm);
}

static void conds(void)
{
	mtx_init(&cm, mtx_plain);
	printf("cnd_init %s\n", rc(cnd_init(&cv)));
	/* Signal: one at a time. */
	thrd_t t[6];
	for (int i = 0; i < 6; i++)
		thrd_create(&t[i], cwaiter, NULL);
	wait_for_waiters(6);
	int order_ok = 1;
	for (int i = 1; i <= 6; i++) {
		mtx_lock(&cm);
		cgo++;
		cnd_signal(&cv);
		while (cwoken < i) {
			mtx_unlock(&cm);
			thrd_yield();
			mtx_lock(&cm);
		}
		order_ok &= cwoken == i;
		mtx_unlock(&cm);
	}
	for (int i = 0; i < 6; i++)
		thrd_join(t[i], NULL);
	printf("cnd_signal woke 6 waiters one by one: %s\n", order_ok ? "yes" : "no");

	/* Broadcast: all. */
	cwaiting = cwoken = cgo = 0;
	for (int i = 0; i < 6; i++)
		thrd_create(&t[i], cwaiter, NULL);
	wait_for_waiters(6);
	mtx_lock(&cm);
	cgo = 6;
	int b = cnd_broadcast(&cv);
	mtx_unlock(&cm);
	for (int i = 0; i < 6; i++)
		thrd_join(t[i], NULL);
	printf("cnd_broadcast %s woke %d\n", rc(b), cwoken);

	/* Timed wait: nobody signals. */
	mtx_lock(&cm);
	struct timespec ts = utc_in(30);
	int r = cnd_timedwait(&cv, &cm, &ts);
	int still_owned = mtx_trylock(&cm) == thrd_busy; /* plain: held by us */
	mtx_unlock(&cm);
	printf("cnd_timedwait with no signal: %s, mutex held after: %d\n", rc(r), still_owned);
	cnd_destroy(&cv);
	mtx_destroy(&cm);
}

/* ---- thread-specific storage ---- */

static tss_t key;
static atomic_int dtor_runs, dtor_sum;

static void dtor(void *p)
{
	atomic_fetch_add(&dtor_runs, 1);
	atomic_fetch_add(&dtor_sum, (int)(intptr_t)p);
}

static int tss_user(void *arg)
{
	int before = tss_get(key) == NULL;
	tss_set(key, arg);
	thrd_yield();
	int same = tss_get(key) == arg;
	if ((intptr_t)arg % 2)
		thrd_exit(before && same);
	return before && same;
}

static void tss(void)
{
	printf("tss_create %s\n", rc(tss_create(&key, dtor)));
	printf("main's tss_get before set: %s\n", tss_get(key) ? "set" : "NULL");
	tss_set(key, (void *)(intptr_t)1000); /* main never exits here: no dtor */
	thrd_t t[8];
	for (int i = 0; i < 8; i++)
		thrd_create(&t[i], tss_user, (void *)(intptr_t)(i + 1));
	int ok = 0;
	for (int i = 0; i < 8; i++) {
		int r = 0;
		thrd_join(t[i], &r);
		ok += r;
	}
	printf("tss values private to each thread: %d of 8; destructors ran %d times, sum %d\n",
	       ok, atomic_load(&dtor_runs), atomic_load(&dtor_sum));
	printf("main's value kept: %ld\n", (long)(intptr_t)tss_get(key));
	tss_delete(key);
}

/* ---- call_once ---- */

static once_flag once = ONCE_FLAG_INIT;
static atomic_int init_runs;
static int init_done;

static void init_fn(void)
{
	/* Long enough that the others arrive while it runs and must wait. */
	struct timespec d = { 0, 50 * 1000000 };
	thrd_sleep(&d, NULL);
	atomic_fetch_add(&init_runs, 1);
	init_done = 1;
}

static int once_user(void *arg)
{
	call_once(&once, init_fn);
	return init_done;
}

static void once_test(void)
{
	thrd_t t[16];
	for (int i = 0; i < 16; i++)
		thrd_create(&t[i], once_user, NULL);
	int saw = 0;
	for (int i = 0; i < 16; i++) {
		int r = 0;
		thrd_join(t[i], &r);
		saw += r;
	}
	call_once(&once, init_fn);
	printf("call_once from 16 threads: init ran %d time(s), %d saw it done\n",
	       atomic_load(&init_runs), saw);
}

/* ---- thrd_sleep ---- */

static atomic_int sleep_result = 99, sleeping;
static struct timespec sleep_rem;

static void on_usr1(int s)
{
	(void)s;
}

static int sleeper(void *arg)
{
	int r;
	atomic_store(&sleeping, 1);
	/* A signal that came before the sleep began is taken, and the next
	 * one ends the sleep. */
	do {
		struct timespec d = { 10, 0 };
		r = thrd_sleep(&d, &sleep_rem);
	} while (r == 0);
	atomic_store(&sleep_result, r);
	return 0;
}

static void sleep_test(void)
{
	struct timespec d = { 0, 10 * 1000000 };
	printf("thrd_sleep 10 ms: %d\n", thrd_sleep(&d, NULL));
	struct timespec bad = { 0, -1 };
	int b = thrd_sleep(&bad, NULL);
	printf("thrd_sleep with a bad time: %s\n", b < -1 ? "negative, not -1" : "other");

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	thrd_t t;
	thrd_create(&t, sleeper, NULL);
	while (!atomic_load(&sleeping))
		thrd_yield();
	for (int i = 0; i < 500 && atomic_load(&sleep_result) == 99; i++) {
		pthread_kill((pthread_t)t, SIGUSR1);
		struct timespec p = { 0, 10 * 1000000 };
		thrd_sleep(&p, NULL);
	}
	thrd_join(t, NULL);
	/* The kernel's remaining time counts from the timer's hard expiry,
	 * which is the timer slack (50 us) past the one asked for. */
	long rem_us = sleep_rem.tv_sec * 1000000L + sleep_rem.tv_nsec / 1000;
	int rem_ok = sleep_rem.tv_nsec >= 0 && sleep_rem.tv_nsec < 1000000000 && rem_us > 0 &&
		     rem_us <= 10000000 + 1000;
	printf("thrd_sleep interrupted by a signal: %d, some of the 10 s left: %d\n",
	       atomic_load(&sleep_result), rem_ok);
}

/* ---- many waiters: tasks, not OS threads ---- */

#define NWAIT 200
static mtx_t wm;
static cnd_t wc;
static int wwaiting, wgo;

static int many_waiter(void *arg)
{
	mtx_lock(&wm);
	wwaiting++;
	while (!wgo)
		cnd_wait(&wc, &wm);
	mtx_unlock(&wm);
	return (int)(intptr_t)arg;
}

static void many(void)
{
	mtx_init(&wm, mtx_plain);
	cnd_init(&wc);
	static thrd_t t[NWAIT];
	for (int i = 0; i < NWAIT; i++)
		if (thrd_create(&t[i], many_waiter, (void *)(intptr_t)i) != thrd_success) {
			printf("thrd_create %d failed\n", i);
			exit(1);
		}
	mtx_lock(&wm);
	while (wwaiting < NWAIT) {
		mtx_unlock(&wm);
		struct timespec d = { 0, 1000000 };
		thrd_sleep(&d, NULL);
		mtx_lock(&wm);
	}
	long n = os_threads();
	wgo = 1;
	cnd_broadcast(&wc);
	mtx_unlock(&wm);
	long sum = 0;
	for (int i = 0; i < NWAIT; i++) {
		int r = 0;
		thrd_join(t[i], &r);
		sum += r;
	}
	int ok = weft_loaded() ? n >= 1 && n <= procs() + 3 : n >= NWAIT + 1;
	printf("%d threads waiting on a cnd_t: OS threads as expected: %s; results sum %ld\n",
	       NWAIT, ok ? "yes" : "no", sum);
	fprintf(stderr, "%d waiting: %ld OS threads (GOMAXPROCS %ld)\n", NWAIT, n, procs());
	cnd_destroy(&wc);
	mtx_destroy(&wm);
}

/* ---- thrd_exit in main: the process lives until its last thread ends ---- */

static int last(void *arg)
{
	struct timespec d = { 0, 30 * 1000000 };
	thrd_sleep(&d, NULL);
	printf("a thread outlived main's thrd_exit\n");
	return 0;
}

int main(void)
{
	weft_check_loaded();
	create_join();
	detach();
	mutexes();
	conds();
	tss();
	once_test();
	sleep_test();
	many();
	thrd_t t;
	thrd_create(&t, last, NULL);
	printf("main calls thrd_exit(3)\n");
	fflush(stdout);
	thrd_exit(3);
}
