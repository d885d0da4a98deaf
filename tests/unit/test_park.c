/*
 * test_park.c — the parking lot.  Most waiters are OS threads (wt_cur NULL):
 * they sleep on their waiter's futex word, the path threads weft did not
 * create take.  The task-mode tests set wt_cur_tls to a fake task; the stub
 * wt_park_commit then blocks the thread until wt_ready (no context switch).
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "stubs.h"

static void setup(void)
{
	stub_reset(2);
}

TestSuite(park, .init = setup);

/* ---- helpers ---- */

static _Atomic int arrivals;      /* validate calls that let a waiter queue */
static _Atomic int nwoken;
/* Arrival index + 1 of each returning waiter, in return order; 0 until
 * written.  A slot is claimed (nwoken) before it is written, so a reader
 * waits for both (c_woken). */
static _Atomic int wake_order[64];

struct waiter {
	const void *addr;
	int64_t deadline;
	bool cancelable;
	struct wt_task *task;     /* non-NULL: task mode */
	int arrival;
	int result;
	uintptr_t token;
	pthread_t th;
};

/* Runs under the bucket lock right before the waiter is queued, so the
 * arrival order is the queue order. */
static bool v_arrive(const void *addr, uintptr_t arg)
{
	struct waiter *w = (struct waiter *)arg;
	if (w->addr != addr)
		return false;
	w->arrival = atomic_fetch_add(&arrivals, 1);
	return true;
}

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	wt_cur_tls = w->task;
	w->result = wt_park(w->addr, v_arrive, (uintptr_t)w, w->deadline, w->cancelable);
	if (w->task)
		w->token = w->task->waiter.token;
	atomic_store(&wake_order[atomic_fetch_add(&nwoken, 1)], w->arrival + 1);
	return NULL;
}

static void start(struct waiter *w, const void *addr, int64_t deadline)
{
	w->addr = addr;
	w->deadline = deadline;
	w->arrival = -1;
	w->result = -1;
	cr_assert_eq(pthread_create(&w->th, NULL, waiter_main, w), 0);
}

static bool c_arrivals(void *n) { return atomic_load(&arrivals) >= *(int *)n; }
static bool c_woken(void *n)
{
	int k = *(int *)n;
	if (atomic_load(&nwoken) < k)
		return false;
	for (int i = 0; i < k; i++)
		if (!atomic_load(&wake_order[i]))
			return false;
	return true;
}

/* The arrival index of the i-th waiter to return. */
static int woke(int i)
{
	return atomic_load(&wake_order[i]) - 1;
}
static bool c_commits(void *n) { return atomic_load(&stub_commits) >= *(int *)n; }

static void wait_arrivals(int n)
{
	cr_assert(stub_wait_until(c_arrivals, &n), "only %d of %d waiters queued",
		  atomic_load(&arrivals), n);
}

static void wait_woken(int n)
{
	cr_assert(stub_wait_until(c_woken, &n), "only %d of %d waiters returned",
		  atomic_load(&nwoken), n);
}

static struct bucket_probe { int w[1 << 18]; } probe;

/* core/park.c's bucket hash (NBUCKETS 4096). */
static unsigned bucket_index(const void *addr)
{
	uint64_t h = ((uintptr_t)addr >> 2) * 0x9e3779b97f4a7c15ull;
	return (unsigned)(h >> (64 - 12));
}

/* Two distinct addresses that hash to the same bucket. */
static void same_bucket(int **a, int **b)
{
	*a = &probe.w[0];
	for (size_t i = 1; i < sizeof probe.w / sizeof probe.w[0]; i++)
		if (bucket_index(&probe.w[i]) == bucket_index(*a)) {
			*b = &probe.w[i];
			return;
		}
	cr_assert_fail("no bucket collision found");
}

/* ---- OS-thread waiters ---- */

static _Atomic int vcalls;
static bool v_false(const void *addr, uintptr_t arg)
{
	atomic_fetch_add(&vcalls, 1);
	return *(const int *)addr == (int)arg; /* arg never matches below */
}

Test(park, invalid_returns_without_sleeping)
{
	static int word = 5;
	int r = wt_park(&word, v_false, 4, -1, false);
	cr_assert_eq(r, WT_PARK_INVALID);
	cr_assert_eq(atomic_load(&vcalls), 1);
	cr_assert_not(wt_park_has_waiters(&word));
	cr_assert_eq(wt_unpark(&word, INT_MAX), 0);
	/* With a deadline too: validate still decides first. */
	r = wt_park(&word, v_false, 4, wt_nanotime() + 3600ll * 1000000000, false);
	cr_assert_eq(r, WT_PARK_INVALID);
	cr_assert_not(wt_park_has_waiters(&word));
}

Test(park, unpark_one_wakes_fifo, .timeout = 15)
{
	static int word;
	enum { K = 5 };
	struct waiter w[K];
	memset(w, 0, sizeof w);
	for (int i = 0; i < K; i++)
		start(&w[i], &word, -1);
	wait_arrivals(K);
	cr_assert(wt_park_has_waiters(&word));
	for (int i = 0; i < K; i++) {
		cr_assert_eq(wt_unpark(&word, 1), 1, "unpark #%d", i);
		wait_woken(i + 1);
		cr_assert_eq(woke(i), i, "wake #%d went to arrival %d", i, woke(i));
		cr_assert_eq(wt_park_has_waiters(&word), i < K - 1);
	}
	cr_assert_eq(atomic_load(&nwoken), K);
	cr_assert_eq(wt_unpark(&word, 1), 0);
	for (int i = 0; i < K; i++) {
		pthread_join(w[i].th, NULL);
		cr_assert_eq(w[i].result, WT_PARK_WOKEN);
	}
	cr_assert_eq(stub_ready_count(), 0, "OS-thread waiters never go through wt_ready");
}

Test(park, unpark_n_wakes_n_in_order, .timeout = 15)
{
	static int word;
	enum { K = 6 };
	struct waiter w[K];
	memset(w, 0, sizeof w);
	for (int i = 0; i < K; i++)
		start(&w[i], &word, -1);
	wait_arrivals(K);
	cr_assert_eq(wt_unpark(&word, 2), 2);
	wait_woken(2);
	/* The first two arrivals, in either return order. */
	cr_assert_eq(woke(0) + woke(1), 0 + 1);
	cr_assert(wt_park_has_waiters(&word));
	cr_assert_eq(wt_unpark(&word, INT_MAX), K - 2);
	wait_woken(K);
	cr_assert_not(wt_park_has_waiters(&word));
	cr_assert_eq(wt_unpark(&word, INT_MAX), 0);
	for (int i = 0; i < K; i++) {
		pthread_join(w[i].th, NULL);
		cr_assert_eq(w[i].result, WT_PARK_WOKEN);
	}
}

Test(park, unpark_all, .timeout = 15)
{
	static int word;
	enum { K = 8 };
	struct waiter w[K];
	memset(w, 0, sizeof w);
	for (int i = 0; i < K; i++)
		start(&w[i], &word, -1);
	wait_arrivals(K);
	cr_assert_eq(wt_unpark(&word, INT_MAX), K);
	for (int i = 0; i < K; i++) {
		pthread_join(w[i].th, NULL);
		cr_assert_eq(w[i].result, WT_PARK_WOKEN);
	}
	cr_assert_eq(atomic_load(&nwoken), K);
	cr_assert_not(wt_park_has_waiters(&word));
	cr_assert_eq(wt_unpark(&word, INT_MAX), 0);
}

Test(park, shared_bucket_addresses_are_distinct, .timeout = 15)
{
	int *a, *b;
	same_bucket(&a, &b);
	cr_assert_neq(a, b);
	struct waiter wa = { 0 }, wb = { 0 }, wc = { 0 };
	start(&wa, a, -1);
	wait_arrivals(1);
	start(&wb, b, -1);
	wait_arrivals(2);
	cr_assert(wt_park_has_waiters(a));
	cr_assert(wt_park_has_waiters(b));
	/* b's waiter is the bucket's tail, behind a's: unpark(b) skips a's. */
	cr_assert_eq(wt_unpark(b, INT_MAX), 1);
	pthread_join(wb.th, NULL);
	cr_assert_eq(wb.result, WT_PARK_WOKEN);
	cr_assert_eq(woke(0), 1);
	cr_assert(wt_park_has_waiters(a));
	cr_assert_not(wt_park_has_waiters(b));
	cr_assert_eq(wt_unpark(b, INT_MAX), 0);
	/* The tail moved back to a's waiter: a new waiter links after it. */
	start(&wc, b, -1);
	wait_arrivals(3);
	cr_assert(wt_park_has_waiters(b));
	cr_assert_eq(wt_unpark(a, INT_MAX), 1);
	pthread_join(wa.th, NULL);
	cr_assert_eq(wa.result, WT_PARK_WOKEN);
	cr_assert_not(wt_park_has_waiters(a));
	cr_assert(wt_park_has_waiters(b), "a's wake must not take b's waiter");
	cr_assert_eq(atomic_load(&nwoken), 2);
	cr_assert_eq(wt_unpark(b, 1), 1);
	pthread_join(wc.th, NULL);
	cr_assert_eq(wc.result, WT_PARK_WOKEN);
	cr_assert_not(wt_park_has_waiters(b));
}

static _Atomic int vcount;
static bool v_count(const void *addr, uintptr_t arg)
{
	atomic_fetch_add(&vcount, 1);
	return true;
}

Test(park, deadline_in_the_past)
{
	static int word;
	cr_assert_eq(wt_park(&word, v_count, 0, wt_nanotime() - 1, false), WT_PARK_TIMEDOUT);
	cr_assert_eq(wt_park(&word, v_count, 0, 0, false), WT_PARK_TIMEDOUT);
	cr_assert_eq(atomic_load(&vcount), 0, "an expired wait does not queue");
	cr_assert_not(wt_park_has_waiters(&word));
}

Test(park, deadline_ahead_times_out, .timeout = 10)
{
	static int word;
	int64_t deadline = wt_nanotime() + 50 * 1000000ll;
	cr_assert_eq(wt_park(&word, v_count, 0, deadline, false), WT_PARK_TIMEDOUT);
	cr_assert_eq(atomic_load(&vcount), 1);
	cr_assert_geq(wt_nanotime(), deadline, "returned before its deadline");
	cr_assert_not(wt_park_has_waiters(&word));
	cr_assert_eq(wt_unpark(&word, INT_MAX), 0);
}

Test(park, timeout_unlinks_only_itself_from_shared_bucket, .timeout = 10)
{
	int *a, *b;
	same_bucket(&a, &b);
	struct waiter wa = { 0 }, wb = { 0 };
	start(&wa, a, -1);
	wait_arrivals(1);
	/* The timed waiter (the bucket's tail) leaves; a's stays queued. */
	cr_assert_eq(wt_park(b, v_count, 0, wt_nanotime() + 50 * 1000000ll, false),
		     WT_PARK_TIMEDOUT);
	cr_assert(wt_park_has_waiters(a));
	cr_assert_not(wt_park_has_waiters(b));
	/* The bucket's tail is consistent again: a new waiter on b is found. */
	start(&wb, b, -1);
	wait_arrivals(2);
	cr_assert_eq(wt_unpark(b, INT_MAX), 1);
	pthread_join(wb.th, NULL);
	cr_assert_eq(wb.result, WT_PARK_WOKEN);
	cr_assert_eq(wt_unpark(a, INT_MAX), 1);
	pthread_join(wa.th, NULL);
	cr_assert_eq(wa.result, WT_PARK_WOKEN);
}

/* ---- task-mode waiters (simulated switch-out) ---- */

static struct wt_m fake_m;

static void wait_commits(int n)
{
	cr_assert(stub_wait_until(c_commits, &n), "task did not switch out");
}

Test(park, unpark_token_passes_token, .timeout = 10)
{
	static int word;
	static struct wt_task t;
	stub_task_init(&t, 2);
	t.m = &fake_m;
	struct waiter w = { .task = &t };
	start(&w, &word, -1);
	wait_arrivals(1);
	wait_commits(1);
	cr_assert_eq(atomic_load(&t.state), WT_WAITING);
	cr_assert_eq(wt_unpark_token(&word, 1, 0xfeedface), 1);
	pthread_join(w.th, NULL);
	cr_assert_eq(w.result, WT_PARK_WOKEN);
	cr_assert_eq(w.token, 0xfeedface);
	cr_assert_eq(stub_ready_count(), 1);
	/* Woken from a foreign thread (wt_cur NULL): wt_ready with no worker. */
	cr_assert_eq(stub_ready_get(0).t, &t);
	cr_assert_null(stub_ready_get(0).m);
	cr_assert_eq(t.timer.idx, -1);
	cr_assert_eq(wt_timer_count(), 0);
	/* A plain unpark passes token 0. */
	struct waiter w2 = { .task = &t };
	start(&w2, &word, -1);
	wait_commits(2);
	cr_assert_eq(wt_unpark(&word, 1), 1);
	pthread_join(w2.th, NULL);
	cr_assert_eq(w2.token, 0);
}

/* Real-time waiters go in front of lower priorities on their address,
 * FIFO within one; SCHED_OTHER ones (and OS threads) last, in arrival
 * order; a waiter on another address in the same bucket keeps its place. */
Test(park, real_time_waiters_wake_highest_priority_first, .timeout = 15)
{
	int *a, *b;
	same_bucket(&a, &b);
	enum { K = 7 };
	/* Arrival order; rtprio 0: SCHED_OTHER; -1: an OS thread. */
	static const int prio[K] = { 0, 5, -1, 20, 5, 10, 0 };
	static struct wt_task t[K];
	struct waiter w[K], other;
	memset(w, 0, sizeof w);
	memset(&other, 0, sizeof other);
	start(&other, b, -1);
	wait_arrivals(1);
	for (int i = 0; i < K; i++) {
		if (prio[i] >= 0) {
			stub_task_init(&t[i], 10 + i);
			atomic_store(&t[i].rtprio, prio[i]);
			w[i].task = &t[i];
		}
		start(&w[i], a, -1);
		wait_arrivals(i + 2);
	}
	/* Arrival index (other is 0): F20, F10, F5, F5, O, thread, O. */
	static const int want[K] = { 4, 6, 2, 5, 1, 3, 7 };
	for (int i = 0; i < K; i++) {
		cr_assert_eq(wt_unpark(a, 1), 1, "unpark #%d", i);
		wait_woken(i + 1);
		cr_assert_eq(woke(i), want[i], "wake #%d went to arrival %d", i, woke(i));
	}
	cr_assert_eq(wt_unpark(b, 1), 1);
	wait_woken(K + 1);
	cr_assert_eq(woke(K), 0);
	for (int i = 0; i < K; i++)
		pthread_join(w[i].th, NULL);
	pthread_join(other.th, NULL);
}

Test(park, unpark_g0_readies_on_its_worker, .timeout = 10)
{
	static int word;
	static struct wt_task t;
	stub_task_init(&t, 3);
	struct waiter w = { .task = &t };
	start(&w, &word, -1);
	wait_commits(1);
	cr_assert_eq(wt_unpark_g0(&word, 1, &fake_m), 1);
	pthread_join(w.th, NULL);
	cr_assert_eq(w.result, WT_PARK_WOKEN);
	cr_assert_eq(stub_ready_count(), 1);
	cr_assert_eq(stub_ready_get(0).t, &t);
	cr_assert_eq(stub_ready_get(0).m, &fake_m);
}

Test(park, task_deadline_fires_through_timer, .timeout = 10)
{
	static int word;
	static struct wt_task t;
	stub_task_init(&t, 4);
	int64_t deadline = wt_nanotime() + 3600ll * 1000000000;
	struct waiter w = { .task = &t };
	start(&w, &word, deadline);
	wait_commits(1);
	cr_assert_eq(wt_timer_count(), 1);
	cr_assert_eq(wt_timer_next(), deadline);
	cr_assert_eq(atomic_load(&stub_kicks), 1, "the earliest timer kicks sysmon");
	cr_assert_eq(wt_timer_run(deadline - 1, &fake_m), 0);
	cr_assert(wt_park_has_waiters(&word));
	cr_assert_eq(wt_timer_run(deadline, &fake_m), 1);
	pthread_join(w.th, NULL);
	cr_assert_eq(w.result, WT_PARK_TIMEDOUT);
	cr_assert_not(wt_park_has_waiters(&word));
	cr_assert_eq(stub_ready_count(), 1);
	cr_assert_eq(stub_ready_get(0).t, &t);
	cr_assert_eq(stub_ready_get(0).m, &fake_m);
	cr_assert_eq(wt_timer_count(), 0);
	cr_assert_eq(wt_timer_next(), INT64_MAX);
	cr_assert_eq(wt_unpark(&word, 1), 0, "a timed-out waiter is not woken again");
}

Test(park, task_woken_before_deadline_drops_its_timer, .timeout = 10)
{
	static int word;
	static struct wt_task t;
	stub_task_init(&t, 5);
	int64_t deadline = wt_nanotime() + 3600ll * 1000000000;
	struct waiter w = { .task = &t };
	start(&w, &word, deadline);
	wait_commits(1);
	cr_assert_eq(wt_timer_count(), 1);
	cr_assert_eq(wt_unpark(&word, 1), 1);
	pthread_join(w.th, NULL);
	cr_assert_eq(w.result, WT_PARK_WOKEN);
	cr_assert_eq(wt_timer_count(), 0);
	cr_assert_eq(t.timer.idx, -1);
	/* The deadline passing later fires nothing. */
	cr_assert_eq(wt_timer_run(deadline, &fake_m), 0);
	cr_assert_eq(stub_ready_count(), 1);
}

Test(park, cancel_takes_task_out_of_cancelable_wait, .timeout = 10)
{
	static int word;
	static struct wt_task t;
	stub_task_init(&t, 6);
	struct waiter w = { .task = &t, .cancelable = true };
	start(&w, &word, -1);
	wait_commits(1);
	atomic_store(&t.cancel, WT_CANCEL_REQ);
	wt_park_cancel(&t);
	pthread_join(w.th, NULL);
	cr_assert_eq(w.result, WT_PARK_CANCELED);
	cr_assert_not(wt_park_has_waiters(&word));
	cr_assert_eq(stub_ready_count(), 1);
	/* With the request pending, a new cancelable wait does not queue. */
	wt_cur_tls = &t;
	cr_assert_eq(wt_park(&word, v_count, 0, -1, true), WT_PARK_CANCELED);
	wt_cur_tls = NULL;
	cr_assert_not(wt_park_has_waiters(&word));
}

Test(park, cancel_ignores_non_cancelable_wait, .timeout = 10)
{
	static int word;
	static struct wt_task t;
	stub_task_init(&t, 7);
	struct waiter w = { .task = &t, .cancelable = false };
	start(&w, &word, -1);
	wait_commits(1);
	atomic_store(&t.cancel, WT_CANCEL_REQ);
	wt_park_cancel(&t);
	cr_assert(wt_park_has_waiters(&word));
	cr_assert_eq(stub_ready_count(), 0);
	cr_assert_eq(wt_unpark(&word, 1), 1);
	pthread_join(w.th, NULL);
	cr_assert_eq(w.result, WT_PARK_WOKEN);
}

/* ---- stress: lock-free hand-offs around a ring of 8 threads ---- */

#define SN 8
#define SROUNDS 10000
static struct {
	_Atomic int tokens;
	char pad[60];
} slot[SN];
static _Atomic int sdone;

static bool v_empty(const void *addr, uintptr_t arg)
{
	return atomic_load((_Atomic int *)addr) == 0;
}

static void *stress_main(void *arg)
{
	int i = (int)(intptr_t)arg, next = (i + 1) % SN;
	for (int k = 0; k < SROUNDS; k++) {
		for (;;) {
			int c = atomic_load(&slot[i].tokens);
			if (c > 0) {
				if (atomic_compare_exchange_weak(&slot[i].tokens, &c, c - 1))
					break;
				continue;
			}
			wt_park(&slot[i].tokens, v_empty, 0, -1, false);
		}
		atomic_fetch_add(&slot[next].tokens, 1);
		wt_unpark(&slot[next].tokens, 1);
	}
	atomic_fetch_add(&sdone, 1);
	return NULL;
}

Test(park, stress_handoff_ring_no_lost_wakeups, .timeout = 15)
{
	/* Three tokens circulate; each thread takes SROUNDS of them.  A lost
	 * wake-up leaves a thread asleep with a token: the test times out. */
	atomic_store(&slot[0].tokens, 1);
	atomic_store(&slot[3].tokens, 1);
	atomic_store(&slot[5].tokens, 1);
	pthread_t th[SN];
	for (int i = 0; i < SN; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, stress_main, (void *)(intptr_t)i), 0);
	for (int i = 0; i < SN; i++)
		pthread_join(th[i], NULL);
	cr_assert_eq(atomic_load(&sdone), SN);
	int total = 0;
	for (int i = 0; i < SN; i++) {
		total += atomic_load(&slot[i].tokens);
		cr_assert_not(wt_park_has_waiters(&slot[i].tokens));
	}
	cr_assert_eq(total, 3, "tokens are conserved");
}

/* ---- counted keys (a condition variable's seq and count) ---- */

struct counted { _Atomic unsigned seq, n; } __attribute__((aligned(8)));

/* What a park's release saw: its worker, and the key's queue and count
 * at that moment. */
struct release_seen {
	_Atomic int calls;
	struct wt_m *_Atomic m;         /* the last call's */
	_Atomic bool queued;
	_Atomic unsigned n;
};

static struct counted ckey;
static struct release_seen seen;

static void rel(struct wt_m *m, void *arg)
{
	struct release_seen *s = arg;
	s->m = m;
	s->queued = wt_park_has_waiters(&ckey.seq);
	s->n = atomic_load(&ckey.n);
	atomic_fetch_add(&s->calls, 1);
}

struct cwaiter {
	int64_t deadline;
	struct wt_task *task;
	int result;
	pthread_t th;
};

static void *cwaiter_main(void *arg)
{
	struct cwaiter *w = arg;
	wt_cur_tls = w->task;
	w->result = wt_park_release(&ckey.seq, w->deadline, false, rel, &seen);
	return NULL;
}

static bool c_count(void *n) { return atomic_load(&ckey.n) >= *(unsigned *)n; }
static bool c_calls(void *n) { return atomic_load(&seen.calls) >= *(int *)n; }

Test(park, counted_release_runs_once_queued_and_the_waker_counts_out, .timeout = 10)
{
	static struct wt_task t;
	stub_task_init(&t, 2);
	t.m = &fake_m;
	struct cwaiter w = { .deadline = -1, .task = &t };
	cr_assert_eq(pthread_create(&w.th, NULL, cwaiter_main, &w), 0);
	int one = 1;
	cr_assert(stub_wait_until(c_calls, &one), "release never ran");
	cr_assert(seen.queued, "release ran before the waiter was queued");
	cr_assert_eq(seen.n, 1, "counted in as it queued");
	cr_assert_eq(atomic_load(&t.state), WT_WAITING, "release ran before the switch out");
	cr_assert_eq(atomic_load(&ckey.seq), 0);
	cr_assert_eq(wt_unpark_bump(&ckey.seq, 1), 1);
	cr_assert_eq(atomic_load(&ckey.n), 0, "the waker counts the woken out");
	cr_assert_eq(atomic_load(&ckey.seq), 1, "the key moves on");
	pthread_join(w.th, NULL);
	cr_assert_eq(w.result, WT_PARK_WOKEN);
	cr_assert_eq(atomic_load(&seen.calls), 1);
	cr_assert_eq(stub_ready_get(0).t, &t);
}

Test(park, counted_release_runs_when_the_wait_never_queues)
{
	struct cwaiter w = { .deadline = wt_nanotime() - 1 };
	cwaiter_main(&w);
	cr_assert_eq(w.result, WT_PARK_TIMEDOUT);
	cr_assert_eq(atomic_load(&seen.calls), 1);
	cr_assert_null(seen.m, "run by the waiter itself");
	cr_assert_not(seen.queued);
	cr_assert_eq(atomic_load(&ckey.n), 0, "never counted in");
}

Test(park, counted_timeout_counts_out, .timeout = 10)
{
	struct cwaiter w = { .deadline = wt_nanotime() + 50 * 1000000ll };
	cwaiter_main(&w);
	cr_assert_eq(w.result, WT_PARK_TIMEDOUT);
	cr_assert_eq(atomic_load(&seen.calls), 1);
	cr_assert(seen.queued, "an OS thread releases after it queued");
	cr_assert_eq(seen.n, 1);
	cr_assert_eq(atomic_load(&ckey.n), 0, "the timeout counts it out");
	cr_assert_not(wt_park_has_waiters(&ckey.seq));
}

Test(park, counted_broadcast_counts_all_out, .timeout = 15)
{
	enum { K = 6 };
	struct cwaiter w[K];
	memset(w, 0, sizeof w);
	for (int i = 0; i < K; i++) {
		w[i].deadline = -1;
		cr_assert_eq(pthread_create(&w[i].th, NULL, cwaiter_main, &w[i]), 0);
	}
	unsigned k = K;
	cr_assert(stub_wait_until(c_count, &k), "only %u of %d counted in", atomic_load(&ckey.n), K);
	cr_assert_eq(wt_unpark_bump(&ckey.seq, INT_MAX), K);
	for (int i = 0; i < K; i++) {
		pthread_join(w[i].th, NULL);
		cr_assert_eq(w[i].result, WT_PARK_WOKEN);
	}
	cr_assert_eq(atomic_load(&ckey.n), 0);
	cr_assert_eq(atomic_load(&ckey.seq), 1);
	/* Nobody waits: the key still moves on, nobody is woken. */
	cr_assert_eq(wt_unpark_bump(&ckey.seq, 1), 0);
	cr_assert_eq(atomic_load(&ckey.seq), 2);
}

Test(park, counted_in_then_a_wake_before_the_park_is_not_lost)
{
	/* The caller that unlocks its own mutex: counted in, then a wake comes
	 * before it parks; the park sees the key moved and does not sleep. */
	unsigned s = wt_park_count_in(&ckey.seq);
	cr_assert_eq(atomic_load(&ckey.n), 1);
	cr_assert_eq(wt_unpark_bump(&ckey.seq, 1), 0);
	cr_assert_eq(wt_park_counted(&ckey.seq, s, -1, false), WT_PARK_INVALID);
	cr_assert_eq(atomic_load(&ckey.n), 0, "counted out as it returns");
	/* Counted in and out without a park (its unlock failed). */
	wt_park_count_in(&ckey.seq);
	wt_park_count_out(&ckey.seq);
	cr_assert_eq(atomic_load(&ckey.n), 0);
}

static void *counted_sleeper(void *arg)
{
	return (void *)(intptr_t)wt_park_counted(&ckey.seq, (unsigned)(uintptr_t)arg, -1, false);
}

static bool c_queued(void *arg)
{
	(void)arg;
	return wt_park_has_waiters(&ckey.seq);
}

Test(park, counted_park_sleeps_until_the_key_moves, .timeout = 10)
{
	unsigned s = wt_park_count_in(&ckey.seq);
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, counted_sleeper, (void *)(uintptr_t)s), 0);
	cr_assert(stub_wait_until(c_queued, NULL), "the counted waiter never queued");
	cr_assert_eq(atomic_load(&ckey.n), 1, "still counted once while queued");
	cr_assert_eq(wt_unpark_bump(&ckey.seq, 1), 1);
	void *r;
	pthread_join(th, &r);
	cr_assert_eq((intptr_t)r, WT_PARK_WOKEN);
	cr_assert_eq(atomic_load(&ckey.n), 0);
}
