/*
 * affinity.h — tasks' CPU masks (affinity.c): recorded per task, their
 * union given to the workers, GOMAXPROCS following it.
 */
#ifndef WEFT_AFFINITY_H
#define WEFT_AFFINITY_H

#include <stddef.h>

#include "core/runtime.h"

#define WT_AFF_WORDS 16 /* 1024 CPUs, glibc's cpu_set_t */

/* t's mask into out; returns whether t has one of its own (false: the
 * process's mask at start, which out then holds).  Takes alllock. */
bool wt_aff_of(struct wt_task *t, uint64_t out[WT_AFF_WORDS]);
/* in restricted to the CPUs the process may use, into out: 0, or -EINVAL
 * when none is left (as the kernel answers). */
int wt_aff_check(const uint64_t in[WT_AFF_WORDS], uint64_t out[WT_AFF_WORDS]);
/* sched_setaffinity on t (len bytes of mask): 0, -EINVAL, -EFAULT. */
int wt_aff_set(struct wt_task *t, size_t len, const void *mask);
/* t's own mask into out and true, or false when it has none (then out is
 * untouched): the creator's mask a new task inherits. */
bool wt_aff_own(struct wt_task *t, uint64_t out[WT_AFF_WORDS]);
/* A new task's own mask, before anyone sees it: false when out of memory. */
bool wt_aff_start(struct wt_task *t, const uint64_t m[WT_AFF_WORDS]);
/* A released task's mask goes back (core/task.c). */
void wt_aff_release(struct wt_task *t);
/* sched_getaffinity on t: the bytes written (the kernel's mask size), or
 * -EINVAL / -EFAULT as the kernel answers for len. */
int wt_aff_get(struct wt_task *t, size_t len, void *mask);
/* After a task's mask changed or a task with its own mask was created:
 * the workers get the union of all tasks' masks, and GOMAXPROCS follows
 * its CPU count (unless GOMAXPROCS was set).  Context: a task or a thread
 * weft did not create; takes alllock, then sched.lock. */
void wt_aff_apply(void);
/* CPUs in the union of the tasks' masks (0 before any task set one). */
int wt_aff_ncpu(void);

#endif
