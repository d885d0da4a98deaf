/*
 * runq.h — the run queues (runq.c): each proc's ring and runnext, and the
 * global queue.
 */
#ifndef WEFT_RUNQ_H
#define WEFT_RUNQ_H

#include "runtime.h"

/* Context: p's owner. */
void wt_runq_put(struct wt_p *p, struct wt_task *t, bool next);
struct wt_task *wt_runq_get(struct wt_p *p);
struct wt_task *wt_runq_get_inherit(struct wt_p *p, bool *inherit); /* from runnext? */
void wt_runq_demote_next(struct wt_p *p);  /* runnext to the ring's tail */
struct wt_task *wt_runq_steal(struct wt_p *p, struct wt_p *victim, bool stealnext);
uint32_t wt_runq_len(struct wt_p *p);      /* any context; a snapshot */
/* [sched.lock] */
void wt_globrunq_put(struct wt_task *t);
void wt_globrunq_puthead(struct wt_task *t);
struct wt_task *wt_globrunq_get(struct wt_p *p, int max);
bool wt_globrunq_take(struct wt_task *t); /* [sched.lock] false: not queued there */

#endif
