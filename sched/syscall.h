/*
 * syscall.h — tasks in system calls: the entersyscall/exitsyscall bracket
 * and sysmon's retaking of their procs (syscall.c).
 */
#ifndef WEFT_SYSCALL_H
#define WEFT_SYSCALL_H

#include "runtime.h"

void wt_entersyscall(void);                /* task, before a call that may block */
void wt_exitsyscall(void);                 /* task, after it; may switch */
int wt_sysmon_retake(int64_t now);         /* sysmon: take procs from blocked calls */
struct wt_p *wt_curp(void);                /* task: the proc it may use, NULL in a syscall */

#endif
