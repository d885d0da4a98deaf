/*
 * tidaddr.h — the words the kernel keeps per thread, kept per task
 * (tidaddr.c): set_tid_address's clear-tid word and set_robust_list's
 * robust list.
 */
#ifndef WEFT_TIDADDR_H
#define WEFT_TIDADDR_H

#include "core/runtime.h"

/* set_tid_address on the calling task t: addr becomes its clear-tid word
 * (NULL: none).  Returns t's id (gettid).  Context: t. */
int wt_tidaddr_set(struct wt_task *t, int *addr);
/* prctl(PR_GET_TID_ADDRESS) on t: its clear-tid word (the TCB's tid
 * word until it set one).  From then on every task's exit clears its
 * TCB's tid word too, as the kernel clears the one glibc registers.
 * Context: t. */
uintptr_t wt_tidaddr_get(struct wt_task *t);
/* set_robust_list on t: 0 or -EINVAL (len is not a robust_list_head's).
 * Context: t. */
int wt_robust_set(struct wt_task *t, uintptr_t head, size_t len);
/* get_robust_list of t (the caller or another live task). */
void wt_robust_get(struct wt_task *t, uintptr_t *head, size_t *len);
/* At t's exit, after its destructors: the robust list it set is walked
 * and its clear-tid word cleared and woken, as the kernel does for a
 * thread that ends.  Context: the exiting task; may make a system call. */
void wt_tidaddr_exit(struct wt_task *t);
/* Fork child: t's words are those glibc registers for the child's thread
 * (the TCB's). */
void wt_tidaddr_fork_child(struct wt_task *t);

#endif
