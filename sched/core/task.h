/*
 * task.h — a task's life (task.c): create, first frame, exit, join,
 * detach, release.
 */
#ifndef WEFT_TASK_H
#define WEFT_TASK_H

#include "runtime.h"
#include "stack/stack.h"

/* Creates a task for pthread_create, stores its pthread_t in *handle and
 * makes it ready: 0, or
 * -EAGAIN (out of memory or stack slots), -EINVAL (a stack size too small
 * for the TCB and static TLS, as glibc).  attr: a pthread_attr_t, NULL, or
 * WT_ATTR_C11. */
int wt_task_create(const void *attr, void *(*fn)(void *), void *arg, unsigned long *handle);
/* attr of a thrd_create task (glibc's ATTR_C11_THREAD): default
 * attributes, and fn is an int (*)(void *) whose int, widened as glibc
 * widens it ((void *)(uintptr_t)), is the task's exit value. */
#define WT_ATTR_C11 ((const void *)(uintptr_t)-1)
WT_NORETURN void wt_task_exit(void *retval);
/* What an exited task leaves to the next context of its worker (wt_mcall's
 * fn): its DTV, its WT_EXITED, its joiner's wake-up or its release. */
void wt_task_after_exit(struct wt_m *m, struct wt_task *t, void *arg);
WT_NORETURN void wt_task_unwind(void *retval); /* pthread_exit */
/* A lookup by pthread_t, and every use of the record it finds, lie
 * inside a lookup section (task.c's essay, step 3): the record of a task
 * that exits meanwhile is kept for the caller.  Context: any; no parking
 * inside (wt_task_join ends its caller's section before it parks). */
void wt_task_lookup_begin(void);
void wt_task_lookup_end(void);
/* The task whose pthread_t is pt, or NULL (not a task of weft's, or one
 * that left a small record: wt_task_unjoined_end).  Context: inside a
 * lookup section. */
struct wt_task *wt_task_from_pthread(uintptr_t pt);
/* pthread_join or pthread_detach (ended: WT_ENDED_*) of a task that exited
 * unjoined and left a small record: 0 (*ret its exit value, when ret), or
 * -ESRCH when th names none. */
int wt_task_unjoined_end(uintptr_t th, void **ret, int ended);
/* No live task has pthread_t pt: how the task that had it ended, as glibc
 * remembers it in a cached descriptor (stack/stack.h: WT_ENDED_*; UNKNOWN counts
 * as joined), WT_ENDED_UNJOINED when it exited and left a small record for
 * its join, or -1 when pt was never weft's.  Context: any. */
#define WT_ENDED_UNJOINED 3
int wt_task_ended(uintptr_t pt);
/* Joins t: deadline mono ns, -1 forever, WT_JOIN_TRY for tryjoin.  0,
 * -EINVAL (detached or joined by another), -EBUSY (tryjoin: running),
 * -ETIMEDOUT, -ECANCELED (the caller was cancelled while waiting). */
#define WT_JOIN_TRY (-2)
int wt_task_join(struct wt_task *t, void **ret, int64_t deadline); /* ends the section */
int wt_task_detach(struct wt_task *t);     /* 0 or -EINVAL */
/* Cancellation: see task.c. */
void wt_task_cancel(struct wt_task *t);    /* pthread_cancel */
WT_NORETURN void wt_cancel_act(void);      /* a cancellation point acts on a pending cancel */
void wt_testcancel(void);                  /* a cancellation point */
bool wt_cancel_set_disabled(struct wt_task *t, bool on); /* returns the old setting */
bool wt_cancel_set_async(struct wt_task *t, bool on);    /* returns the old setting */
static inline bool wt_cancel_pending(struct wt_task *t)
{
	int c = atomic_load(&t->cancel);
	return (c & (WT_CANCEL_REQ | WT_CANCEL_DISABLED | WT_CANCEL_EXITING)) == WT_CANCEL_REQ;
}
/* t is cancelable at any instruction (PTHREAD_CANCEL_ASYNCHRONOUS, enabled). */
static inline bool wt_cancel_async_on(struct wt_task *t)
{
	int c = atomic_load(&t->cancel);
	return (c & (WT_CANCEL_ASYNC | WT_CANCEL_DISABLED | WT_CANCEL_EXITING)) == WT_CANCEL_ASYNC;
}
static inline bool wt_cancel_async_pending(struct wt_task *t)
{
	int c = atomic_load(&t->cancel);
	return (c & (WT_CANCEL_REQ | WT_CANCEL_ASYNC | WT_CANCEL_DISABLED | WT_CANCEL_EXITING)) ==
	       (WT_CANCEL_REQ | WT_CANCEL_ASYNC);
}
/* Where weft returns to a task's own code that may run with asynchronous
 * cancellation: acts on a pending cancel then.  Context: a task. */
void wt_cancel_async_point(void);
/* Around a libc call that is a cancellation point (shim.h: CANCELABLE):
 * begin marks it, so that pthread_cancel signals the worker, and returns
 * whether a cancel is pending already (the caller then acts on it
 * instead of making the call).  Context: the task, inside its
 * entersyscall bracket. */
static inline bool wt_cancel_call_begin(struct wt_task *t)
{
	atomic_store(&t->cancel_call, WT_CALL_EINTR); /* seq_cst: see wt_preempt_cancel's reads */
	return wt_cancel_pending(t);
}
/* As wt_cancel_call_begin, for a libc call that waits again after EINTR:
 * a cancel unwinds the task from inside the call (WT_CALL_UNWIND). */
static inline bool wt_cancel_wait_begin(struct wt_task *t)
{
	atomic_store(&t->cancel_call, WT_CALL_UNWIND); /* seq_cst: as above */
	return wt_cancel_pending(t);
}
/* Marks a wait that is no cancellation point, made while t has
 * asynchronous cancellation enabled (WT_CALL_ASYNC).  Context: as above. */
static inline void wt_cancel_async_wait_begin(struct wt_task *t)
{
	atomic_store(&t->cancel_call, WT_CALL_ASYNC); /* seq_cst: as above */
}
static inline void wt_cancel_call_end(struct wt_task *t)
{
	atomic_store_explicit(&t->cancel_call, WT_CALL_NONE, memory_order_relaxed);
}
/* A WT_CALL_UNWIND call was unwound by a cancel: the mark goes, and so does
 * glibc's asynchronous-type bit, which glibc's own return path would have
 * cleared.  Context: the task, unwinding (a cleanup handler). */
void wt_cancel_wait_unwound(struct wt_task *t);
/* Joined (ended WT_ENDED_JOINED), or detached and dead (WT_ENDED_DETACHED). */
void wt_task_release(struct wt_task *t, struct wt_p *p, int ended);
/* t has exited (pthread_kill: 0, nothing sent, as glibc). */
static inline bool wt_task_dead(struct wt_task *t)
{
	return atomic_load(&t->state) == WT_DEAD;
}
/* t was created or made detached (pthread_getattr_np); false once exited. */
static inline bool wt_task_detached(struct wt_task *t)
{
	return atomic_load(&t->join) == WT_DETACHED;
}
struct wt_task *wt_task_alloc(void);
void wt_task_scavenge(int64_t now); /* sysmon: released task records' pages */
void wt_task_link(struct wt_task *t);
void wt_task_entry(struct wt_task *t);     /* first frame of every task */
/* In place of the program's main (from __libc_start_main): runs main as
 * the main task on a slot stack; returns what main returned (glibc then
 * calls exit).  Runs main unchanged when weft does not run the program. */
int wt_task_run_main(int (*main)(int, char **, char **), int argc, char **argv, char **envp);
void wt_task_fork_reset(struct wt_task *self);
extern _Atomic long wt_ntasks;             /* live tasks, main included */
uint64_t wt_task_ids(void);                /* ids handed out so far: moves at every create */
extern struct wt_task *wt_main_task;       /* start.c */

/* t's name as the program set it (pthread_setname_np, prctl), "" if it
 * never did, copied into out[16] whole: another task may be renaming it.
 * Context: any. */
static inline void wt_task_name_copy(const struct wt_task *t, char out[16])
{
	for (int i = 0; i < 16; i++)
		out[i] = __atomic_load_n(&t->name[i], __ATOMIC_RELAXED);
	out[15] = 0;
}
/* Sets t's name (at most 15 bytes of name, as the kernel keeps). */
static inline void wt_task_name_set(struct wt_task *t, const char *name)
{
	int i = 0;
	for (; i < 15 && name[i]; i++)
		__atomic_store_n(&t->name[i], name[i], __ATOMIC_RELAXED);
	for (; i < 16; i++)
		__atomic_store_n(&t->name[i], 0, __ATOMIC_RELAXED);
}

/* Names the wait the caller is about to park in (wt_park clears it). */
static inline void wt_wait_reason(const char *why)
{
	struct wt_task *t = wt_cur();
	if (t)
		t->wait_reason = why;
}

/* A task switched in: see `resumes`.  The release fence orders the bump
 * before the stack writes that follow (a compiler barrier on x86); it pairs
 * with the acquire fence in observe/dump.c after its stack reads. */
static inline void wt_task_resumed(struct wt_task *t)
{
	atomic_store_explicit(&t->resumes,
			      atomic_load_explicit(&t->resumes, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
}

#endif
