/*
 * vfork.h — a child of vfork runs on its parent's memory, with the runtime
 * left alone (vfork.c).
 */
#ifndef WEFT_VFORK_H
#define WEFT_VFORK_H

#include <stdbool.h>

/* True on a vfork child's thread until it execs or exits (and, in the
 * parent, inside the vfork call itself).  In the calling task's static TLS:
 * the child runs on that task's thread pointer.  [owner: the task] */
extern __thread bool wt_vfork_tls __attribute__((tls_model("initial-exec")));

/* Is this thread a vfork child?  Then its descriptor table, signal
 * dispositions and credentials are its own, not the process's weft
 * mirrors: calls act on the kernel only.  Context: program code (a task,
 * or a thread weft did not create), never g0 or sysmon. */
static inline bool wt_vfork_child(void)
{
	return __builtin_expect(wt_vfork_tls, 0);
}

/* The exported vfork (arch vfork.S) around its system call: enter before,
 * then child in the child and parent(raw result) in the parent, which
 * returns vfork's value (-1 with errno set on failure). */
void wt_vfork_enter(void);
void wt_vfork_child_start(void);
long wt_vfork_parent(long r);

#endif
