/*
 * test_timer.c — the deadline heap.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "stubs.h"

static void setup(void)
{
	stub_reset(1);
}

TestSuite(timer, .init = setup);

#define NMAX 10000
static struct wt_timer tm[NMAX];
static int64_t fired_when[NMAX * 2];
static struct wt_timer *fired_t[NMAX * 2];
static struct wt_m *fired_m[NMAX * 2];
static int nfired;

static void record(struct wt_timer *t, struct wt_m *m)
{
	fired_when[nfired] = t->when;
	fired_t[nfired] = t;
	fired_m[nfired] = m;
	nfired++;
}

static void init_timers(int n)
{
	for (int i = 0; i < n; i++) {
		memset(&tm[i], 0, sizeof tm[i]);
		tm[i].idx = -1;
		tm[i].fn = record;
	}
}

Test(timer, empty_heap)
{
	cr_assert_eq(wt_timer_next(), INT64_MAX);
	cr_assert_eq(wt_timer_count(), 0);
	cr_assert_eq(wt_timer_run(INT64_MAX, NULL), 0);
	init_timers(1);
	wt_timer_del(&tm[0]); /* not queued: no-op */
	cr_assert_eq(wt_timer_count(), 0);
}

Test(timer, random_deadlines_fire_in_order)
{
	init_timers(NMAX);
	srand(42);
	for (int i = 0; i < NMAX; i++) {
		int64_t when = 1000 + (int64_t)(rand() % 5000000);
		wt_timer_add(&tm[i], when);
	}
	cr_assert_eq(wt_timer_count(), NMAX);
	int64_t min = INT64_MAX;
	for (int i = 0; i < NMAX; i++) {
		cr_assert_geq(tm[i].idx, 0);
		if (tm[i].when < min)
			min = tm[i].when;
	}
	cr_assert_eq(wt_timer_next(), min);
	/* In steps: each run fires exactly the expired ones, in order. */
	int total = 0;
	for (int64_t now = 0; now <= 5250000; now += 250000) {
		int expect = 0;
		for (int i = 0; i < NMAX; i++)
			if (tm[i].idx >= 0 && tm[i].when <= now)
				expect++;
		int n = wt_timer_run(now, (struct wt_m *)0x1234);
		cr_assert_eq(n, expect, "run(%ld) fired %d, expected %d", (long)now, n, expect);
		total += n;
		cr_assert_eq(wt_timer_count(), NMAX - total);
		if (wt_timer_count())
			cr_assert_gt(wt_timer_next(), now);
	}
	cr_assert_eq(total, NMAX);
	cr_assert_eq(nfired, NMAX);
	cr_assert_eq(wt_timer_next(), INT64_MAX);
	for (int i = 1; i < nfired; i++)
		cr_assert_leq(fired_when[i - 1], fired_when[i], "fired out of order at %d", i);
	/* Each timer fired exactly once, unqueued, with the m given. */
	static char once[NMAX];
	for (int i = 0; i < nfired; i++) {
		int k = (int)(fired_t[i] - tm);
		cr_assert(k >= 0 && k < NMAX);
		cr_assert_eq(once[k]++, 0, "timer %d fired twice", k);
		cr_assert_eq(fired_m[i], (struct wt_m *)0x1234);
	}
	for (int i = 0; i < NMAX; i++)
		cr_assert_eq(tm[i].idx, -1);
}

Test(timer, del_middle_element)
{
	enum { N = 101 };
	init_timers(N);
	/* Shuffled insertion of 0..100 (times 10). */
	for (int i = 0; i < N; i++)
		wt_timer_add(&tm[(i * 37) % N], 10 * ((i * 37) % N));
	cr_assert_eq(wt_timer_count(), N);
	int del[] = { 50, 17, 99, 0, 63 };
	for (size_t k = 0; k < sizeof del / sizeof del[0]; k++) {
		wt_timer_del(&tm[del[k]]);
		cr_assert_eq(tm[del[k]].idx, -1);
		cr_assert_eq(wt_timer_count(), N - 1 - (int)k);
		wt_timer_del(&tm[del[k]]); /* twice: no-op */
		cr_assert_eq(wt_timer_count(), N - 1 - (int)k);
	}
	cr_assert_eq(wt_timer_next(), 10, "timer 0 was deleted: next is timer 1");
	cr_assert_eq(wt_timer_run(INT64_MAX, NULL), N - 5);
	int j = 0;
	for (int i = 0; i < N; i++) {
		if (i == 50 || i == 17 || i == 99 || i == 0 || i == 63)
			continue;
		cr_assert_eq(fired_t[j], &tm[i], "fire #%d is not timer %d", j, i);
		j++;
	}
	cr_assert_eq(j, nfired);
}

Test(timer, del_keeps_heap_valid_under_random_ops)
{
	init_timers(2000);
	srand(7);
	for (int i = 0; i < 2000; i++)
		wt_timer_add(&tm[i], rand() % 100000);
	static bool deleted[2000];
	int ndel = 0;
	for (int i = 0; i < 2000; i += 3) {
		int k = (i * 7) % 2000;
		wt_timer_del(&tm[k]);
		ndel += !deleted[k];
		deleted[k] = true;
		cr_assert_eq(tm[k].idx, -1);
	}
	/* Every queued timer still sits at the index it records. */
	for (int i = 0; i < 2000; i++)
		cr_assert_eq(tm[i].idx >= 0, !deleted[i]);
	int left = wt_timer_count();
	cr_assert_eq(left, 2000 - ndel);
	cr_assert_eq(wt_timer_run(INT64_MAX, NULL), left);
	cr_assert_eq(nfired, left);
	for (int i = 1; i < nfired; i++)
		cr_assert_leq(fired_when[i - 1], fired_when[i]);
	for (int i = 0; i < nfired; i++)
		cr_assert_not(deleted[fired_t[i] - tm], "deleted timer %d fired",
			      (int)(fired_t[i] - tm));
}

Test(timer, next_tracks_earliest)
{
	init_timers(4);
	cr_assert_eq(wt_timer_next(), INT64_MAX);
	wt_timer_add(&tm[0], 500);
	cr_assert_eq(wt_timer_next(), 500);
	wt_timer_add(&tm[1], 300);
	cr_assert_eq(wt_timer_next(), 300);
	wt_timer_add(&tm[2], 900);
	cr_assert_eq(wt_timer_next(), 300);
	wt_timer_del(&tm[1]);
	cr_assert_eq(wt_timer_next(), 500);
	cr_assert_eq(wt_timer_run(499, NULL), 0);
	cr_assert_eq(wt_timer_run(500, NULL), 1);
	cr_assert_eq(wt_timer_next(), 900);
	wt_timer_del(&tm[2]);
	cr_assert_eq(wt_timer_next(), INT64_MAX);
}

Test(timer, readd_after_del_and_after_fire)
{
	init_timers(3);
	wt_timer_add(&tm[0], 100);
	wt_timer_add(&tm[1], 200);
	wt_timer_del(&tm[0]);
	wt_timer_add(&tm[0], 300);
	cr_assert_eq(tm[0].when, 300);
	cr_assert_eq(wt_timer_count(), 2);
	cr_assert_eq(wt_timer_next(), 200);
	cr_assert_eq(wt_timer_run(250, NULL), 1);
	cr_assert_eq(fired_t[0], &tm[1]);
	/* A fired timer can be added again. */
	wt_timer_add(&tm[1], 50);
	cr_assert_eq(wt_timer_next(), 50);
	cr_assert_eq(wt_timer_run(1000, NULL), 2);
	cr_assert_eq(nfired, 3);
	cr_assert_eq(fired_t[1], &tm[1]);
	cr_assert_eq(fired_when[1], 50);
	cr_assert_eq(fired_t[2], &tm[0]);
	cr_assert_eq(fired_when[2], 300);
	cr_assert_eq(wt_timer_count(), 0);
}

static void readd_self(struct wt_timer *t, struct wt_m *m)
{
	record(t, m);
	if (nfired < 5)
		wt_timer_add(t, t->when + 10);
}

Test(timer, callback_may_readd_itself)
{
	init_timers(1);
	tm[0].fn = readd_self;
	wt_timer_add(&tm[0], 10);
	/* Re-added at 20, 30, ...: a run up to 35 fires 10, 20, 30. */
	cr_assert_eq(wt_timer_run(35, NULL), 3);
	cr_assert_eq(wt_timer_next(), 40);
	cr_assert_eq(wt_timer_run(1000, NULL), 2);
	cr_assert_eq(fired_when[4], 50);
	cr_assert_eq(wt_timer_count(), 0);
}

Test(timer, earliest_add_kicks_sysmon)
{
	init_timers(5);
	wt_timer_add(&tm[0], 1000);
	cr_assert_eq(atomic_load(&stub_kicks), 1, "first timer is the earliest");
	wt_timer_add(&tm[1], 2000);
	cr_assert_eq(atomic_load(&stub_kicks), 1, "a later timer does not kick");
	wt_timer_add(&tm[2], 500);
	cr_assert_eq(atomic_load(&stub_kicks), 2, "a new earliest kicks");
	wt_timer_add(&tm[3], 700);
	cr_assert_eq(atomic_load(&stub_kicks), 2);
	wt_timer_del(&tm[2]);
	wt_timer_del(&tm[3]);
	wt_timer_add(&tm[4], 900);
	cr_assert_eq(atomic_load(&stub_kicks), 3, "earliest after deletions kicks");
}

/* wt_timer_del returns only once a callback in flight has finished. */
static _Atomic int cb_entered, cb_release, cb_done, del_saw_done = -1;

static void slow_cb(struct wt_timer *t, struct wt_m *m)
{
	atomic_store(&cb_entered, 1);
	while (!atomic_load(&cb_release))
		sched_yield();
	atomic_store(&cb_done, 1);
}

static void *runner(void *arg)
{
	wt_timer_run(INT64_MAX, NULL);
	return NULL;
}

static void *deleter(void *arg)
{
	wt_timer_del(&tm[0]);
	atomic_store(&del_saw_done, atomic_load(&cb_done));
	return NULL;
}

static bool c_entered(void *a) { return atomic_load(&cb_entered); }

Test(timer, del_waits_for_running_callback, .timeout = 10)
{
	init_timers(1);
	tm[0].fn = slow_cb;
	wt_timer_add(&tm[0], 1);
	pthread_t r, d;
	pthread_create(&r, NULL, runner, NULL);
	cr_assert(stub_wait_until(c_entered, NULL));
	pthread_create(&d, NULL, deleter, NULL);
	for (int i = 0; i < 1000; i++)
		sched_yield();
	cr_assert_eq(atomic_load(&del_saw_done), -1, "del returned while fn was running");
	atomic_store(&cb_release, 1);
	pthread_join(d, NULL);
	pthread_join(r, NULL);
	cr_assert_eq(atomic_load(&del_saw_done), 1);
	cr_assert_eq(wt_timer_count(), 0);
}
