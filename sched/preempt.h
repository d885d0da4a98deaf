/*
 * preempt.h — asynchronous preemption and system calls nobody intercepted
 * (preempt.c).
 */
#ifndef WEFT_PREEMPT_H
#define WEFT_PREEMPT_H

#include "runtime.h"

void wt_preempt_init(void);                /* initial thread, at start */
void wt_sysmon_preempt(int64_t now);       /* sysmon: signal long runners and blocked workers */
bool wt_implicit_settle(struct wt_m *m);   /* task: try to end an implicit syscall, no switch */
void wt_implicit_exit(struct wt_m *m);     /* task: end it; may switch (queue + stop worker) */
void wt_preempt_yield(void);               /* task: go to the global queue and reschedule */
bool wt_pc_in_weft(uintptr_t pc);
extern _Atomic int wt_nimplicit;           /* workers in an implicit syscall */

/* A preemption sysmon asked for and the signal handler could not do (not a
 * safe point): honoured at the next entry that may switch. */
static inline bool wt_preempt_wanted(struct wt_m *m)
{
	return m->p && atomic_load_explicit(&m->preempt, memory_order_relaxed) == m->p->schedtick + 1;
}

#endif
