/*
 * preempt.h — sysmon's SIGURG requests and their handler: asynchronous
 * preemption, and implicit system calls entered (preempt.c).
 */
#ifndef WEFT_PREEMPT_H
#define WEFT_PREEMPT_H

#include "runtime.h"

void wt_preempt_init(void);                /* initial thread, at start */
void wt_sysmon_preempt(int64_t now);       /* sysmon: signal long runners and blocked workers */
void wt_preempt_park(void);                /* the stub (preempt.S), on the task */
void wt_preempt_resume(void *state);       /* the stub, where it resumes by a signal */
/* pthread_cancel of t (request set): signal its worker when t runs with
 * asynchronous cancellation or blocks in a libc cancellation point. */
void wt_preempt_cancel(struct wt_task *t);
void wt_sysmon_cancel(int64_t now);        /* sysmon: repeat those signals */

#endif
