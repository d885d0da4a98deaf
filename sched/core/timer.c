/*
 * timer.c — deadlines of parked tasks (sleep, timed waits).
 *
 * One binary min-heap under one lock.  Go keeps a heap per P to avoid this
 * lock on many-core machines; weft's timers are touched only by timed waits
 * and sleeps, and a single heap keeps "who fires the timer" simple:
 *   - any worker looking for work runs expired timers (wt_timer_run);
 *   - sysmon sleeps until the earliest deadline and runs them when every
 *     worker is busy or asleep; a task it readies while every proc is
 *     busy goes to a busy proc's runnext, whose running task gives way
 *     within about 1 ms (proc.c: wt_ready_busy), not to the global queue,
 *     where it would wait for a 10-15 ms slice to end.
 * A callback runs without the heap lock; wt_timer_del waits for a callback
 * in flight, so a task may reuse its timer as soon as del returns.
 *
 * The heap array is static for the first HEAP0 timers, so the first
 * sleep of a process whose memory is exhausted needs no mapping; beyond,
 * it is mmap'd and grows by doubling (never the program's malloc).  Lock order: a park bucket lock may be held while adding a timer
 * (bucket -> T.lock); callbacks take bucket locks with no timer lock.
 */
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "runtime.h"
#include "base/real.h"
#include "base/slab.h"
#include "sysmon.h"
#include "base/throw.h"

#define HEAP0 1024
static struct wt_timer *heap0[HEAP0] WT_BSS_LARGE; /* [T.lock] the heap until it outgrows it */

static struct {
	wt_lock_t lock;
	struct wt_timer **heap;   /* [T.lock] heap0, or a mapping of cap entries */
	int n, cap;               /* [T.lock] */
	_Atomic int64_t next;     /* [atomic] heap[0]->when or INT64_MAX, for cheap polling */
} T = { .lock = WT_LOCK_INIT(WT_RANK_TIMERS), .heap = heap0, .cap = HEAP0, .next = INT64_MAX };

int64_t wt_nanotime(void)
{
	struct timespec ts;
	wt_clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Converts an absolute deadline on clk to CLOCK_MONOTONIC ns.  A realtime
 * deadline is converted once; a later change of the wall clock does not move
 * it (documented in the README). */
int64_t wt_abs_to_mono(clockid_t clk, const struct timespec *abs)
{
	/* Clamp: a deadline before the epoch has passed (0, never the -1 that
	 * means "no deadline"); one past year 2262 is as good as never. */
	if (abs->tv_sec < 0)
		return 0;
	if (abs->tv_sec > INT64_MAX / 1000000000 - 1)
		return INT64_MAX / 2;
	int64_t d = (int64_t)abs->tv_sec * 1000000000 + abs->tv_nsec;
	if (clk == CLOCK_MONOTONIC)
		return d;
	struct timespec now;
	wt_clock_gettime(clk, &now);
	int64_t rel = d - ((int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
	return wt_nanotime() + (rel > 0 ? rel : 0);
}

static void swap(int i, int j)
{
	struct wt_timer *a = T.heap[i], *b = T.heap[j];
	T.heap[i] = b;
	T.heap[j] = a;
	b->idx = i;
	a->idx = j;
}

static void up(int i)
{
	while (i > 0) {
		int p = (i - 1) / 2;
		if (T.heap[p]->when <= T.heap[i]->when)
			break;
		swap(i, p);
		i = p;
	}
}

static void down(int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		if (l < T.n && T.heap[l]->when < T.heap[m]->when)
			m = l;
		if (r < T.n && T.heap[r]->when < T.heap[m]->when)
			m = r;
		if (m == i)
			return;
		swap(i, m);
		i = m;
	}
}

static void publish(void)
{
	atomic_store_explicit(&T.next, T.n ? T.heap[0]->when : INT64_MAX, memory_order_release);
}

static void remove_at(int i)
{
	struct wt_timer *t = T.heap[i];
	T.n--;
	if (i != T.n) {
		T.heap[i] = T.heap[T.n];
		T.heap[i]->idx = i;
		down(i);
		up(i);
	}
	t->idx = -1;
}

/* Context: any; takes T.lock.  May allocate (mmap) to grow the heap. */
void wt_timer_add(struct wt_timer *t, int64_t when)
{
	bool earliest;
	wt_lock(&T.lock);
	if (T.n == T.cap) {
		int cap = T.cap * 2;
		struct wt_timer **h = wt_mmap_anon(cap * sizeof *h);
		if (!h)
			wt_throw("out of memory growing the timer heap");
		memcpy(h, T.heap, T.n * sizeof *h);
		if (T.heap != heap0)
			wt_syscall6(SYS_munmap, (long)T.heap, T.cap * sizeof *h, 0, 0, 0, 0);
		T.heap = h;
		T.cap = cap;
	}
	t->when = when;
	t->idx = T.n;
	T.heap[T.n++] = t;
	up(t->idx);
	earliest = T.heap[0] == t;
	publish();
	wt_unlock(&T.lock);
	if (earliest)
		wt_sysmon_kick();
}

void wt_timer_del(struct wt_timer *t)
{
	wt_lock(&T.lock);
	if (t->idx >= 0) {
		remove_at(t->idx);
		publish();
	}
	wt_unlock(&T.lock);
	/* Acquire: pairs with the release store that ends the callback.  The
	 * callback may have readied this very task and then lost its CPU (sysmon
	 * runs callbacks too, a third thread on two CPUs): after a short spin,
	 * yield the CPU to it.  Spinning on alone, 4 tasks in usleep(1000)
	 * loops burned 0.8 s of CPU a second and slept 1.6 ms each. */
	for (int i = 0; atomic_load_explicit(&t->running, memory_order_acquire); i++) {
		if (i < 128)
			wt_arch_pause();
		else
			wt_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
	}
}

int64_t wt_timer_next(void)
{
	return atomic_load_explicit(&T.next, memory_order_acquire);
}

int wt_timer_count(void)
{
	return T.n;
}

/* Context: worker (g0) or sysmon; never a task.  Runs callbacks unlocked. */
int wt_timer_run(int64_t now, struct wt_m *m)
{
	int fired = 0;
	if (wt_timer_next() > now)
		return 0;
	for (;;) {
		wt_lock(&T.lock);
		if (T.n == 0 || T.heap[0]->when > now) {
			wt_unlock(&T.lock);
			return fired;
		}
		struct wt_timer *t = T.heap[0];
		remove_at(0);
		publish();
		atomic_store_explicit(&t->running, 1, memory_order_relaxed);
		wt_unlock(&T.lock);
		t->fn(t, m);
		atomic_store_explicit(&t->running, 0, memory_order_release);
		fired++;
	}
}

/* Fork child (process/fork.c): every timer belonged to a task that is gone (the
 * forking task waits on none).  A heap whose lock was held may be torn:
 * drop its array (a mapping leaks) rather than trust it. */
void wt_timer_fork_reset(void)
{
	if (atomic_load_explicit(&T.lock.v, memory_order_relaxed)) {
		T.heap = heap0;
		T.cap = HEAP0;
	}
	T.n = 0;
	atomic_store_explicit(&T.lock.v, 0, memory_order_relaxed);
	publish();
}
