/*
 * prio.h — a task's scheduling policy, priority and niceness (prio.c): the
 * kernel's rules for setting them, what a new task inherits, and the point
 * where a running task gives way to a higher real-time one.
 */
#ifndef WEFT_PRIO_H
#define WEFT_PRIO_H

#include <pthread.h>
#include <sched.h>

#include "core/runtime.h"
#include "core/rtq.h"

/* The process changed its credentials, capabilities or resource limits:
 * the privilege checks read them again.  Context: any, after the change. */
void wt_prio_creds_changed(void);

/* What a new task starts with (pthread_create): from its creator, or the
 * attribute's explicit values.  Filled by wt_prio_attr before the task
 * exists, so that a refusal creates nothing. */
#define WT_GL_PRIO 0x20   /* gl_prio valid (glibc's ATTR_FLAG_SCHED_SET) */
#define WT_GL_POLICY 0x40 /* gl_policy valid (ATTR_FLAG_POLICY_SET) */

struct wt_prio_init {
	int policy, rtprio, nice;
	int gl_policy, gl_prio, gl_flags;
	/* Queued at the head of its real-time list: glibc starts a thread
	 * with its creator's priority and then lowers it to the attribute's,
	 * which puts it in front of those already waiting (sched(7)). */
	bool head;
	bool aff_set;
	uint64_t aff[16];
};

/* pthread_create's scheduling attributes for a task created by cur (NULL:
 * a thread weft did not create): 0, -EINVAL (a bad policy, priority or
 * CPU set), -EPERM (a real-time policy without the privilege), as glibc's
 * pthread_create answers.  Context: the creator; never blocks. */
int wt_prio_attr(const pthread_attr_t *attr, struct wt_task *cur, struct wt_prio_init *out);
/* Applies it to the new task t, before t is readied.  Context: creator. */
void wt_prio_start(struct wt_task *t, const struct wt_prio_init *in);
/* The main task: the initial thread's own values.  Context: start. */
void wt_prio_init_main(struct wt_task *t);
/* [atomic, relaxed] some task of the process had a real-time policy (the
 * main task at start, or one set since): sysmon then keeps its short look
 * while every proc is busy (core/sysmon.c). */
extern _Atomic bool wt_prio_rt_seen;

/* sched_setscheduler / sched_setparam on task t: policy WT_PRIO_KEEP keeps
 * t's (sched_setparam); another negative one is EINVAL.  0, -EINVAL, -EPERM, with the kernel's checks in its
 * order.  A task raised above the caller, or the caller lowered below a
 * queued one, runs at once (wt_prio_point).  Context: a task or a thread
 * weft did not create; takes rtq.lock; may switch the caller out. */
#define WT_PRIO_KEEP (-0x7fffffff - 1)
int wt_prio_set(struct wt_task *t, int policy, const struct sched_param *sp);
/* t's policy (with SCHED_RESET_ON_FORK when set) and priority. */
void wt_prio_get(struct wt_task *t, int *policy, int *prio);
/* pthread_setschedparam and pthread_setschedprio (policy WT_PRIO_KEEP):
 * wt_prio_set, and glibc's cached copy on success. */
int wt_prio_pthread_set(struct wt_task *t, int policy, const struct sched_param *sp);
/* pthread_getschedparam: glibc's cached copy, filled from t's values
 * where it is not set yet. */
void wt_prio_pthread_get(struct wt_task *t, int *policy, int *prio);
/* Priority-protect mutexes (glibc's __pthread_current_priority and
 * __pthread_tpp_change_priority, on the task).  wt_prio_current: the
 * priority a lock compares with the ceiling (glibc's cached one; the
 * kernel's for a thread weft did not create, t NULL).  wt_prio_protect:
 * one lock of ceiling next counted in (next > 0), one of ceiling prev
 * counted out (prev > 0); when the highest ceiling held changes, t's
 * priority becomes the greater of it and its own, with the kernel's
 * checks: 0, -EINVAL (a policy without priorities), -EPERM, -ENOMEM,
 * -EAGAIN (a count full).  Nothing for NULL.  Context: t itself (a task;
 * takes rtq.lock; may switch it out, as wt_prio_set). */
int wt_prio_current(struct wt_task *t);
int wt_prio_protect(struct wt_task *t, int prev, int next);
/* t's counts go back (task release). */
void wt_prio_release(struct wt_task *t);
/* setpriority(PRIO_PROCESS, t): 0 or -EACCES (lowering without the
 * privilege); getpriority: t's nice. */
int wt_nice_set(struct wt_task *t, int nice);
int wt_nice_get(struct wt_task *t);
/* sched_rr_get_interval for t: 0 or -errno. */
int wt_prio_rr_interval(struct wt_task *t, struct timespec *ts);
/* SCHED_RR's time slice in ns (the kernel's sched_rr_timeslice_ms). */
int64_t wt_prio_rr_ns(void);

/* [rtq.lock] t's eff from its priority and boost, moving it on the
 * real-time queue; returns what wt_rtq_moved returns. */
bool wt_prio_update_locked(struct wt_task *t);
/* After wt_prio_update_locked returned true, rtq.lock released: queue t
 * as a SCHED_OTHER task again.  Context: any. */
void wt_prio_requeue_other(struct wt_task *t);

/* Around a wait in the kernel on a futex other processes may share (a
 * process-shared mutex, semaphore, condition variable, rwlock or barrier,
 * a shared futex wait; shim.h: KPRIO): the worker thread carries the
 * calling task's real-time policy and priority, since the kernel orders a
 * futex's waiters by their threads' priorities, and a woken real-time
 * waiter preempts the thread it wakes on, as natively.  Nothing for a task
 * without a real-time policy (one relaxed load) or a thread weft did not
 * create.  restore puts back the worker's own (its process's, prio.c).
 * Context: a task in a system call (between wt_entersyscall and
 * wt_exitsyscall, so it stays on this worker); two or three system calls
 * when it lends. */
struct wt_kprio {
	int policy; /* the worker's own, restored after the wait; -1: nothing lent */
	int prio;
};
struct wt_kprio wt_prio_kernel_lend_slow(struct wt_task *t);
void wt_prio_kernel_restore_slow(struct wt_kprio k);
static inline struct wt_kprio wt_prio_kernel_lend(void)
{
	struct wt_task *t = wt_cur();
	if (t && unlikely(atomic_load_explicit(&t->rtprio, memory_order_relaxed)))
		return wt_prio_kernel_lend_slow(t);
	return (struct wt_kprio){ -1, 0 };
}
static inline void wt_prio_kernel_restore(struct wt_kprio k)
{
	if (unlikely(k.policy >= 0))
		wt_prio_kernel_restore_slow(k);
}

/* A scheduling point: a real-time task above the caller is queued (made
 * ready, or raised, by the caller): the caller gives way now, as the
 * kernel's preemption would.  Context: a task at a call that may switch
 * (no runtime lock held); one relaxed load when no real-time task waits. */
void wt_prio_point_slow(void);
static inline void wt_prio_point(void)
{
	if (wt_rt_any())
		wt_prio_point_slow();
}

#endif
