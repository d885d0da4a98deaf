/*
 * rtq.h — the real-time run queue (rtq.c): runnable tasks with a
 * SCHED_FIFO or SCHED_RR priority, highest first, and the lock that guards
 * every task's policy and priority.
 */
#ifndef WEFT_RTQ_H
#define WEFT_RTQ_H

#include "runtime.h"

#define WT_RTPRIO_MAX 99

/* [atomic, relaxed; a hint] tasks queued, and the highest queued priority
 * (0 = none).  A program that never sets a real-time policy reads 0 here
 * and nothing else. */
extern _Atomic int wt_rtq_n;
extern _Atomic int wt_rtq_top;
/* [atomic, relaxed] bumped when a task waiting on a ring or the global
 * queue got a real-time priority: each proc then moves such tasks from its
 * ring, and from the global queue, to the real-time queue (proc.c). */
extern _Atomic unsigned wt_rtq_stray;

/* Queues t by t->eff, at the head of its list (a preempted real-time task)
 * or the tail.  false: t->eff is 0 (lowered meanwhile), nothing queued, the
 * caller queues it as a SCHED_OTHER task.  Context: any; takes rtq.lock
 * (under sched.lock is allowed); never wakes a worker (the caller does). */
bool wt_rtq_put(struct wt_task *t, bool head);
/* The first task of the highest list at or above min (1..99), or NULL.
 * Context: a worker holding a proc; takes rtq.lock. */
struct wt_task *wt_rtq_get(int min);
/* Takes t out of the queue; false if it is not queued.  Context: any;
 * takes rtq.lock. */
bool wt_rtq_take(struct wt_task *t);
/* rtq.lock: held while a task's policy, priority or boost changes. */
void wt_rtq_lock(void);
void wt_rtq_unlock(void);
/* [rtq.lock] t's eff changed from old (t->eff holds the new one): moves a
 * queued t as sched(7) says (raised: to the tail of its new list; lowered:
 * to the head; unchanged: stays).  Returns true when t was queued and its
 * eff is now 0: it was taken out, and the caller, after unlocking, queues
 * it as a SCHED_OTHER task (wt_rtq_requeue_other). */
bool wt_rtq_moved(struct wt_task *t, int old);
void wt_rtq_fork_reset(void);

static inline bool wt_rt_any(void)
{
	return unlikely(atomic_load_explicit(&wt_rtq_n, memory_order_relaxed) != 0);
}

#endif
