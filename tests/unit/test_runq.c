/*
 * test_runq.c — the per-proc ring, runnext, the global queue and stealing.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "stubs.h"

#define NT 1024
static struct wt_task tasks[NT];

static void setup(void)
{
	stub_reset(4);
	for (int i = 0; i < NT; i++)
		stub_task_init(&tasks[i], (uint64_t)i);
}

static int idx(struct wt_task *t)
{
	return t ? (int)(t - tasks) : -1;
}

/* The global queue as a list of task indexes; checks runq_tail and size. */
static int glob_list(int *out, int max)
{
	int n = 0;
	struct wt_task *last = NULL;
	for (struct wt_task *t = wt_sched.runq_head; t && n < max; t = t->schedlink) {
		out[n++] = idx(t);
		last = t;
	}
	cr_assert_eq(wt_sched.runq_tail, last, "runq_tail is not the last element");
	cr_assert_eq(atomic_load(&wt_sched.runq_size), n, "runq_size %d != list length %d",
		     atomic_load(&wt_sched.runq_size), n);
	return n;
}

TestSuite(runq, .init = setup);

Test(runq, empty)
{
	struct wt_p *p = &stub_procs[0];
	cr_assert_null(wt_runq_get(p));
	cr_assert_eq(wt_runq_len(p), 0);
	cr_assert_null(wt_runq_steal(&stub_procs[1], p, true));
	wt_lock(&wt_sched.lock);
	cr_assert_null(wt_globrunq_get(p, 0));
	wt_unlock(&wt_sched.lock);
}

Test(runq, fifo)
{
	struct wt_p *p = &stub_procs[0];
	for (int i = 0; i < 200; i++)
		wt_runq_put(p, &tasks[i], false);
	cr_assert_eq(wt_runq_len(p), 200);
	for (int i = 0; i < 200; i++)
		cr_assert_eq(idx(wt_runq_get(p)), i);
	cr_assert_null(wt_runq_get(p));
	cr_assert_eq(wt_runq_len(p), 0);
	/* Many laps around the ring keep FIFO order (indexes wrap). */
	int in = 0, out = 0;
	for (int lap = 0; lap < 15; lap++) { /* at most 14 * 10 + 100 queued */
		for (int k = 0; k < 100; k++, in++)
			wt_runq_put(p, &tasks[in % NT], false);
		for (int k = 0; k < 90; k++, out++)
			cr_assert_eq(idx(wt_runq_get(p)), out % NT);
	}
	while (out < in) {
		cr_assert_eq(idx(wt_runq_get(p)), out % NT);
		out++;
	}
	cr_assert_null(wt_runq_get(p));
	cr_assert_eq(atomic_load(&wt_sched.runq_size), 0, "nothing may spill below 256");
}

Test(runq, runnext_priority_and_displacement)
{
	struct wt_p *p = &stub_procs[0];
	wt_runq_put(p, &tasks[0], false);
	wt_runq_put(p, &tasks[1], false);
	wt_runq_put(p, &tasks[2], true);
	cr_assert_eq(idx(atomic_load(&p->runnext)), 2);
	cr_assert_eq(wt_runq_len(p), 3, "runq_len counts runnext");
	/* A second next=true displaces the old runnext to the tail. */
	wt_runq_put(p, &tasks[3], true);
	cr_assert_eq(idx(atomic_load(&p->runnext)), 3);
	cr_assert_eq(wt_runq_len(p), 4);
	int want[] = { 3, 0, 1, 2 };
	for (int i = 0; i < 4; i++)
		cr_assert_eq(idx(wt_runq_get(p)), want[i], "get #%d", i);
	cr_assert_null(wt_runq_get(p));
	cr_assert_null(atomic_load(&p->runnext));
}

Test(runq, overflow_spills_half_plus_new_to_global)
{
	struct wt_p *p = &stub_procs[0];
	for (int i = 0; i < WT_RUNQ_SIZE; i++)
		wt_runq_put(p, &tasks[i], false);
	cr_assert_eq(wt_runq_len(p), WT_RUNQ_SIZE);
	cr_assert_eq(atomic_load(&wt_sched.runq_size), 0);
	/* The 257th: the oldest half (0..127) and the new task go global. */
	wt_runq_put(p, &tasks[WT_RUNQ_SIZE], false);
	cr_assert_eq(atomic_load(&wt_sched.runq_size), WT_RUNQ_SIZE / 2 + 1);
	int g[NT];
	int n = glob_list(g, NT);
	cr_assert_eq(n, WT_RUNQ_SIZE / 2 + 1);
	for (int i = 0; i < WT_RUNQ_SIZE / 2; i++)
		cr_assert_eq(g[i], i, "global[%d] = %d", i, g[i]);
	cr_assert_eq(g[WT_RUNQ_SIZE / 2], WT_RUNQ_SIZE, "the new task ends the batch");
	cr_assert_eq(wt_runq_len(p), WT_RUNQ_SIZE / 2);
	for (int i = WT_RUNQ_SIZE / 2; i < WT_RUNQ_SIZE; i++)
		cr_assert_eq(idx(wt_runq_get(p)), i);
	cr_assert_null(wt_runq_get(p));
}

Test(runq, overflow_from_runnext_displacement_appends_to_global)
{
	struct wt_p *p = &stub_procs[0];
	/* Something already on the global queue: the batch goes after it. */
	wt_lock(&wt_sched.lock);
	wt_globrunq_put(&tasks[1000]);
	wt_unlock(&wt_sched.lock);
	for (int i = 0; i < WT_RUNQ_SIZE; i++)
		wt_runq_put(p, &tasks[i], false);
	wt_runq_put(p, &tasks[500], true);  /* runnext, ring untouched */
	cr_assert_eq(atomic_load(&wt_sched.runq_size), 1);
	wt_runq_put(p, &tasks[501], true);  /* 500 displaced into a full ring */
	int g[NT];
	int n = glob_list(g, NT);
	cr_assert_eq(n, 1 + WT_RUNQ_SIZE / 2 + 1);
	cr_assert_eq(g[0], 1000);
	for (int i = 0; i < WT_RUNQ_SIZE / 2; i++)
		cr_assert_eq(g[1 + i], i);
	cr_assert_eq(g[n - 1], 500);
	cr_assert_eq(idx(wt_runq_get(p)), 501);
	cr_assert_eq(wt_runq_len(p), WT_RUNQ_SIZE / 2);
}

Test(runq, steal_takes_half)
{
	struct wt_p *v = &stub_procs[0], *p = &stub_procs[1];
	for (int i = 0; i < 10; i++)
		wt_runq_put(v, &tasks[i], false);
	wt_runq_put(v, &tasks[100], true);
	/* Half of 10, rounded up: 0..4; the last grabbed is returned. */
	struct wt_task *t = wt_runq_steal(p, v, false);
	cr_assert_eq(idx(t), 4);
	cr_assert_eq(wt_runq_len(p), 4);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(idx(wt_runq_get(p)), i);
	cr_assert_null(wt_runq_get(p));
	/* The victim kept 5..9 and its runnext. */
	cr_assert_eq(wt_runq_len(v), 6);
	cr_assert_eq(idx(atomic_load(&v->runnext)), 100);
	/* Odd count: 5 -> takes 3 (5,6,7), returns 7. */
	cr_assert_eq(idx(wt_runq_steal(p, v, true)), 7);
	cr_assert_eq(idx(wt_runq_get(p)), 5);
	cr_assert_eq(idx(wt_runq_get(p)), 6);
	cr_assert_null(wt_runq_get(p));
	/* One left: a single steal returns it and p's ring stays empty. */
	cr_assert_eq(idx(wt_runq_steal(p, v, false)), 8);
	cr_assert_eq(wt_runq_len(p), 0);
	cr_assert_eq(idx(wt_runq_steal(p, v, false)), 9);
	cr_assert_eq(idx(atomic_load(&v->runnext)), 100, "runnext untouched so far");
}

Test(runq, steal_runnext_only_when_asked)
{
	struct wt_p *v = &stub_procs[0], *p = &stub_procs[1];
	wt_runq_put(v, &tasks[7], true);
	cr_assert_eq(wt_runq_len(v), 1);
	cr_assert_null(wt_runq_steal(p, v, false));
	cr_assert_eq(idx(atomic_load(&v->runnext)), 7);
	/* Victim idle (status 0): no grace period, taken at once. */
	cr_assert_eq(idx(wt_runq_steal(p, v, true)), 7);
	cr_assert_null(atomic_load(&v->runnext));
	cr_assert_eq(wt_runq_len(v), 0);
	cr_assert_eq(wt_runq_len(p), 0, "the stolen runnext is returned, not queued");
	/* Victim running (status 1): taken after the grace period. */
	v->status = 1;
	wt_runq_put(v, &tasks[8], true);
	cr_assert_eq(idx(wt_runq_steal(p, v, true)), 8);
	cr_assert_null(wt_runq_get(v));
}

Test(runq, steal_into_wrapped_ring)
{
	struct wt_p *v = &stub_procs[0], *p = &stub_procs[1];
	/* Move p's indexes near the ring's end so the stolen batch wraps. */
	for (int i = 0; i < 250; i++) {
		wt_runq_put(p, &tasks[0], false);
		wt_runq_get(p);
	}
	for (int i = 0; i < 40; i++)
		wt_runq_put(v, &tasks[10 + i], false);
	cr_assert_eq(idx(wt_runq_steal(p, v, false)), 10 + 19);
	for (int i = 0; i < 19; i++)
		cr_assert_eq(idx(wt_runq_get(p)), 10 + i);
	cr_assert_null(wt_runq_get(p));
}

static void glob_fill(int n)
{
	wt_lock(&wt_sched.lock);
	for (int i = 0; i < n; i++)
		wt_globrunq_put(&tasks[i]);
	wt_unlock(&wt_sched.lock);
}

static struct wt_task *glob_get(struct wt_p *p, int max)
{
	wt_lock(&wt_sched.lock);
	struct wt_task *t = wt_globrunq_get(p, max);
	wt_unlock(&wt_sched.lock);
	return t;
}

Test(runq, globrunq_get_batch_sizes)
{
	struct wt_p *p = &stub_procs[0];
	int g[NT];
	/* nprocs = 4, 100 queued: 100/4 + 1 = 26 (1 returned, 25 to the ring). */
	glob_fill(100);
	cr_assert_eq(idx(glob_get(p, 0)), 0);
	cr_assert_eq(wt_runq_len(p), 25);
	for (int i = 1; i <= 25; i++)
		cr_assert_eq(idx(wt_runq_get(p)), i);
	cr_assert_eq(glob_list(g, NT), 74);
	cr_assert_eq(g[0], 26);
	/* max caps the batch. */
	cr_assert_eq(idx(glob_get(p, 1)), 26);
	cr_assert_eq(wt_runq_len(p), 0);
	cr_assert_eq(idx(glob_get(p, 5)), 27);
	cr_assert_eq(wt_runq_len(p), 4);
	while (wt_runq_get(p))
		;
	/* 68 left: 68/4 + 1 = 18. */
	cr_assert_eq(idx(glob_get(p, 0)), 32);
	cr_assert_eq(wt_runq_len(p), 17);
	while (wt_runq_get(p))
		;
	/* Drain: the last small batches empty the list and reset the tail. */
	int left = glob_list(g, NT);
	int got = 0;
	while (glob_get(p, 0)) {
		got++;
		while (wt_runq_get(p))
			got++;
	}
	cr_assert_eq(got, left);
	cr_assert_null(wt_sched.runq_head);
	cr_assert_null(wt_sched.runq_tail);
	cr_assert_eq(atomic_load(&wt_sched.runq_size), 0);
	/* The queue works again after being emptied. */
	glob_fill(1);
	cr_assert_eq(idx(glob_get(p, 0)), 0);
}

Test(runq, globrunq_get_caps_at_half_ring_and_room)
{
	struct wt_p *p = &stub_procs[0];
	/* 1000 queued: 1000/4 + 1 = 251 -> capped at 128. */
	glob_fill(1000);
	cr_assert_eq(idx(glob_get(p, 0)), 0);
	cr_assert_eq(wt_runq_len(p), WT_RUNQ_SIZE / 2 - 1);
	cr_assert_eq(atomic_load(&wt_sched.runq_size), 1000 - WT_RUNQ_SIZE / 2);
	/* Fill p to 251 queued: room 5 -> batch of 6 (1 returned + 5 queued),
	 * without spilling (which would retake sched.lock). */
	while (wt_runq_len(p) < WT_RUNQ_SIZE - 5)
		wt_runq_put(p, &tasks[1000], false);
	int before = atomic_load(&wt_sched.runq_size);
	cr_assert_eq(idx(glob_get(p, 0)), WT_RUNQ_SIZE / 2);
	cr_assert_eq(wt_runq_len(p), WT_RUNQ_SIZE);
	cr_assert_eq(atomic_load(&wt_sched.runq_size), before - 6);
	/* Full ring: room 0 -> just the one returned. */
	cr_assert_eq(idx(glob_get(p, 0)), WT_RUNQ_SIZE / 2 + 6);
	cr_assert_eq(wt_runq_len(p), WT_RUNQ_SIZE);
	cr_assert_eq(atomic_load(&wt_sched.runq_size), before - 7);
}

/* ---- concurrent: one owner, two thieves, every task seen exactly once ---- */

#define CTOTAL 1000000
#define CPOOL 8192

static struct wt_task *pool;           /* reused after its consumer frees it */
static _Atomic unsigned char *seen;    /* per push sequence number */
static _Atomic long nseen;
static _Atomic int dupes, bad;

static void consume(struct wt_task *t)
{
	uint64_t seq = t->id;
	if (seq >= CTOTAL || atomic_load_explicit(&t->state, memory_order_relaxed) != 1) {
		atomic_fetch_add(&bad, 1);
		return;
	}
	if (atomic_fetch_add(&seen[seq], 1) != 0)
		atomic_fetch_add(&dupes, 1);
	/* Release: the owner may push this struct again with a new seq. */
	atomic_store_explicit(&t->state, 0, memory_order_release);
	atomic_fetch_add(&nseen, 1);
}

static bool drain_global(struct wt_p *p)
{
	if (!atomic_load(&wt_sched.runq_size))
		return false;
	wt_lock(&wt_sched.lock);
	struct wt_task *t = wt_globrunq_get(p, 0);
	wt_unlock(&wt_sched.lock);
	if (!t)
		return false;
	consume(t);
	while ((t = wt_runq_get(p)))
		consume(t);
	return true;
}

static void *owner_main(void *arg)
{
	struct wt_p *p = arg;
	unsigned r = 12345;
	for (uint64_t seq = 0; seq < CTOTAL; seq++) {
		struct wt_task *t = &pool[seq % CPOOL];
		/* Acquire: pairs with consume's release. */
		while (atomic_load_explicit(&t->state, memory_order_acquire) != 0) {
			struct wt_task *u = wt_runq_get(p);
			if (u)
				consume(u);
			else if (!drain_global(p))
				sched_yield();
		}
		/* Past 64 queued, mostly take one back (racing the thieves'
		 * steals) before pushing; in bursts, overflow into the global
		 * queue. */
		r = r * 1103515245 + 12345;
		bool burst = seq % 20000 < 1000;
		while (!burst && wt_runq_len(p) >= 64 && (r >> 16) % 32 != 0) {
			struct wt_task *u = wt_runq_get(p);
			if (u)
				consume(u);
			r = r * 1103515245 + 12345;
		}
		t->id = seq;
		atomic_store_explicit(&t->state, 1, memory_order_relaxed);
		r = r * 1103515245 + 12345;
		wt_runq_put(p, t, (r >> 16) % 8 == 0);
		if ((r >> 20) % 4 == 0) {
			struct wt_task *u = wt_runq_get(p);
			if (u)
				consume(u);
		}
	}
	while (atomic_load(&nseen) < CTOTAL) {
		struct wt_task *u = wt_runq_get(p);
		if (u)
			consume(u);
		else if (!drain_global(p))
			sched_yield();
	}
	return NULL;
}

struct thief {
	struct wt_p *p, *victim, *other;
};

static void *thief_main(void *arg)
{
	struct thief *th = arg;
	unsigned tries = 0;
	while (atomic_load(&nseen) < CTOTAL) {
		struct wt_task *t;
		/* Steal only with an empty ring, as the scheduler does. */
		while ((t = wt_runq_get(th->p)))
			consume(t);
		tries++;
		t = wt_runq_steal(th->p, th->victim, tries % 4 == 0);
		if (!t && tries % 3 == 0)
			t = wt_runq_steal(th->p, th->other, true);
		if (t) {
			consume(t);
			continue;
		}
		if (!drain_global(th->p))
			for (int i = 0; i < 64; i++)
				wt_arch_pause();
	}
	return NULL;
}

/* Three spinning threads and a million tasks: about 1 s plain, but 15 s
 * under ThreadSanitizer on two CPUs shared with other work, where a 15 s
 * limit timed out 3 runs in 4.  The limit is for a hang. */
Test(runq, concurrent_owner_and_two_thieves, .timeout = 90)
{
	pool = calloc(CPOOL, sizeof *pool);
	seen = calloc(CTOTAL, 1);
	cr_assert(pool && seen);
	for (int i = 0; i < CPOOL; i++)
		pool[i].timer.idx = -1;
	struct wt_p *owner = &stub_procs[0];
	owner->status = 1;
	struct thief th[2] = {
		{ &stub_procs[1], owner, &stub_procs[2] },
		{ &stub_procs[2], owner, &stub_procs[1] },
	};
	pthread_t to, tt[2];
	pthread_create(&to, NULL, owner_main, owner);
	for (int i = 0; i < 2; i++)
		pthread_create(&tt[i], NULL, thief_main, &th[i]);
	pthread_join(to, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(tt[i], NULL);
	cr_assert_eq(atomic_load(&bad), 0, "a consumer got a task that was not queued");
	cr_assert_eq(atomic_load(&dupes), 0, "%d tasks seen twice", atomic_load(&dupes));
	cr_assert_eq(atomic_load(&nseen), CTOTAL);
	for (long i = 0; i < CTOTAL; i++)
		if (seen[i] != 1)
			cr_assert_fail("task %ld seen %d times", i, seen[i]);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(wt_runq_len(&stub_procs[i]), 0);
	cr_assert_eq(atomic_load(&wt_sched.runq_size), 0);
	free(pool);
	free((void *)seen);
}
