/*
 * thread.h — weft's own OS threads, and glibc's single-threaded mode
 * (thread.c).
 */
#ifndef WEFT_THREAD_H
#define WEFT_THREAD_H

#include <signal.h>
#include <ucontext.h>

#include "runtime.h"

/* Starts fn(arg) on a detached glibc thread of weft's; 0 or -errno
 * (-EAGAIN from a thread other than the only task's while glibc is in its
 * single-threaded mode).  The caller counts it in wt_nthreads. */
int wt_thread_spawn(void *(*fn)(void *), void *arg, size_t stack);
bool wt_spawn_through_interposers(void); /* weak: false (libc's pthread_create) */
void wt_spawn_fork_prepare(void);          /* forking task: wait for creations under way */
void wt_spawn_fork_parent(void);           /* forking task, parent: creations go on */
void wt_spawn_fork_reset(void);            /* fork child */

/* At start: glibc's mode as the program left it (a constructor may have
 * made threads already). */
void wt_libc_mode_init(void);
/* glibc may still be in its single-threaded mode: no glibc thread may be
 * made from a thread other than the only task's.  Context: any. */
bool wt_libc_single(void);
/* Switches glibc to its multi-threaded mode for good (a glibc thread made
 * and joined), if not yet; 0 or -errno (EAGAIN: no thread could be made).
 * tp: the only task's TCB, when the caller is not that task.  Context: the
 * only task; or sysmon while that task is held off every worker (proc.c). */
int wt_libc_threaded(uintptr_t tp);

/* Switches glibc's mode from sysmon while t, the only task, waits: the
 * only worker (OS thread ostid), idle in a wait that holds nothing, is
 * held in its signal handler meanwhile.  false: it was not idle there, or
 * did not answer within 100 ms.  Context: sysmon. */
bool wt_libc_threaded_idle(struct wt_task *t, int ostid);
/* SIGURG's handler: a request of wt_libc_threaded_idle's (true, taken). */
bool wt_libc_freeze_signal(const siginfo_t *si, const ucontext_t *uc);

/* A thread made with clone, not glibc: its stack (a guard page under it)
 * and its TCB of weft's at the top, kept for a fork child's new one. */
struct wt_raw {
	char *base;     /* the mapping: guard page, then the stack */
	size_t size;    /* the stack's bytes */
	uintptr_t tp;   /* the last thread's TCB */
	char *sp;       /* its first stack pointer */
	void *dtv;
};
/* Starts fn(arg) on a raw thread, every signal but SIGSEGV and SIGBUS
 * blocked; 0 or -errno.
 * Context: the initial thread at start, or a fork child's only one; it
 * allocates the TCB's DTV. */
int wt_thread_raw(int (*fn)(void *), void *arg, size_t size, struct wt_raw *r);
/* The two halves of wt_thread_raw: the stack and a fresh TCB (same
 * context, allocates the DTV), then the clone itself, under the TCB and
 * stack r holds (any context: no allocation, no lock).  A TCB prepared
 * once may start one thread at a time; a fork child may start it again as
 * it is, since the child has none of its parent's other threads. */
int wt_thread_raw_prepare(size_t size, struct wt_raw *r);
int wt_thread_raw_clone(int (*fn)(void *), void *arg, struct wt_raw *r);

#endif
