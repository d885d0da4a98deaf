/*
 * proc.h — the scheduler loop, readying tasks, switching, procs (proc.c).
 */
#ifndef WEFT_PROC_H
#define WEFT_PROC_H

#include "runtime.h"

void wt_ready(struct wt_task *t);          /* on a task or a foreign thread */
void wt_ready_m(struct wt_task *t, struct wt_m *m); /* on m's g0, or sysmon (m NULL) */
void wt_ready_quiet(struct wt_task *t);       /* no worker started: a vfork child */
bool wt_ready_busy(struct wt_task *t);        /* no proc held: a busy proc's runnext, if none idle */
void wt_inject(struct wt_task *list, struct wt_p *p); /* a schedlink list from wt_unpark_collect */
/* On a task: switch to g0 and run fn(m, task, arg) there (Go's mcall). */
void wt_mcall(void (*fn)(struct wt_m *, struct wt_task *, void *), void *arg);
/* task: switch out; the next context unlocks, then calls release */
void wt_park_commit(wt_spin_t *unlock, wt_park_release_fn release, void *arg);
void wt_finish_switch(struct wt_m *m);
void wt_yield(void);
WT_NORETURN void wt_schedule(struct wt_m *m);
void wt_wakep(void);
void wt_handoffp(struct wt_p *p);          /* give an unowned proc work or idle it */
struct wt_p *wt_pidleget(void);            /* an idle proc or NULL; takes sched.lock */
/* sysmon: a runnext left waiting gets a worker; says how busy the procs
 * are (WT_PROCS_*). */
enum { WT_PROCS_IDLE, WT_PROCS_RUNNING, WT_PROCS_QUEUED };
int wt_sysmon_wake_idle_work(void);
bool wt_any_runnable(void);                /* a task waits in some run queue; a snapshot */
void wt_procs_resize(int n);               /* GOMAXPROCS changed */
void wt_preempt_yield(void);               /* task: go to the global queue and reschedule */
void wt_step_aside(void);                  /* task: run the task it just made first */

/* A preemption sysmon asked for and the signal handler could not do (not a
 * safe point): honoured at the next entry that may switch. */
static inline bool wt_preempt_wanted(struct wt_m *m)
{
	return m->p && atomic_load_explicit(&m->preempt, memory_order_relaxed) == m->p->schedtick + 1;
}

bool wt_sysmon_make_workers(void); /* sysmon: the workers startm asked for; true if any */

#endif
