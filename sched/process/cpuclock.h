/*
 * cpuclock.h — each task's CPU time and thread id as the program sees them
 * (cpuclock.c): the clocks of pthread_getcpuclockid and
 * CLOCK_THREAD_CPUTIME_ID, getrusage(RUSAGE_THREAD), gettid.
 */
#ifndef WEFT_CPUCLOCK_H
#define WEFT_CPUCLOCK_H

#include <signal.h>
#include <time.h>

#include "core/runtime.h"

/* Set once a thread CPU clock was first read: from then on every switch
 * is counted. */
extern _Atomic bool wt_cpuacct_on;
/* Set as counting starts: sysmon makes every running task switch once, so
 * that each opens its window (a task running alone on its proc would else
 * show no CPU until its next switch).  [atomic] */
extern _Atomic bool wt_cpuacct_kick;

void wt_cpu_switch_slow(struct wt_m *m, struct wt_task *out, struct wt_task *in);

/* At a switch on worker m: out (NULL: g0) stops running, in (NULL: g0)
 * starts.  Costs a load while no thread CPU clock was ever read.
 * Context: m, just before wt_ctx_switch; in->m is set.  Does not block. */
static inline void wt_cpu_switch(struct wt_m *m, struct wt_task *out, struct wt_task *in)
{
	if (unlikely(atomic_load_explicit(&wt_cpuacct_on, memory_order_relaxed)))
		wt_cpu_switch_slow(m, out, in);
}

/* The calling task's CPU time in ns (starts the counting when it is the
 * first read).  Context: a task. */
int64_t wt_cpu_self_ns(void);
/* Starts the counting (pthread_getcpuclockid, getrusage). */
void wt_cpu_acct_start(void);
/* t's CPU time in ns, as another thread reads it.  Context: any; the
 * caller holds sched.alllock, or reads t's id again afterwards (task
 * records are never unmapped, base/slab.c) and drops the figure if it moved. */
int64_t wt_cpu_task_ns(struct wt_task *t);
/* The id the program sees for t (gettid): the process id for main (in a
 * fork child: the task that forked), WT_TASK_ID_BASE + its number for the
 * others (cpuclock.c). */
#define WT_TASK_ID_BASE 0x08000000
static inline bool wt_is_task_id(int tid)
{
	return tid >= WT_TASK_ID_BASE && tid < 2 * WT_TASK_ID_BASE;
}
int wt_task_kernel_id(const struct wt_task *t);
/* t's CPU clock id, encoded as glibc encodes a thread's with its id. */
clockid_t wt_cpuclock_id(const struct wt_task *t);
/* A clock id naming a task's CPU clock: 1 and its time in *ns; 0 when clk
 * names no task's (the kernel's to answer); -EINVAL when it has a task's
 * form but no live task has that id.  Context: any; takes sched.alllock. */
int wt_cpuclock_read(clockid_t clk, int64_t *ns);
/* clk is the calling task's own per-thread CPU clock (by its id or id 0),
 * which cannot be slept on. */
static inline bool wt_cpuclock_is_own(clockid_t clk, const struct wt_task *self)
{
	return clk < 0 && (clk & 4) && (clk & 3) != 3 &&
	       (~(clk >> 3) == 0 || ~(clk >> 3) == wt_task_kernel_id(self));
}
/* The live task whose program-visible id is tid, or NULL.  Caller holds
 * sched.alllock (the task cannot be freed meanwhile). */
struct wt_task *wt_task_by_kernel_id_locked(int tid);
/* tgkill(tgid, tid, sig) (tgid -1: tkill) when tid is a task's id: 0 or
 * -errno (ESRCH: no live task has it; EINVAL: a bad signal), the signal
 * sent to the task as pthread_kill sends it, or with siginfo si
 * (rt_tgsigqueueinfo; NULL: none); 1 when tid is not a task's (the
 * kernel's to answer).  Context: any. */
int wt_tid_kill(int tgid, int tid, int sig, const siginfo_t *si);
/* Fork child (self NULL: forked by a thread weft did not create): self's
 * id becomes the new process id, its count goes on from its new thread's
 * clock. */
void wt_cpu_fork_child(struct wt_task *self);

#endif
