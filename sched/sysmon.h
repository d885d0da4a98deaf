/* sysmon.h — the monitor thread without a proc (sysmon.c). */
#ifndef WEFT_SYSMON_H
#define WEFT_SYSMON_H

#include "base.h"

void wt_sysmon_start(void);
/* A fork child: sysmon starts with the child's second task
 * (wt_sysmon_needed), not before.  Its jobs (preemption, procs taken from
 * blocked calls, timers no worker looks for, stuck signals) concern other
 * tasks than the one that forked; most children exec or exit first, and
 * each would pay a thread's creation for nothing. */
void wt_sysmon_start_later(void);
extern _Atomic int wt_sysmon_deferred;     /* [atomic] started later */
void wt_sysmon_start_deferred(void);
/* A task is about to be created.  Context: a task or start, no weft lock. */
static inline void wt_sysmon_needed(void)
{
	if (unlikely(atomic_load_explicit(&wt_sysmon_deferred, memory_order_relaxed)))
		wt_sysmon_start_deferred();
}
void wt_sysmon_kick(void);                 /* an earlier timer was added */
void wt_sysmon_fork_reset(void);
extern _Atomic int wt_sysmon_slow;         /* sysmon sleeps longer than its shortest delay */
bool wt_sysmon_self(void);                /* the calling thread is sysmon */
extern _Atomic int wt_sysmon_tid;          /* sysmon's OS thread id, 0 before it runs */

#endif
