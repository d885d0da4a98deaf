/*
 * pthread_cancel.c — cancellation of tasks.
 *
 * The request is a bit in the task (sched/core/task.c).  A task parked in one
 * of weft's waits (cond waits, join, sleeps, sem_wait, the poller) is
 * woken (wt_park_cancel); one blocked in a libc cancellation point, or
 * running with asynchronous cancellation, is reached by a signal to its
 * worker (sched/core/preempt.c: wt_preempt_cancel).  Either way it exits
 * through glibc's unwinder with PTHREAD_CANCELED, so cleanup handlers and
 * destructors run.  A pthread_t whose thread has ended gets 0, as glibc.
 */
#include "shim.h"
#include "core/task.h"

WT_EXPORT int pthread_cancel(pthread_t th)
{
	wt_task_lookup_begin();
	struct wt_task *t = wt_task_from_pthread(th);
	if (t)
		wt_task_cancel(t);
	wt_task_lookup_end();
	if (!t) /* glibc: 0 for a thread that exited, joined or not */
		return wt_task_ended(th) >= 0 ? 0 : ESRCH;
	return 0;
}

WT_EXPORT void pthread_testcancel(void)
{
	wt_testcancel();
}

WT_EXPORT int pthread_setcancelstate(int state, int *old)
{
	struct wt_task *t = wt_cur();
	if (state != PTHREAD_CANCEL_ENABLE && state != PTHREAD_CANCEL_DISABLE)
		return EINVAL;
	if (!t) {
		if (old)
			*old = PTHREAD_CANCEL_ENABLE;
		return 0;
	}
	bool was = wt_cancel_set_disabled(t, state == PTHREAD_CANCEL_DISABLE);
	if (old)
		*old = was ? PTHREAD_CANCEL_DISABLE : PTHREAD_CANCEL_ENABLE;
	return 0;
}

WT_EXPORT int pthread_setcanceltype(int type, int *old)
{
	struct wt_task *t = wt_cur();
	if (type != PTHREAD_CANCEL_DEFERRED && type != PTHREAD_CANCEL_ASYNCHRONOUS)
		return EINVAL;
	if (!t) {
		if (old)
			*old = PTHREAD_CANCEL_DEFERRED;
		return 0;
	}
	bool was = wt_cancel_set_async(t, type == PTHREAD_CANCEL_ASYNCHRONOUS);
	if (old)
		*old = was ? PTHREAD_CANCEL_ASYNCHRONOUS : PTHREAD_CANCEL_DEFERRED;
	if (type == PTHREAD_CANCEL_ASYNCHRONOUS)
		wt_testcancel();
	return 0;
}
