/*
 * tracer.h — ptrace requests made on the OS thread that is the tracee's
 * tracer, whichever worker the calling task runs on (tracer.c).
 */
#ifndef WEFT_TRACER_H
#define WEFT_TRACER_H

#include <signal.h>

#include "base/base.h"

/* ptrace(req, pid, addr, data) as a raw system call on the worker that
 * traces pid: the one that answered for pid before, else each worker but
 * the caller's in turn.  The kernel's value (-errno), -ESRCH when no
 * worker traces pid.  Context: a task, after its own thread said ESRCH;
 * blocks its worker for the round trip. */
long wt_ptrace_remote(long req, long pid, long addr, long data);
/* The calling thread attached to pid (PTRACE_ATTACH, PTRACE_SEIZE): it is
 * pid's tracer.  Context: a task. */
void wt_ptrace_attached(long pid);
/* The calling thread answered a request about a tracee: it is a tracer,
 * and never retires.  Context: a task; a load and at most a store. */
void wt_ptrace_answered(void);
/* The SIGURG handler: a request of wt_ptrace_remote's?  Then it is done. */
bool wt_ptrace_signal(const siginfo_t *si);
void wt_ptrace_fork_reset(void);

#endif
