/*
 * syscall.h — tasks in system calls: the entersyscall/exitsyscall bracket,
 * the same bracket entered implicitly around calls nobody intercepted, and
 * sysmon's retaking of their procs (syscall.c).
 */
#ifndef WEFT_SYSCALL_H
#define WEFT_SYSCALL_H

#include "core/runtime.h"

void wt_entersyscall(void);                /* task, before a call that may block */
void wt_exitsyscall(void);                 /* task, after it; may switch */
/* sysmon: take procs from blocked calls; returns how many of them had
 * work queued (one taken after its 10 ms alone is not counted), and in
 * *seen how many calls with work behind them it saw for the first time
 * (to be taken at the next look if still in progress). */
int wt_sysmon_retake(int64_t now, int *seen);
struct wt_p *wt_curp(void);                /* task: the proc it may use, NULL in a syscall */

/* Implicit calls (entered by the SIGURG handler, core/preempt.c). */
void wt_implicit_enter(struct wt_m *m);    /* signal handler: wt_entersyscall's work */
bool wt_implicit_settle(struct wt_m *m);   /* task: try to end an implicit syscall, no switch */
void wt_implicit_exit(struct wt_m *m);     /* task: end it; may switch (queue + stop worker) */
void wt_implicit_switch_out(struct wt_m *m); /* wt_mcall: end it, with or without a proc */
extern _Atomic int wt_nimplicit;           /* [atomic] workers in an implicit syscall */

#endif
