/*
 * worker.h — workers, the OS threads that run tasks (worker.c).
 */
#ifndef WEFT_WORKER_H
#define WEFT_WORKER_H

#include "runtime.h"
#include "thread.h"

struct wt_m *wt_newm(struct wt_p *p, bool spinning); /* NULL at the thread cap */
struct wt_m *wt_m0_alloc(void);            /* the initial thread */
void wt_worker_init_self(struct wt_m *m);
void wt_stopm(struct wt_m *m);             /* g0: sleep until handed a proc */
struct wt_m *wt_m_of_tid(int tid);         /* by OS thread id, lock-free */
void wt_worker_fork_reset(void);
extern _Atomic int wt_nthreads;            /* OS threads weft runs */
/* Counts one more OS thread of weft's that only helps (process/pshared.c's
 * holders) unless that would pass WEFT_MAXTHREADS: false then, and
 * nothing said (the caller does without it).  Context: any. */
bool wt_thread_count_in(void);

#endif
