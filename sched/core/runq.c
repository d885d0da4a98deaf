/*
 * runq.c — run queues: one lock-free ring per proc, one global list.
 *
 * The local ring is single-producer (the proc's owner pushes at tail) and
 * multi-consumer (the owner and thieves take from head with a CAS), as in
 * Go's runtime.  runnext holds the task most recently made ready by the
 * running task: a hand-off (unlock, signal, write to a pipe) then runs the
 * woken task next, on the same worker, with its caches warm.
 *
 * When the ring is full, half of it moves to the global queue in one batch
 * (runq_putslow), so a proc that spawns thousands of tasks spills work that
 * idle procs find without stealing one at a time.
 */
#include "runtime.h"
#include "rtq.h"
#include "runq.h"
#include "base/throw.h"

static inline struct wt_task *ld(struct wt_p *p, uint32_t i)
{
	return atomic_load_explicit(&p->q[i % WT_RUNQ_SIZE], memory_order_relaxed);
}

static inline void st(struct wt_p *p, uint32_t i, struct wt_task *t)
{
	atomic_store_explicit(&p->q[i % WT_RUNQ_SIZE], t, memory_order_relaxed);
}

uint32_t wt_runq_len(struct wt_p *p)
{
	uint32_t h = atomic_load_explicit(&p->head, memory_order_acquire);
	uint32_t t = atomic_load_explicit(&p->tail, memory_order_acquire);
	return t - h + (atomic_load_explicit(&p->runnext, memory_order_relaxed) != NULL);
}

/* A task with a real-time priority goes to the real-time queue instead
 * (rtq.c), from here and every put below. */
static inline bool rt_divert(struct wt_task *t)
{
	return unlikely(atomic_load_explicit(&t->eff, memory_order_relaxed)) && wt_rtq_put(t, false);
}

/* [sched.lock] */
void wt_globrunq_put(struct wt_task *t)
{
	if (rt_divert(t))
		return;
	t->schedlink = NULL;
	if (wt_sched.runq_tail)
		wt_sched.runq_tail->schedlink = t;
	else
		wt_sched.runq_head = t;
	wt_sched.runq_tail = t;
	atomic_fetch_add_explicit(&wt_sched.runq_size, 1, memory_order_relaxed);
}

/* At the head: a task back from a system call that lost its proc goes
 * before everything queued (io/syscall.c).  [sched.lock] */
void wt_globrunq_puthead(struct wt_task *t)
{
	if (rt_divert(t))
		return;
	t->schedlink = wt_sched.runq_head;
	wt_sched.runq_head = t;
	if (!wt_sched.runq_tail)
		wt_sched.runq_tail = t;
	atomic_fetch_add_explicit(&wt_sched.runq_size, 1, memory_order_relaxed);
}

/* Takes t out of the global queue; false if it is not there.
 * [sched.lock] */
bool wt_globrunq_take(struct wt_task *t)
{
	struct wt_task **pp = &wt_sched.runq_head, *prev = NULL;
	while (*pp && *pp != t) {
		prev = *pp;
		pp = &(*pp)->schedlink;
	}
	if (!*pp)
		return false;
	*pp = t->schedlink;
	if (wt_sched.runq_tail == t)
		wt_sched.runq_tail = prev;
	t->schedlink = NULL;
	atomic_fetch_sub_explicit(&wt_sched.runq_size, 1, memory_order_relaxed);
	return true;
}

static void globrunq_putbatch(struct wt_task *head, struct wt_task *tail, int n)
{
	tail->schedlink = NULL;
	if (wt_sched.runq_tail)
		wt_sched.runq_tail->schedlink = head;
	else
		wt_sched.runq_head = head;
	wt_sched.runq_tail = tail;
	atomic_fetch_add_explicit(&wt_sched.runq_size, n, memory_order_relaxed);
}

/* Moves half of p's ring plus t to the global queue.  Owner only. */
static bool runq_putslow(struct wt_p *p, struct wt_task *t, uint32_t h, uint32_t tl)
{
	enum { N = WT_RUNQ_SIZE / 2 };
	struct wt_task *batch[N + 1];
	uint32_t n = (tl - h) / 2;
	if (n != N)
		wt_throw("runq_putslow: queue is not full");
	for (uint32_t i = 0; i < n; i++)
		batch[i] = ld(p, h + i);
	/* Release: the slots we read must not be overwritten before the CAS. */
	if (!atomic_compare_exchange_strong_explicit(&p->head, &h, h + n, memory_order_release,
						     memory_order_relaxed))
		return false;
	batch[n] = t;
	for (uint32_t i = 0; i < n; i++)
		batch[i]->schedlink = batch[i + 1];
	wt_lock(&wt_sched.lock);
	globrunq_putbatch(batch[0], batch[n], (int)n + 1);
	wt_unlock(&wt_sched.lock);
	return true;
}

/* Context: the owner of p (its worker, on a task or g0). */
void wt_runq_put(struct wt_p *p, struct wt_task *t, bool next)
{
	if (rt_divert(t))
		return;
	if (next) {
		struct wt_task *old =
			atomic_exchange_explicit(&p->runnext, t, memory_order_acq_rel);
		if (!old)
			return;
		t = old; /* the old runnext goes to the tail */
	}
	for (;;) {
		/* Acquire: pairs with the consumers' release CAS on head. */
		uint32_t h = atomic_load_explicit(&p->head, memory_order_acquire);
		uint32_t tl = atomic_load_explicit(&p->tail, memory_order_relaxed);
		if (tl - h < WT_RUNQ_SIZE) {
			st(p, tl, t);
			/* Release: publishes the slot to consumers. */
			atomic_store_explicit(&p->tail, tl + 1, memory_order_release);
			return;
		}
		if (runq_putslow(p, t, h, tl))
			return;
	}
}

/* Context: the owner of p. */
struct wt_task *wt_runq_get(struct wt_p *p)
{
	bool inherit;
	return wt_runq_get_inherit(p, &inherit);
}

/* The time slice a runnext chain shares is over (sysmon asked for a
 * preemption): runnext goes to the back of the ring.  Context: p's owner. */
void wt_runq_demote_next(struct wt_p *p)
{
	struct wt_task *next = atomic_load_explicit(&p->runnext, memory_order_relaxed);
	if (next && atomic_compare_exchange_strong_explicit(&p->runnext, &next, NULL,
							    memory_order_acq_rel,
							    memory_order_relaxed))
		wt_runq_put(p, next, false);
}

/* The same; *inherit says the task came from runnext, and so shares the
 * time slice of the task that readied it (Go's inheritTime): the caller
 * does not count a new tick, so sysmon still preempts a pair that hands
 * the proc back and forth after 10 ms, and the ring gets its turn. */
struct wt_task *wt_runq_get_inherit(struct wt_p *p, bool *inherit)
{
	struct wt_task *next = atomic_load_explicit(&p->runnext, memory_order_relaxed);
	*inherit = false;
	if (next && atomic_compare_exchange_strong_explicit(&p->runnext, &next, NULL,
							    memory_order_acq_rel,
							    memory_order_relaxed)) {
		*inherit = true;
		return next;
	}
	for (;;) {
		uint32_t h = atomic_load_explicit(&p->head, memory_order_acquire);
		uint32_t tl = atomic_load_explicit(&p->tail, memory_order_relaxed);
		if (h == tl)
			return NULL;
		struct wt_task *t = ld(p, h);
		if (atomic_compare_exchange_weak_explicit(&p->head, &h, h + 1, memory_order_release,
							  memory_order_relaxed))
			return t;
	}
}

/* Takes half of victim's tasks into p's ring starting at p's tail.
 * Returns the count.  Context: the owner of p. */
static uint32_t runq_grab(struct wt_p *victim, struct wt_p *p, uint32_t at, bool stealnext)
{
	for (;;) {
		uint32_t h = atomic_load_explicit(&victim->head, memory_order_acquire);
		/* Acquire: pairs with the owner's release store of tail. */
		uint32_t tl = atomic_load_explicit(&victim->tail, memory_order_acquire);
		uint32_t n = tl - h;
		n = n - n / 2;
		if (n == 0) {
			if (!stealnext)
				return 0;
			struct wt_task *next =
				atomic_load_explicit(&victim->runnext, memory_order_relaxed);
			if (next && victim->status == WT_P_RUNNING) {
				/* The victim's running task usually parks within a few
				 * µs and runs `next` itself (a hand-off): give it ~3 µs
				 * before taking it, as Go does, instead of bouncing the
				 * pair between workers. */
				int64_t until = wt_nanotime() + 3000;
				while (wt_nanotime() < until &&
				       atomic_load_explicit(&victim->runnext, memory_order_relaxed) == next)
					wt_arch_pause();
				next = atomic_load_explicit(&victim->runnext, memory_order_relaxed);
			}
			if (!next || !atomic_compare_exchange_strong_explicit(
					     &victim->runnext, &next, NULL, memory_order_acq_rel,
					     memory_order_relaxed))
				return 0;
			st(p, at, next);
			return 1;
		}
		if (n > WT_RUNQ_SIZE / 2)
			continue; /* read head and tail at different times; retry */
		for (uint32_t i = 0; i < n; i++)
			st(p, at + i, ld(victim, h + i));
		if (atomic_compare_exchange_strong_explicit(&victim->head, &h, h + n,
							    memory_order_release,
							    memory_order_relaxed))
			return n;
	}
}

struct wt_task *wt_runq_steal(struct wt_p *p, struct wt_p *victim, bool stealnext)
{
	uint32_t tl = atomic_load_explicit(&p->tail, memory_order_relaxed);
	uint32_t n = runq_grab(victim, p, tl, stealnext);
	if (n == 0)
		return NULL;
	n--;
	struct wt_task *t = ld(p, tl + n);
	if (n == 0)
		return t;
	uint32_t h = atomic_load_explicit(&p->head, memory_order_acquire);
	if (tl - h + n >= WT_RUNQ_SIZE)
		wt_throw("runq_steal: overflow");
	atomic_store_explicit(&p->tail, tl + n, memory_order_release);
	return t;
}

/* Takes a batch from the global queue: one to run, the rest into p's ring.
 * [sched.lock]; p is owned by the caller. */
struct wt_task *wt_globrunq_get(struct wt_p *p, int max)
{
	int size = atomic_load_explicit(&wt_sched.runq_size, memory_order_relaxed);
	if (size == 0)
		return NULL;
	int n = size / wt_sched.nprocs + 1;
	if (n > size)
		n = size;
	if (max > 0 && n > max)
		n = max;
	if (n > WT_RUNQ_SIZE / 2)
		n = WT_RUNQ_SIZE / 2;
	/* Never overflow the ring here: putslow would retake sched.lock. */
	uint32_t room = WT_RUNQ_SIZE - (atomic_load_explicit(&p->tail, memory_order_relaxed) -
					atomic_load_explicit(&p->head, memory_order_acquire));
	if ((uint32_t)n > room + 1)
		n = (int)room + 1;
	atomic_fetch_sub_explicit(&wt_sched.runq_size, n, memory_order_relaxed);
	struct wt_task *t = wt_sched.runq_head;
	wt_sched.runq_head = t->schedlink;
	for (int i = 1; i < n; i++) {
		struct wt_task *u = wt_sched.runq_head;
		wt_sched.runq_head = u->schedlink;
		wt_runq_put(p, u, false);
	}
	if (!wt_sched.runq_head)
		wt_sched.runq_tail = NULL;
	return t;
}
