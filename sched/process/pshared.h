/*
 * pshared.h — owner ids for process-shared locks (pshared.c).
 */
#ifndef WEFT_PSHARED_H
#define WEFT_PSHARED_H

#include "core/runtime.h"
#include "stack/tls.h"

/* The current task's owner id for process-shared objects (allocated on its
 * first use).  Context: a task; never blocks. */
int wt_pshared_id(struct wt_task *t);
/* A task that exits gives its id back, and the robust mutexes it still
 * holds are marked owner-died (EOWNERDEAD for their next locker), as the
 * kernel marks a dying thread's.  Context: the exiting task. */
void wt_pshared_release(struct wt_task *t);
/* What the kernel does with a dying thread's robust list (its head:
 * first entry, futex offset, pending entry) for the thread whose id is
 * tid: each lock word on it that tid holds is marked FUTEX_OWNER_DIED and
 * one waiter woken (a shared wake).  At most 2048 entries, read as the
 * kernel reads them: the walk stops at memory that is not mapped (a list
 * the program registered with set_robust_list may have its head in a
 * frame long returned from), as for glibc's own list in the TCB.
 * Context: the exiting task. */
void wt_robust_walk(uintptr_t *head, uint32_t tid);
/* Fork child: t (the forking task) is the process's first thread now. */
void wt_pshared_fork_reset(struct wt_task *t);
/* The main task at start. */
void wt_pshared_init(struct wt_task *main_task);
/* After a robust mutex was locked (glibc marks every robust mutex
 * process-shared): says once on stderr when the death of the process
 * would go unseen by other processes sharing it. */
void wt_pshared_robust_locked(void);

/* Around glibc's call on a process-shared object: the TCB's tid field (the
 * owner id glibc reads) holds the task's process-shared id; returns the
 * value to restore.  A thread that is not a task keeps its kernel tid.
 * Context: any caller; never blocks. */
static inline int wt_pshared_enter(void)
{
	struct wt_task *t = wt_cur();
	if (!t)
		return 0;
	int *f = (int *)(wt_tls_pd(t->tp) + wt_off_tid);
	int old = *f;
	*f = wt_pshared_id(t);
	return old;
}

static inline void wt_pshared_leave(int old)
{
	struct wt_task *t = wt_cur();
	if (t)
		*(int *)(wt_tls_pd(t->tp) + wt_off_tid) = old;
}

#endif
