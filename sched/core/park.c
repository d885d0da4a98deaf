/*
 * park.c — the parking lot: wait queues keyed by address.
 *
 * Every blocking object of the program (mutex, condvar, rwlock, barrier,
 * semaphore, join) keeps only a word or two of state inside its own
 * pthread_*_t; waiters queue here, in a bucket chosen by hashing the
 * address, as WebKit's ParkingLot and the kernel's futex table do.  Nothing
 * needs an init call, so static initialisers just work.
 *
 * Protocol (no lost wake-ups):
 *   waiter: lock bucket; validate(addr) re-checks the object's word; enqueue;
 *           a task switches out and its worker's g0 unlocks the bucket; an OS
 *           thread unlocks and sleeps on its waiter's futex word.
 *   waker:  changes the object's word first, then locks the bucket, dequeues,
 *           sets state = 1 and makes the waiter runnable.
 * A waker that changed the word before the waiter's validate is seen by
 * validate; one that changed it after waits for the bucket lock, and so finds
 * the waiter queued.
 *
 * Order: a waiter with a real-time priority (its task's SCHED_FIFO or
 * SCHED_RR priority as it queues, not one lent by priority inheritance: the
 * kernel's futex queue is ordered the same way) goes in front of the first
 * waiter on the same address with a lower one; any other is queued last.
 * So a wake takes the highest priority first, FIFO within a priority, and
 * SCHED_OTHER waiters in arrival order behind every real-time one, as
 * POSIX asks of the Process Scheduling option.  Waiters on other addresses
 * that share the bucket keep their places.  A program with no real-time
 * task pays one load of its task's priority per park: the walk is taken
 * only by a real-time waiter.
 *
 * A task that parks inside a call bracketed by wt_entersyscall (weft's
 * connect calls libc's, which is another library's wrapper that sleeps in
 * usleep, weft's; a handler that interrupted such a call) owns no proc: it
 * waits as an OS thread does, on its waiter's word, and a handler's signal
 * or a cancel ends that wait as WT_PARK_INTR.  Not a task in an implicit
 * call (io/syscall.c: m->implicit): its switch out is what settles the proc
 * it lost (wt_mcall -> wt_implicit_switch_out); waiting on the thread
 * there crashed or hung signal_parked about one run in four.  Switching out there left the
 * task queued behind a worker that never came back for it: GLib's
 * gsocketclient-slow, whose preload slows connect that way, hung 7 runs in
 * 10 under weft.
 *
 * A waiter leaves the queue exactly once, under the bucket lock, by one of:
 * a waker (result WOKEN), its deadline (TIMEDOUT) or pthread_cancel
 * (CANCELED).  The task's timer callback takes the bucket lock, so it cannot
 * see a task that has not finished switching out.
 */
#include <errno.h>
#include <time.h>

#include "runtime.h"
#include "base/real.h"
#include "hooks.h"
#include "proc.h"
#include "signal/sighandler.h"
#include "signal/sigtask.h"
#include "task.h"

#define NBUCKETS 4096

struct bucket {
	wt_spin_t lock;
	struct wt_waiter *head, *tail;  /* [bucket lock] by priority, then FIFO */
} __attribute__((aligned(64)));

static struct bucket buckets[NBUCKETS] WT_BSS_LARGE;
/* The buckets ever used (bit i: buckets[i]), set before a bucket's lock is
 * first taken and never cleared: a fork child resets those alone, instead
 * of reading all 256 KiB (most of it never touched, a page fault a page
 * in the child).  [atomic] */
static _Atomic uint64_t used[NBUCKETS / 64];

static struct bucket *bucket_of(const void *addr)
{
	uint64_t h = ((uintptr_t)addr >> 2) * 0x9e3779b97f4a7c15ull;
	unsigned i = (unsigned)(h >> (64 - 12));
	uint64_t bit = 1ull << (i & 63);
	/* seq_cst: the bucket's lock, taken after, is not seen before it. */
	if (unlikely(!(atomic_load_explicit(&used[i / 64], memory_order_relaxed) & bit)))
		atomic_fetch_or(&used[i / 64], bit);
	return &buckets[i];
}

/* A word only bucket-locked code writes moves by d: no locked instruction. */
static void word_add(_Atomic unsigned *w, int d)
{
	atomic_store_explicit(w, atomic_load_explicit(w, memory_order_relaxed) + (unsigned)d,
			      memory_order_relaxed);
}

/* A counted key's count (park.h) moves by d.  [the key's bucket lock] */
static void count_add(const void *key, int d)
{
	word_add((_Atomic unsigned *)key + 1, d);
}

/* Queues w on b: behind every waiter on its address of its own priority or
 * higher, otherwise last.  [b->lock held] */
static void enqueue(struct bucket *b, struct wt_waiter *w)
{
	if (unlikely(w->prio)) {
		struct wt_waiter **pp = &b->head;
		for (; *pp; pp = &(*pp)->next)
			if ((*pp)->addr == w->addr && (*pp)->prio < w->prio) {
				w->next = *pp;
				*pp = w;
				return;
			}
	}
	if (b->tail)
		b->tail->next = w;
	else
		b->head = w;
	b->tail = w;
}

/* w leaves the queue: [b->lock held] */
static void dequeued(struct wt_waiter *w)
{
	w->next = NULL;
	if (w->counted)
		count_add(w->addr, -1);
}

/* [b->lock held] */
static void unlink_waiter(struct bucket *b, struct wt_waiter *w)
{
	struct wt_waiter **pp = &b->head, *prev = NULL;
	for (; *pp; prev = *pp, pp = &(*pp)->next) {
		if (*pp == w) {
			*pp = w->next;
			if (b->tail == w)
				b->tail = prev;
			dequeued(w);
			return;
		}
	}
}

/* Timer callback: the deadline of a parked task passed.  Runs on a g0 or
 * sysmon; takes the bucket lock. */
static void park_timeout(struct wt_timer *tm, struct wt_m *m)
{
	struct wt_task *t = (struct wt_task *)((char *)tm - offsetof(struct wt_task, timer));
	struct wt_waiter *w = &t->waiter;
	struct bucket *b = bucket_of(w->addr);
	bool fire = false;

	wt_spin_lock(&b->lock);
	if (atomic_load_explicit(&w->state, memory_order_relaxed) == WT_WAITER_WAITING) {
		unlink_waiter(b, w);
		w->result = WT_PARK_TIMEDOUT;
		atomic_store_explicit(&w->state, WT_WAITER_WOKEN, memory_order_relaxed);
		fire = true;
	}
	wt_spin_unlock(&b->lock);
	if (fire)
		wt_ready_m(t, m);
}


/* What a park does besides queueing on addr (wt_park, wt_park_release,
 * wt_park_counted). */
struct how {
	bool (*validate)(const void *, uintptr_t);
	uintptr_t arg;
	int64_t deadline;             /* mono ns or -1 */
	bool cancelable;
	/* addr is a counted key: the caller counted itself in (release NULL),
	 * or the park counts it in as it queues (release set). */
	bool counted;
	wt_park_release_fn release;   /* see wt_park_release */
	void *release_arg;
};

/* A park that ends without queueing: out of the count again, or the
 * caller's lock released.  b is locked (and unlocked here) or NULL. */
static int not_parked(struct bucket *b, const void *addr, const struct how *h, int result)
{
	if (h->counted && !h->release) {
		if (!b) {
			b = bucket_of(addr);
			wt_spin_lock(&b->lock);
		}
		count_add(addr, -1);
	}
	if (b)
		wt_spin_unlock(&b->lock);
	if (h->release)
		h->release(NULL, h->release_arg);
	return result;
}

static int park(const void *addr, const struct how *h)
{
	struct wt_task *self = wt_cur();
	/* A task inside a call bracketed by wt_entersyscall owns no proc to
	 * switch on: sysmon may have handed its worker's proc to another
	 * worker.  It parks here when the libc function weft called is
	 * another library's wrapper that calls back into weft (a preload's
	 * connect that sleeps in usleep, then calls the next connect), or
	 * from a handler that interrupted such a call.  Its worker waits as
	 * an OS thread weft did not create does, and the bracket's end
	 * settles the proc (io/syscall.c). */
	struct wt_task *t = self;
	if (self && self->m && self->m->insyscall &&
	    !atomic_load_explicit(&self->m->implicit, memory_order_relaxed))
		t = NULL; /* an implicit call's worker switches out (io/syscall.c) */
	unsigned handled = self ? wt_sig_handler_runs(self) : 0;
	struct wt_waiter local, *w = t ? &t->waiter : &local;
	struct bucket *b = bucket_of(addr);
	int64_t deadline = h->deadline;

	/* For the dump (sched/observe/dump.c): the coarse clock is a vDSO read of the
	 * kernel's tick time, a few ns, so every park can afford it.  Read
	 * before the lock (libc code under a weft lock would let a program's
	 * signal handler run there, sched/signal/sighandler.c) and before the waiter
	 * is filled in (such a handler may park, with the same record). */
	struct timespec now;
	if (t)
		wt_clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	/* A cancel ends a nested wait as a signal would (WT_PARK_INTR): the
	 * bracketed call around it is the cancellation point that acts, once
	 * its bracket is closed (shim.h: CANCELABLE).  The deadline's clock
	 * read is libc's too: before the record is filled in, as above. */
	if (h->cancelable && self && wt_cancel_pending(self))
		return not_parked(NULL, addr, h, t ? WT_PARK_CANCELED : WT_PARK_INTR);
	if (deadline >= 0 && deadline <= wt_nanotime())
		return not_parked(NULL, addr, h, WT_PARK_TIMEDOUT);
	w->next = NULL;
	w->task = t;
	w->result = WT_PARK_WOKEN;
	w->token = 0;
	w->cancelable = h->cancelable;
	w->counted = h->counted;
	w->prio = t ? atomic_load_explicit(&t->rtprio, memory_order_relaxed) : 0;
	atomic_store_explicit(&w->state, WT_WAITER_WAITING, memory_order_relaxed);
	w->addr = addr;

	wt_spin_lock(&b->lock);
	if (h->validate && !h->validate(addr, h->arg))
		return not_parked(b, addr, h, WT_PARK_INVALID);
	/* Dekker pair with wt_park_cancel, which writes cancel, then reads
	 * addr: we wrote addr, took the lock (an atomic RMW), now read cancel. */
	wt_mb_after_rmw();
	if (h->cancelable && t && wt_cancel_pending(t))
		return not_parked(b, addr, h, WT_PARK_CANCELED);
	/* The same pair with wt_sig_send, which sets sigpend, then (a fence)
	 * reads addr: a signal sent before this check is seen here;
	 * one sent after finds the waiter queued (wt_park_interrupt). */
	if (t && ((atomic_load_explicit(&t->sigpend, memory_order_relaxed) & ~t->sigmask) ||
		  wt_sig_proc_for(t))) {
		not_parked(b, addr, h, WT_PARK_INTR);
		/* Its handlers run now, as they would have as it resumed: a
		 * caller that waits again would otherwise come back here until
		 * something else raised them (a poke that found this thread in
		 * weft put the signal back in sigpend). */
		wt_sig_deliver(t);
		return WT_PARK_INTR;
	}
	enqueue(b, w);
	if (h->counted && h->release)
		count_add(addr, 1);

	if (t) {
		t->wait_since = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
		t->wait_on = addr;
		if (deadline >= 0) {
			t->timer.fn = park_timeout;
			wt_timer_add(&t->timer, deadline);
		}
		/* The task's signals wait until this park is over: a handler
		 * that parks (sleeps, posts, locks) reuses t->waiter and
		 * t->timer, and must not find this wait's still in use. */
		t->sig_hold = true;
		int64_t b0 = wt_bprof_begin(); /* the block profile: 0 when off */
		/* Returns once woken; lock released, then release run. */
		wt_park_commit(&b->lock, h->release, h->release_arg);
		if (unlikely(b0))
			wt_bprof_waited(b0);
		if (deadline >= 0)
			wt_timer_del(&t->timer);
		t->wait_on = NULL;
		int result = w->result;
		t->sig_hold = false;
		atomic_signal_fence(memory_order_seq_cst);
		/* The handlers, now that the wait is over: the task's own, and
		 * those that interrupted weft on its worker meanwhile. */
		if (atomic_load_explicit(&t->sigpend, memory_order_relaxed) || wt_sig_proc_for(t) ||
		    (t->m && atomic_load_explicit(&t->m->defer_ready, memory_order_relaxed)))
			wt_sig_defer_run(t->m);
		return result;
	}

	/* An OS thread that is not a task: sleep on the waiter's own word. */
	wt_spin_unlock(&b->lock);
	if (h->release)
		h->release(NULL, h->release_arg); /* a wake meanwhile is seen below */
	struct timespec ts, *tsp = NULL;
	if (deadline >= 0) {
		ts.tv_sec = deadline / 1000000000;
		ts.tv_nsec = deadline % 1000000000;
		tsp = &ts;
	}
	for (;;) {
		/* Acquire: pairs with the release store by the waker. */
		if (atomic_load_explicit(&w->state, memory_order_acquire))
			return w->result;
		long r = wt_futex_wait_sigok(&w->state, WT_WAITER_WAITING, tsp); /* bucket unlocked */
		int why = 0;
		if (r == -ETIMEDOUT)
			why = WT_PARK_TIMEDOUT;
		/* A task waiting here (inside a bracketed call): a signal for
		 * it pokes this thread and runs its handler (signal/sigtask.c), and
		 * pthread_cancel signals the thread (preempt.c); either ends
		 * the wait as a handler ends a parked task's. */
		else if (r == -EINTR && self &&
			 ((h->cancelable && wt_cancel_pending(self)) ||
			  wt_sig_handler_runs(self) != handled))
			why = WT_PARK_INTR;
		if (why) {
			wt_spin_lock(&b->lock);
			if (atomic_load_explicit(&w->state, memory_order_relaxed) == WT_WAITER_WAITING) {
				unlink_waiter(b, w);
				w->result = why;
				atomic_store_explicit(&w->state, WT_WAITER_WOKEN, memory_order_relaxed);
			}
			wt_spin_unlock(&b->lock);
		}
	}
}

static int unpark(const void *addr, int n, uintptr_t token, bool g0, struct wt_m *m,
		  struct wt_task **collect, bool bump)
{
	struct bucket *b = bucket_of(addr);
	struct wt_task *wake = NULL, **tail = &wake;
	int count = 0;

	wt_spin_lock(&b->lock);
	if (bump)
		word_add((_Atomic unsigned *)addr, 1);
	struct wt_waiter **pp = &b->head, *prev = NULL;
	while (*pp && count < n) {
		struct wt_waiter *w = *pp;
		if (w->addr != addr) {
			prev = w;
			pp = &w->next;
			continue;
		}
		*pp = w->next;
		if (b->tail == w)
			b->tail = prev;
		dequeued(w);
		w->result = WT_PARK_WOKEN;
		w->token = token;
		count++;
		if (w->task) {
			atomic_store_explicit(&w->state, WT_WAITER_WOKEN, memory_order_relaxed);
			w->task->schedlink = NULL;
			*tail = w->task;
			tail = &w->task->schedlink;
		} else {
			/* Release: pairs with the waiter's acquire load.  The waiter
			 * may return at once; a wake of its dead stack word is a
			 * harmless spurious wake-up for whoever reuses it. */
			atomic_store_explicit(&w->state, WT_WAITER_WOKEN, memory_order_release);
			wt_futex_wake(&w->state, 1, false);
		}
	}
	wt_spin_unlock(&b->lock);
	if (collect) {
		*tail = *collect; /* the caller readies them */
		*collect = wake;
		return count;
	}
	while (wake) {
		struct wt_task *t = wake;
		wake = t->schedlink;
		if (g0)
			wt_ready_m(t, m);
		else
			wt_ready(t);
	}
	return count;
}

int wt_unpark_token(const void *addr, int n, uintptr_t token)
{
	return unpark(addr, n, token, false, NULL, NULL, false);
}

int wt_unpark_bump(const void *key, int n)
{
	return unpark(key, n, 0, false, NULL, NULL, true);
}

int wt_unpark(const void *addr, int n)
{
	return unpark(addr, n, 0, false, NULL, NULL, false);
}

/* The same, from m's g0 (or sysmon with m NULL). */
int wt_unpark_g0(const void *addr, int n, struct wt_m *m)
{
	return unpark(addr, n, 0, true, m, NULL, false);
}

/* Takes up to n waiters off addr's queue and pushes them on *list (linked
 * by schedlink, still WAITING): the caller readies them (wt_inject). */
int wt_unpark_collect(const void *addr, int n, struct wt_task **list)
{
	return unpark(addr, n, 0, true, NULL, list, false);
}

bool wt_park_has_waiters(const void *addr)
{
	struct bucket *b = bucket_of(addr);
	bool any = false;
	wt_spin_lock(&b->lock);
	for (struct wt_waiter *w = b->head; w; w = w->next)
		if (w->addr == addr) {
			any = true;
			break;
		}
	wt_spin_unlock(&b->lock);
	return any;
}

/* Takes t out of its wait, if it is in one, with `result`. */
static bool interrupt(struct wt_task *t, int result, bool only_cancelable)
{
	struct wt_waiter *w = &t->waiter;
	atomic_thread_fence(memory_order_seq_cst);
	const void *addr = w->addr;
	if (!addr)
		return false;
	struct bucket *b = bucket_of(addr);
	bool fire = false;
	wt_spin_lock(&b->lock);
	if (w->addr == addr && atomic_load_explicit(&w->state, memory_order_relaxed) == WT_WAITER_WAITING &&
	    w->task == t && (w->cancelable || !only_cancelable)) {
		for (struct wt_waiter *q = b->head; q; q = q->next)
			if (q == w) {
				unlink_waiter(b, w);
				w->result = result;
				atomic_store_explicit(&w->state, WT_WAITER_WOKEN, memory_order_relaxed);
				fire = true;
				break;
			}
	}
	wt_spin_unlock(&b->lock);
	if (fire)
		wt_ready(t);
	return fire;
}

/* Context: the context that follows t's park on its worker (proc.c's
 * after_park, m->after), holding the bucket lock t parked under, t's
 * context saved.  A signal t does not block, queued on t by a handler that
 * interrupted t's own switch out (signal/sighandler.c), came after park's look at
 * sigpend: t leaves the queue with WT_PARK_INTR, as wt_park_interrupt
 * would take it out.  true: t is the caller's to ready once the lock is
 * released. */
bool wt_park_intr_locked(struct wt_task *t)
{
	struct wt_waiter *w = &t->waiter;
	if (!(atomic_load_explicit(&t->sigpend, memory_order_relaxed) & ~t->sigmask) ||
	    !w->addr || w->task != t ||
	    atomic_load_explicit(&w->state, memory_order_relaxed) != WT_WAITER_WAITING)
		return false;
	struct bucket *b = bucket_of(w->addr);
	for (struct wt_waiter *q = b->head; q; q = q->next)
		if (q == w) {
			unlink_waiter(b, w);
			w->result = WT_PARK_INTR;
			atomic_store_explicit(&w->state, WT_WAITER_WOKEN, memory_order_relaxed);
			return true;
		}
	return false;
}

/* pthread_cancel: take t out of a cancelable wait.  The caller has set
 * WT_CANCEL_REQ (seq_cst) before; see the Dekker note in wt_park. */
void wt_park_cancel(struct wt_task *t)
{
	interrupt(t, WT_PARK_CANCELED, true);
}

/* A signal t does not block was queued on t (signal/sigtask.c: wt_sig_send): end
 * whatever wait t is in; it runs the handler as it resumes, and the waiting
 * call acts as natively after a handler (a condvar or mutex wait goes on, a
 * sleep or sem_wait returns EINTR). */
bool wt_park_interrupt(struct wt_task *t)
{
	return interrupt(t, WT_PARK_INTR, false);
}

/* Fork child (process/fork.c): the other tasks are gone, so are their waiter records
 * and the threads that held bucket locks.  Reads first, so untouched buckets
 * stay shared with the parent. */
void wt_park_fork_reset(void)
{
	for (int w = 0; w < NBUCKETS / 64; w++) {
		for (uint64_t u = atomic_load_explicit(&used[w], memory_order_relaxed); u; u &= u - 1) {
			struct bucket *b = &buckets[w * 64 + __builtin_ctzll(u)];
			if (b->head || b->tail || atomic_load_explicit(&b->lock.v, memory_order_relaxed)) {
				b->head = b->tail = NULL;
				atomic_store_explicit(&b->lock.v, 0, memory_order_relaxed);
			}
		}
	}
}

/* The wait reason a caller named (wt_wait_reason) holds for this one park,
 * whatever its outcome. */
static int park_named(const void *addr, const struct how *h)
{
	int r = park(addr, h);
	struct wt_task *t = wt_cur();
	if (t)
		t->wait_reason = NULL;
	return r;
}

int wt_park(const void *addr, bool (*validate)(const void *, uintptr_t), uintptr_t arg,
	    int64_t deadline, bool cancelable)
{
	return park_named(addr, &(struct how){ .validate = validate, .arg = arg,
					       .deadline = deadline, .cancelable = cancelable });
}

int wt_park_release(const void *key, int64_t deadline, bool cancelable,
		    wt_park_release_fn release, void *arg)
{
	return park_named(key, &(struct how){ .deadline = deadline, .cancelable = cancelable,
					      .counted = true, .release = release,
					      .release_arg = arg });
}

unsigned wt_park_count_in(const void *key)
{
	struct bucket *b = bucket_of(key);
	wt_spin_lock(&b->lock);
	count_add(key, 1);
	unsigned seq = atomic_load_explicit((_Atomic unsigned *)key, memory_order_relaxed);
	wt_spin_unlock(&b->lock);
	return seq;
}

void wt_park_count_out(const void *key)
{
	struct bucket *b = bucket_of(key);
	wt_spin_lock(&b->lock);
	count_add(key, -1);
	wt_spin_unlock(&b->lock);
}

bool wt_seq_unchanged(const void *key, uintptr_t seq)
{
	return atomic_load_explicit((_Atomic unsigned *)key, memory_order_relaxed) == (unsigned)seq;
}

int wt_park_counted(const void *key, unsigned seq, int64_t deadline, bool cancelable)
{
	return park_named(key, &(struct how){ .validate = wt_seq_unchanged, .arg = seq,
					      .deadline = deadline, .cancelable = cancelable,
					      .counted = true });
}

/* Context: the task t itself, resuming (its worker's m->after, before t's
 * park returns).  t is back from a counted park it was woken from, its
 * wait record still up, with no signal of its own to run: what follows
 * in t is the waiting call's own code (wt_mutex_release). */
bool wt_park_woken_counted(struct wt_task *t)
{
	return t->wait_on && t->waiter.counted &&
	       atomic_load_explicit(&t->waiter.state, memory_order_relaxed) == WT_WAITER_WOKEN &&
	       !(atomic_load_explicit(&t->sigpend, memory_order_relaxed) & ~t->sigmask) &&
	       !wt_sig_proc_for(t);
}

/* A sleep: parks the current task until deadline (mono ns) on a key nobody
 * wakes, its own timer (which observe/dump.c and observe/trace.c show as a sleep).
 * Cancelable.  Returns enum wt_park_result; WT_PARK_WOKEN is spurious.
 * Context: a task. */
int wt_park_sleep(int64_t deadline)
{
	return wt_park(&wt_cur()->timer, NULL, 0, deadline, true);
}
