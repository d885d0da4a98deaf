/* Thread lifecycle: return values, pthread_exit, detach, tryjoin/timedjoin,
 * self-join, cleanup handlers on exit and cancel, once, barrier, spinlock,
 * names, attributes and stack sizes. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"
#include "test_util.h"



/* ---- return values ---- */
static void *ret_plain(void *a) { return (void *)((uintptr_t)a * 3); }
static __attribute__((noreturn)) void nested_exit(int depth, uintptr_t v)
{
	if (depth == 0)
		pthread_exit((void *)v);
	nested_exit(depth - 1, v + 1);
}
static void *ret_exit(void *a)
{
	nested_exit(10, (uintptr_t)a);
	return (void *)1; /* not reached */
}

/* ---- detached ---- */
static atomic_int detached_ran;
static void *detached_fn(void *a)
{
	(void)a;
	usleep(1000);
	atomic_fetch_add(&detached_ran, 1);
	return NULL;
}

/* ---- tryjoin / timedjoin ---- */
static pthread_mutex_t gm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gc = PTHREAD_COND_INITIALIZER;
static int gate;
static void *gated(void *a)
{
	pthread_mutex_lock(&gm);
	while (!gate)
		pthread_cond_wait(&gc, &gm);
	pthread_mutex_unlock(&gm);
	return a;
}
static void open_gate(void)
{
	pthread_mutex_lock(&gm);
	gate = 1;
	pthread_cond_broadcast(&gc);
	pthread_mutex_unlock(&gm);
}

static pthread_t main_thread;
static void *join_self(void *a)
{
	(void)a;
	return (void *)(intptr_t)pthread_join(pthread_self(), NULL);
}

/* ---- cleanup handlers ---- */
static char log_buf[4096];
static pthread_mutex_t log_m = PTHREAD_MUTEX_INITIALIZER;
static void logf_(const char *s)
{
	pthread_mutex_lock(&log_m);
	strcat(log_buf, s);
	strcat(log_buf, ";");
	pthread_mutex_unlock(&log_m);
}
static void cleanup(void *a) { logf_(a); }

static void *cleanup_exit(void *a)
{
	(void)a;
	pthread_cleanup_push(cleanup, "exit-outer");
	pthread_cleanup_push(cleanup, "exit-inner");
	pthread_cleanup_push(cleanup, "popped-not-run");
	pthread_cleanup_pop(0);
	pthread_cleanup_push(cleanup, "popped-run");
	pthread_cleanup_pop(1);
	pthread_exit((void *)42);
	pthread_cleanup_pop(0);
	pthread_cleanup_pop(0);
	return NULL;
}

static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cc = PTHREAD_COND_INITIALIZER;
static int cwaiting;
static void unlock_cm(void *a)
{
	/* cancelled in pthread_cond_wait: the mutex is held again */
	int r = pthread_mutex_trylock(&cm);
	logf_(r == EBUSY ? "condwait-mutex-held" : "condwait-mutex-NOT-held");
	pthread_mutex_unlock(&cm);
	logf_(a);
}
static void *cancel_cond(void *a)
{
	(void)a;
	pthread_mutex_lock(&cm);
	pthread_cleanup_push(unlock_cm, "cancel-cond");
	cwaiting = 1;
	pthread_cond_broadcast(&cc);
	for (;;)
		pthread_cond_wait(&cc, &cm);
	pthread_cleanup_pop(1);
	return NULL;
}
static atomic_int sleeping;
static void *cancel_sleep(void *a)
{
	(void)a;
	pthread_cleanup_push(cleanup, "cancel-sleep");
	atomic_store(&sleeping, 1);
	for (;;)
		sleep(10);
	pthread_cleanup_pop(0);
	return NULL;
}
static void *cancel_usleep(void *a)
{
	(void)a;
	pthread_cleanup_push(cleanup, "cancel-nanosleep");
	atomic_store(&sleeping, 1);
	for (;;) {
		struct timespec ts = { 5, 0 };
		nanosleep(&ts, NULL);
	}
	pthread_cleanup_pop(0);
	return NULL;
}
static void *cancel_disabled(void *a)
{
	(void)a;
	int old;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	pthread_cleanup_push(cleanup, "cancel-deferred-testcancel");
	atomic_store(&sleeping, 1);
	usleep(50000); /* cancel arrives while disabled: sleep completes */
	logf_("disabled-sleep-done");
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	pthread_testcancel();
	logf_("not-reached");
	pthread_cleanup_pop(0);
	return NULL;
}
static void *cancel_join(void *a)
{
	pthread_cleanup_push(cleanup, "cancel-join");
	atomic_store(&sleeping, 1);
	pthread_join(*(pthread_t *)a, NULL);
	pthread_cleanup_pop(0);
	return NULL;
}

/* ---- once ---- */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static atomic_int once_runs, once_after;
static int once_value;
static void once_init(void)
{
	atomic_fetch_add(&once_runs, 1);
	usleep(20000); /* others must wait, not skip */
	once_value = 1234;
}
static void *once_fn(void *a)
{
	(void)a;
	pthread_once(&once, once_init);
	if (once_value == 1234)
		atomic_fetch_add(&once_after, 1);
	return NULL;
}

/* ---- barrier ---- */
#define BT 8
#define BR 100
static pthread_barrier_t bar;
static atomic_int serial[BR];
static int round_data[BR][BT];
static atomic_int barrier_bad;
static void *barrier_fn(void *a)
{
	long id = (long)a;
	for (int r = 0; r < BR; r++) {
		round_data[r][id] = r + (int)id;
		int s = pthread_barrier_wait(&bar);
		if (s == PTHREAD_BARRIER_SERIAL_THREAD)
			atomic_fetch_add(&serial[r], 1);
		else if (s != 0)
			atomic_fetch_add(&barrier_bad, 1);
		/* everyone's data of this round is visible */
		for (int j = 0; j < BT; j++)
			if (round_data[r][j] != r + j)
				atomic_fetch_add(&barrier_bad, 1);
	}
	return NULL;
}

/* ---- spinlock ---- */
static pthread_spinlock_t spin;
static long spin_counter;
static void *spin_fn(void *a)
{
	(void)a;
	for (int i = 0; i < 50000; i++) {
		pthread_spin_lock(&spin);
		spin_counter++;
		pthread_spin_unlock(&spin);
	}
	int r = pthread_spin_trylock(&spin);
	if (r == 0)
		pthread_spin_unlock(&spin);
	return NULL;
}

/* ---- names ---- */
static void *named(void *a)
{
	pthread_setname_np(pthread_self(), a);
	char buf[16];
	pthread_getname_np(pthread_self(), buf, sizeof buf);
	printf("self name: %s\n", buf);
	fflush(stdout);
	pthread_mutex_lock(&gm);
	while (!gate)
		pthread_cond_wait(&gc, &gm);
	pthread_mutex_unlock(&gm);
	return NULL;
}

/* ---- stacks ---- */
static size_t got_stack;
static int got_detach;
static void *attr_fn(void *a)
{
	(void)a;
	pthread_attr_t at;
	if (pthread_getattr_np(pthread_self(), &at) == 0) {
		void *addr;
		pthread_attr_getstack(&at, &addr, &got_stack);
		pthread_attr_getdetachstate(&at, &got_detach);
		/* our stack is inside what getattr reports */
		char here;
		if (!((char *)addr <= &here && &here < (char *)addr + got_stack))
			got_stack = 0;
		pthread_attr_destroy(&at);
	}
	return NULL;
}
static long __attribute__((noinline)) use_stack(int kb)
{
	volatile char buf[1024];
	for (int i = 0; i < 1024; i++)
		buf[i] = (char)(i + kb);
	long s = buf[kb % 1024];
	if (kb > 1)
		s += use_stack(kb - 1);
	return s + buf[0];
}
static void *big_stack(void *a)
{
	return (void *)use_stack((int)(uintptr_t)a);
}

int main(void)
{
	weft_check_loaded();
	main_thread = pthread_self();
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_t t[64];
	void *r;

	/* return values */
	for (uintptr_t i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, i % 2 ? ret_exit : ret_plain, (void *)i);
	for (int i = 0; i < 8; i++) {
		pthread_join(t[i], &r);
		printf("thread %d returned %lu\n", i, (unsigned long)(uintptr_t)r);
	}

	/* detached via attr, via pthread_detach while running, after exit */
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	for (int i = 0; i < 10; i++)
		pthread_create(&t[i], &at, detached_fn, NULL);
	pthread_attr_destroy(&at);
	pthread_create(&t[10], NULL, detached_fn, NULL);
	printf("detach running: %s\n", en(pthread_detach(t[10])));
	pthread_create(&t[11], NULL, ret_plain, (void *)5);
	usleep(20000);
	printf("detach after exit: %s\n", en(pthread_detach(t[11])));
	while (atomic_load(&detached_ran) < 11)
		usleep(1000);
	printf("detached ran %d\n", atomic_load(&detached_ran));

	/* tryjoin / timedjoin */
	pthread_create(&t[0], NULL, gated, (void *)99);
	printf("tryjoin running: %s\n", en(pthread_tryjoin_np(t[0], &r)));
	struct timespec ts;
	deadline(CLOCK_REALTIME, &ts, 30);
	printf("timedjoin running: %s\n", en(pthread_timedjoin_np(t[0], &r, &ts)));
	open_gate();
	int tr;
	while ((tr = pthread_tryjoin_np(t[0], &r)) == EBUSY)
		usleep(1000);
	printf("tryjoin after exit: %s -> %ld\n", en(tr), (long)(uintptr_t)r);
	gate = 0;
	pthread_create(&t[0], NULL, gated, (void *)98);
	deadline(CLOCK_REALTIME, &ts, 10);
	printf("timedjoin running 2: %s\n", en(pthread_timedjoin_np(t[0], &r, &ts)));
	open_gate();
	deadline(CLOCK_REALTIME, &ts, 5000);
	tr = pthread_timedjoin_np(t[0], &r, &ts);
	printf("timedjoin completes: %s -> %ld\n", en(tr), (long)(uintptr_t)r);
	gate = 0;

	/* join self */
	printf("main join self: %s\n", en(pthread_join(pthread_self(), NULL)));
	pthread_create(&t[0], NULL, join_self, NULL);
	pthread_join(t[0], &r);
	printf("thread join self: %s\n", en((int)(intptr_t)r));

	/* cleanup on exit */
	pthread_create(&t[0], NULL, cleanup_exit, NULL);
	pthread_join(t[0], &r);
	printf("cleanup_exit returned %ld log: %s\n", (long)(uintptr_t)r, log_buf);
	log_buf[0] = 0;

	/* cancel in cond_wait */
	pthread_create(&t[0], NULL, cancel_cond, NULL);
	pthread_mutex_lock(&cm);
	while (!cwaiting)
		pthread_cond_wait(&cc, &cm);
	pthread_mutex_unlock(&cm);
	usleep(5000);
	printf("cancel cond: %s\n", en(pthread_cancel(t[0])));
	pthread_join(t[0], &r);
	printf("cond cancelled: %d log: %s\n", r == PTHREAD_CANCELED, log_buf);
	log_buf[0] = 0;

	void *(*sleepers[])(void *) = { cancel_sleep, cancel_usleep, cancel_disabled };
	for (int i = 0; i < 3; i++) {
		atomic_store(&sleeping, 0);
		pthread_create(&t[0], NULL, sleepers[i], NULL);
		while (!atomic_load(&sleeping))
			usleep(1000);
		usleep(5000);
		pthread_cancel(t[0]);
		pthread_join(t[0], &r);
		printf("sleeper %d cancelled: %d log: %s\n", i, r == PTHREAD_CANCELED, log_buf);
		log_buf[0] = 0;
	}
	/* cancel a thread blocked in pthread_join */
	pthread_create(&t[1], NULL, gated, NULL);
	atomic_store(&sleeping, 0);
	pthread_create(&t[0], NULL, cancel_join, &t[1]);
	while (!atomic_load(&sleeping))
		usleep(1000);
	usleep(5000);
	pthread_cancel(t[0]);
	pthread_join(t[0], &r);
	printf("joiner cancelled: %d log: %s\n", r == PTHREAD_CANCELED, log_buf);
	log_buf[0] = 0;
	open_gate();
	printf("join target after cancelled joiner: %s\n", en(pthread_join(t[1], NULL)));
	gate = 0;

	/* once */
	for (int i = 0; i < 50; i++)
		pthread_create(&t[i], NULL, once_fn, NULL);
	for (int i = 0; i < 50; i++)
		pthread_join(t[i], NULL);
	printf("once runs %d, saw value %d\n", once_runs, once_after);

	/* barrier */
	pthread_barrier_init(&bar, NULL, BT);
	for (long i = 0; i < BT; i++)
		pthread_create(&t[i], NULL, barrier_fn, (void *)i);
	for (int i = 0; i < BT; i++)
		pthread_join(t[i], NULL);
	int one = 0;
	for (int i = 0; i < BR; i++)
		one += serial[i] == 1;
	printf("barrier rounds with exactly one serial: %d of %d, bad %d\n", one, BR, barrier_bad);
	printf("barrier destroy: %s\n", en(pthread_barrier_destroy(&bar)));

	/* spinlock */
	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, spin_fn, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("spin counter %ld\n", spin_counter);
	pthread_spin_lock(&spin);
	printf("spin trylock held: %s\n", en(pthread_spin_trylock(&spin)));
	pthread_spin_unlock(&spin);
	pthread_spin_destroy(&spin);

	/* names */
	pthread_create(&t[0], NULL, named, "worker-a");
	usleep(20000);
	char buf[32];
	printf("getname other: %s ", en(pthread_getname_np(t[0], buf, sizeof buf)));
	printf("%s\n", buf);
	printf("setname other: %s\n", en(pthread_setname_np(t[0], "renamed")));
	pthread_getname_np(t[0], buf, sizeof buf);
	printf("getname after set: %s\n", buf);
	printf("setname too long: %s\n", en(pthread_setname_np(t[0], "0123456789abcdefXYZ")));
	printf("getname small buf: %s\n", en(pthread_getname_np(t[0], buf, 4)));
	open_gate();
	pthread_join(t[0], NULL);
	gate = 0;

	/* stack attributes */
	size_t sizes[] = { 64 << 10, 1 << 20, 4 << 20 };
	for (int i = 0; i < 3; i++) {
		pthread_attr_init(&at);
		pthread_attr_setstacksize(&at, sizes[i]);
		size_t back;
		pthread_attr_getstacksize(&at, &back);
		pthread_create(&t[0], &at, attr_fn, NULL);
		pthread_attr_destroy(&at);
		pthread_join(t[0], NULL);
		printf("stacksize %zu: set back %d, getattr >= requested %d, joinable %d\n", sizes[i],
		       back == sizes[i], got_stack >= sizes[i],
		       got_detach == PTHREAD_CREATE_JOINABLE);
	}
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 1 << 20);
	pthread_create(&t[0], &at, big_stack, (void *)512);
	pthread_attr_destroy(&at);
	pthread_join(t[0], &r);
	printf("512 KiB of stack used, result %ld\n", (long)(uintptr_t)r);
	pthread_create(&t[0], NULL, big_stack, (void *)1024); /* default: 8 MiB on this machine */
	pthread_join(t[0], &r);
	printf("1 MiB of default stack used, result %ld\n", (long)(uintptr_t)r);
	return 0;
}
