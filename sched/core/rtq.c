/*
 * rtq.c — the real-time run queue.
 *
 * A runnable task whose effective priority (t->eff: its SCHED_FIFO or
 * SCHED_RR priority, or one lent to it by priority inheritance) is above 0
 * waits here instead of on a proc's ring: one list per priority, 99
 * highest, FIFO within a list, and a bitmap of the lists that are not
 * empty.  Every worker looks here first when it picks a task (proc.c:
 * findrunnable, and the hand-off in wt_mcall), so a real-time task runs
 * before any SCHED_OTHER task and a higher priority before a lower one,
 * on whichever proc looks first.
 *
 * One queue for the process, under one lock, not one per proc: priorities
 * are a process-wide order (the kernel's is per CPU, with a push/pull
 * between CPUs that comes to the same for the highest priorities), and
 * programs that use them run few such tasks.  The cost to a program that
 * never sets a policy is one relaxed load of wt_rtq_n (zero) where a
 * worker picks its next task, and one load of t->eff where a task is
 * queued.
 *
 * The same lock guards every task's policy, priority and boost (process/prio.c,
 * process/pi.c), so a task's eff and the list it sits on (t->rtq_at) change
 * together.  A task that is on a ring or the global queue when it gets a
 * real-time priority cannot be taken out of a ring by another worker: the
 * change bumps wt_rtq_stray, and each proc, at its next look for work,
 * moves such tasks from its own ring and from the global queue to here.
 */
#include "runtime.h"
#include "rtq.h"
#include "base/throw.h"

static struct {
	wt_lock_t lock;
	uint64_t bits[2];               /* [lock] list p is not empty: bit p */
	struct wt_task *head[WT_RTPRIO_MAX + 1], *tail[WT_RTPRIO_MAX + 1]; /* [lock] */
} rtq = { .lock = WT_LOCK_INIT(WT_RANK_RTQ) };

_Atomic int wt_rtq_n;
_Atomic int wt_rtq_top;
_Atomic unsigned wt_rtq_stray;

void wt_rtq_lock(void) { wt_lock(&rtq.lock); }
void wt_rtq_unlock(void) { wt_unlock(&rtq.lock); }

/* [lock] */
static int top(void)
{
	if (rtq.bits[1])
		return 127 - __builtin_clzll(rtq.bits[1]);
	if (rtq.bits[0])
		return 63 - __builtin_clzll(rtq.bits[0]);
	return 0;
}

/* [lock] */
static void ins(struct wt_task *t, int prio, bool head)
{
	if (t->rtq_at)
		wt_throw("rtq: task queued twice");
	if (head || !rtq.head[prio]) {
		t->schedlink = rtq.head[prio];
		rtq.head[prio] = t;
		if (!rtq.tail[prio])
			rtq.tail[prio] = t;
	} else {
		t->schedlink = NULL;
		rtq.tail[prio]->schedlink = t;
		rtq.tail[prio] = t;
	}
	t->rtq_at = prio;
	rtq.bits[prio >> 6] |= 1ull << (prio & 63);
	atomic_fetch_add_explicit(&wt_rtq_n, 1, memory_order_relaxed);
	atomic_store_explicit(&wt_rtq_top, top(), memory_order_relaxed);
}

/* [lock] */
static void del(struct wt_task *t)
{
	int prio = t->rtq_at;
	struct wt_task **pp = &rtq.head[prio], *prev = NULL;
	while (*pp && *pp != t) {
		prev = *pp;
		pp = &(*pp)->schedlink;
	}
	if (!*pp)
		wt_throw("rtq: task not on its list");
	*pp = t->schedlink;
	if (rtq.tail[prio] == t)
		rtq.tail[prio] = prev;
	if (!rtq.head[prio])
		rtq.bits[prio >> 6] &= ~(1ull << (prio & 63));
	t->schedlink = NULL;
	t->rtq_at = 0;
	atomic_fetch_sub_explicit(&wt_rtq_n, 1, memory_order_relaxed);
	atomic_store_explicit(&wt_rtq_top, top(), memory_order_relaxed);
}

bool wt_rtq_put(struct wt_task *t, bool head)
{
	wt_lock(&rtq.lock);
	int prio = atomic_load_explicit(&t->eff, memory_order_relaxed);
	if (prio > 0)
		ins(t, prio, head);
	wt_unlock(&rtq.lock);
	return prio > 0;
}

struct wt_task *wt_rtq_get(int min)
{
	wt_lock(&rtq.lock);
	int prio = top();
	struct wt_task *t = NULL;
	if (prio >= min && prio > 0) {
		t = rtq.head[prio];
		del(t);
	}
	wt_unlock(&rtq.lock);
	return t;
}

bool wt_rtq_take(struct wt_task *t)
{
	wt_lock(&rtq.lock);
	bool queued = t->rtq_at != 0;
	if (queued)
		del(t);
	wt_unlock(&rtq.lock);
	return queued;
}

bool wt_rtq_moved(struct wt_task *t, int old)
{
	int now = atomic_load_explicit(&t->eff, memory_order_relaxed);
	if (!t->rtq_at || now == old)
		return false;
	del(t);
	if (now == 0)
		return true;
	ins(t, now, now < old);
	return false;
}

/* Fork child: the queued tasks are gone with their threads. */
void wt_rtq_fork_reset(void)
{
	atomic_store_explicit(&rtq.lock.v, 0, memory_order_relaxed);
	for (int i = 0; i <= WT_RTPRIO_MAX; i++)
		rtq.head[i] = rtq.tail[i] = NULL;
	rtq.bits[0] = rtq.bits[1] = 0;
	atomic_store(&wt_rtq_n, 0);
	atomic_store(&wt_rtq_top, 0);
}
