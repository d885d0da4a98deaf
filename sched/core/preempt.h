/*
 * preempt.h — sysmon's SIGURG requests and their handler: asynchronous
 * preemption, and implicit system calls entered (preempt.c).
 */
#ifndef WEFT_PREEMPT_H
#define WEFT_PREEMPT_H

#include "runtime.h"
#include "proc.h"

void wt_preempt_init(void);                /* initial thread, at start */
/* sysmon: signal long runners, tasks a woken runnext waits behind, and
 * blocked workers; true while a runnext waits on a busy proc. */
bool wt_sysmon_preempt(int64_t now);
void wt_preempt_park(void);                /* the stub (preempt.S), on the task */
void wt_preempt_resume(void *state);       /* the stub, where it resumes by a signal */
/* pthread_cancel of t (request set): signal its worker when t runs with
 * asynchronous cancellation or blocks in a libc cancellation point. */
void wt_preempt_cancel(struct wt_task *t);
void wt_sysmon_cancel(int64_t now);        /* sysmon: repeat those signals */

/* t is about to return from an interposed call that did not switch, to
 * `ret` in the program: a preemption sysmon asked for while t ran weft's
 * or libc's code (no safe point for the signal) is done here, as it would
 * have been had the request found the program's own code.  A spin loop
 * over clock_gettime or trylock spends most of its time in that code; on
 * the signal alone its slices stretched to several of sysmon's retries.
 * Context: the task, holding no weft lock. */
void wt_preempt_at_return(struct wt_task *t, uintptr_t ret);
static inline void wt_preempt_return_point(uintptr_t ret)
{
	struct wt_task *t = wt_cur();
	if (unlikely(t && wt_preempt_wanted(t->m)))
		wt_preempt_at_return(t, ret);
}

#endif
