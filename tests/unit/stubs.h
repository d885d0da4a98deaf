/*
 * stubs.h — the test doubles the unit tests link in place of the rest of the
 * runtime (core/proc.c, core/worker.c, core/sysmon.c, core/task.c, stack/tls.c, core/config.c).  See stubs.c.
 */
#ifndef WEFT_UNIT_STUBS_H
#define WEFT_UNIT_STUBS_H

#include "sched/core/runtime.h"
#include "sched/core/park.h"
#include "sched/core/proc.h"
#include "sched/core/runq.h"
#include "sched/core/timer.h"
#include "sched/base/print.h"
#include "sched/base/throw.h"
#include "sched/base/slab.h"
#include "sched/core/sysmon.h"
#include "sched/core/task.h"
#include "sched/core/config.h"
#include "sched/io/netpoll.h"
#include "sched/stack/stack.h"
#include "sched/io/syscall.h"
#include "sched/stack/tls.h"

#define STUB_MAXPROCS 8
#define STUB_MAXREADY 4096

extern struct wt_p stub_procs[STUB_MAXPROCS];
extern _Atomic int stub_kicks;        /* wt_sysmon_kick calls */
extern _Atomic int stub_wakeps;       /* wt_wakep calls */
extern _Atomic int stub_commits;      /* wt_park_commit calls (simulated task parks) */
extern __thread struct wt_p *stub_curp; /* what wt_curp returns on this thread (stack/stack.c) */
extern struct wt_p *stub_pidle;       /* what wt_pidleget returns, once (io/netpoll.c) */
extern bool stub_tls_fail;            /* wt_tls_new fails (out of memory) */
extern void *stub_dtv_given, *stub_dtv_freed; /* the last DTV wt_tls_new got, wt_tls_dtv_free freed */
extern _Atomic int stub_injects;      /* wt_inject calls with a non-empty list */
extern struct wt_p *stub_inject_p;    /* the proc of the last one */

struct stub_ready {
	struct wt_task *t;
	struct wt_m *m;
};

/* Resets wt_sched with nprocs procs (ids 0..n-1, idle, empty queues) and
 * clears every counter and the ready list. */
void stub_reset(int nprocs);

/* The tasks wt_ready / wt_ready_m / wt_inject were called with, in call
 * order (wt_inject records m NULL). */
int stub_ready_count(void);
struct stub_ready stub_ready_get(int i);

/* A fake task for the simulated task mode: zeroed, idle, timer unqueued. */
void stub_task_init(struct wt_task *t, uint64_t id);

/* Waits (yielding, bounded by ~10 s) until cond(arg) holds; returns it. */
bool stub_wait_until(bool (*cond)(void *), void *arg);

#endif
