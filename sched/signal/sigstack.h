/*
 * sigstack.h — sigaltstack per task, and the stack a program's handler
 * runs on (sigstack.c).
 */
#ifndef WEFT_SIGSTACK_H
#define WEFT_SIGSTACK_H

#include <signal.h>

#include "core/runtime.h"

/* sigaltstack on t: sets t's alternate stack from ss (may be NULL), the
 * previous one in *old (may be NULL), as the kernel does for a thread; sp
 * is the caller's stack pointer (SS_ONSTACK, EPERM).  0 or -errno.
 * Context: t. */
int wt_sigstack_set(struct wt_task *t, const stack_t *ss, stack_t *old, uintptr_t sp);

/* Whether wt_sigstack_call will run handler u on t's alternate stack for a
 * signal that interrupted sp.  Context: a signal handler on t. */
bool wt_sigstack_alt(const struct wt_task *t, const struct sigaction *u, uintptr_t sp);

/* Calls the program's handler u for (sig, si, uc) on t (NULL: a thread
 * weft did not create): on t's alternate stack when u has SA_ONSTACK, t
 * has one and sp (the interrupted stack pointer) is not on it already;
 * else here.  The ucontext shows t's alternate stack meanwhile.  Context:
 * a signal handler (the trampoline, crash.c's fault handler). */
void wt_sigstack_call(struct wt_task *t, const struct sigaction *u, int sig, siginfo_t *si,
		      void *uc, uintptr_t sp);

#endif
