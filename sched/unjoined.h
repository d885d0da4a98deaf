/*
 * unjoined.h — the pthread_t of tasks that exited before they were joined
 * and gave their stack back at exit (unjoined.c).
 */
#ifndef WEFT_UNJOINED_H
#define WEFT_UNJOINED_H

#include "runtime.h"

/* t (exited, its stack released) keeps its pthread_t t->tp until its
 * join or detach; false when out of memory (t keeps its stack then). */
bool wt_unjoined_add(struct wt_task *t);
void wt_unjoined_del(struct wt_task *t);
/* The exited task whose pthread_t is pt, or NULL.  Context: any. */
struct wt_task *wt_unjoined_find(uintptr_t pt);
void wt_unjoined_scavenge(int64_t now); /* sysmon */
void wt_unjoined_fork_reset(void);

#endif
