/*
 * pi.h — priority-inheritance locks among tasks (pi.c): the lock word of a
 * PTHREAD_PRIO_INHERIT mutex, its waiters parked, the holder lent the
 * highest waiter's priority.
 */
#ifndef WEFT_PI_H
#define WEFT_PI_H

#include "core/runtime.h"

#define WT_PI_WAITERS 0x80000000u    /* glibc's FUTEX_WAITERS */
#define WT_PI_TID(v) ((int)((unsigned)(v) & ~WT_PI_WAITERS))

/* Takes the word for `me` (the caller's TCB id): 0, -ETIMEDOUT (deadline,
 * mono ns; -1 none), -ECANCELED (cancel: pthread_cancel ended the wait).
 * While it waits the holder runs with at least the caller's priority.
 * Context: a task or a thread weft did not create; may park. */
int wt_pi_lock(_Atomic int *w, int me, int64_t deadline, bool cancel);
/* 0 or -EBUSY. */
int wt_pi_trylock(_Atomic int *w, int me);
/* Releases the word the caller holds, wakes its waiters (the highest
 * priority takes it first), drops what was lent to the caller for it, and
 * gives way to a higher real-time task now runnable.  Context: as above. */
void wt_pi_unlock(_Atomic int *w);

#endif
