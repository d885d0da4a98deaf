/*
 * getrandom.h — glibc's per-thread getrandom states under tasks
 * (getrandom.c).
 */
#ifndef WEFT_GETRANDOM_H
#define WEFT_GETRANDOM_H

#include "base/base.h"
#include "tls.h"

/* Around a call of glibc's that may take the task's getrandom state
 * (shim/random.c), of a kind: */
enum {
	WT_RNG_MAYBE, /* may take one (getentropy, tmpfile) */
	WT_RNG_TAKES, /* surely takes one (the temporary-name functions) */
	WT_RNG_PURE,  /* surely takes one and does nothing else (getrandom, arc4random) */
};
/* Context: a task or a thread weft did not create. */
struct wt_rng { struct wt_pin pin; bool observe; };
struct wt_rng wt_rng_enter(int kind);
void wt_rng_leave(struct wt_rng r);
/* Context: g0, after task tp ended (task.c): its state kept for the next. */
void wt_rng_task_end(uintptr_t tp);
void wt_rng_fork_reset(void); /* fork.c, in the child */

#endif
