/*
 * tidaddr.c — the clear-tid word and the robust list of a task.
 *
 * The kernel keeps two addresses per thread that name memory of the
 * program: the clear-tid word (set_tid_address; CLONE_CHILD_CLEARTID),
 * which it sets to 0 and wakes (FUTEX_WAKE of 1, shared) when the thread
 * ends (a task's wake reaches a waiter parked by a flagless FUTEX_WAIT
 * there too: shmap.c's wt_shmap_wake), and the robust list head (set_robust_list), whose lock words the
 * dying thread holds it marks FUTEX_OWNER_DIED.  A worker's are weft's
 * (glibc registered them for the worker's own TCB) and a worker outlives
 * the tasks it runs, so a task's calls never reach the kernel: each task
 * keeps its own pair, and its exit (wt_task_exit, after the destructors
 * and pshared.c's walk of glibc's list) does what the kernel does, in the
 * kernel's order: the robust list first, then the clear-tid word.  The
 * owner id on both is the task's id, the one gettid gives it.
 *
 * Until a task sets them they are what glibc registers for a thread: the
 * TCB's tid word and the TCB's robust list.  weft's pthread_join does not
 * wait on the tid word, so a task's exit leaves it alone (no system call
 * per exit), until the program asks where it is
 * (prctl(PR_GET_TID_ADDRESS)): from then on every exit clears and wakes
 * it, since the program may wait on one.  The TCB's robust list is walked
 * by pshared.c (its mutexes are locked under the process-shared owner id).
 *
 * Rejected: issuing set_tid_address on the worker while the task runs and
 * restoring it at each switch: two system calls per switch, and a worker's
 * word must stay weft's anyway when a task ends on it.
 */
#include <errno.h>
#include <linux/futex.h>

#include "core/runtime.h"
#include "cpuclock.h"
#include "base/lock.h"
#include "pshared.h"
#include "shmap.h"
#include "tidaddr.h"
#include "stack/tls.h"

/* [atomic, relaxed] a tid word's address was asked for: exits clear the
 * TCB's tid word too. */
static _Atomic bool tcb_word_seen;

int wt_tidaddr_set(struct wt_task *t, int *addr)
{
	t->cleartid = (uintptr_t)addr;
	t->cleartid_set = true;
	return wt_task_kernel_id(t);
}

uintptr_t wt_tidaddr_get(struct wt_task *t)
{
	if (t->cleartid_set)
		return t->cleartid;
	if (!atomic_load_explicit(&tcb_word_seen, memory_order_relaxed))
		atomic_store_explicit(&tcb_word_seen, true, memory_order_relaxed);
	return wt_tls_pd(t->tp) + wt_off_tid;
}

int wt_robust_set(struct wt_task *t, uintptr_t head, size_t len)
{
	if (len != 3 * sizeof(long)) /* sizeof(struct robust_list_head) */
		return -EINVAL;
	atomic_store_explicit(&t->robust_head, head, memory_order_relaxed);
	atomic_store_explicit(&t->robust_len, len, memory_order_relaxed);
	return 0;
}

void wt_robust_get(struct wt_task *t, uintptr_t *head, size_t *len)
{
	size_t l = atomic_load_explicit(&t->robust_len, memory_order_relaxed);
	if (!l) {
		*head = wt_off_robust ? wt_tls_pd(t->tp) + wt_off_robust : 0;
		*len = 3 * sizeof(long);
		return;
	}
	*head = atomic_load_explicit(&t->robust_head, memory_order_relaxed);
	*len = l;
}

void wt_tidaddr_exit(struct wt_task *t)
{
	uintptr_t tcb_list = wt_off_robust ? wt_tls_pd(t->tp) + wt_off_robust : 0;
	uintptr_t head = atomic_load_explicit(&t->robust_head, memory_order_relaxed);
	if (atomic_load_explicit(&t->robust_len, memory_order_relaxed) && head &&
	    head != tcb_list)
		wt_robust_walk((uintptr_t *)head, (uint32_t)wt_task_kernel_id(t));
	uintptr_t w = t->cleartid;
	if (!t->cleartid_set) {
		if (!atomic_load_explicit(&tcb_word_seen, memory_order_relaxed))
			return;
		w = wt_tls_pd(t->tp) + wt_off_tid;
	}
	if (!w)
		return;
	/* Release: what the task wrote is seen by whoever sees the 0 (the
	 * kernel's clear is a full barrier). */
	atomic_store_explicit((_Atomic int *)w, 0, memory_order_release);
	wt_shmap_wake((_Atomic int *)w, 1); /* a waiter may be a parked task */
}

void wt_tidaddr_fork_child(struct wt_task *t)
{
	t->cleartid_set = false;
	atomic_store_explicit(&t->robust_len, 0, memory_order_relaxed);
}
