/*
 * unjoined.h — what a task that exited before its join leaves behind, found
 * by its pthread_t (unjoined.c).
 */
#ifndef WEFT_UNJOINED_H
#define WEFT_UNJOINED_H

#include "runtime.h"

/* A task that exited joinable, with no joiner yet, and gave its stack and
 * its task record back at exit: what its join, detach or
 * pthread_getattr_np still reads.  48 bytes against the record's 632. */
struct wt_unjoined {
	uintptr_t tp;                 /* [const] its thread pointer (its pthread_t's) */
	void *retval;                 /* [const] what pthread_join returns */
	struct wt_unjoined *next;     /* [unjoined.lock] chain of its bucket */
	char *stack_top;              /* [const] its stack as pthread_getattr_np reports it */
	size_t stack_size, guard_size; /* [const] */
};

/* A record for t, filled from it; NULL when out of memory.  Context: any;
 * allocates from weft's slab. */
struct wt_unjoined *wt_unjoined_new(struct wt_task *t);
void wt_unjoined_free(struct wt_unjoined *u);
/* u's pthread_t stays found until its join or detach takes it; false when
 * out of memory. */
bool wt_unjoined_add(struct wt_unjoined *u);
/* The record whose pthread_t is pt, taken out of the table (its join or
 * detach), or NULL.  Context: any. */
struct wt_unjoined *wt_unjoined_take(uintptr_t pt);
/* A copy of the record whose pthread_t is pt into *copy; false: none.
 * Context: any. */
bool wt_unjoined_find(uintptr_t pt, struct wt_unjoined *copy);
void wt_unjoined_scavenge(int64_t now); /* sysmon */
void wt_unjoined_fork_reset(void);

#endif
