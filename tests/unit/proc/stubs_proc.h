/*
 * stubs_proc.h — the test doubles of the scheduler tests (stubs_proc.c).
 */
#ifndef WEFT_UNIT_STUBS_PROC_H
#define WEFT_UNIT_STUBS_PROC_H

#include "sched/core/runtime.h"
#include "sched/core/config.h"
#include "sched/signal/crash.h"
#include "sched/io/netpoll.h"
#include "sched/core/park.h"
#include "sched/observe/pprof.h"
#include "sched/core/preempt.h"
#include "sched/core/proc.h"
#include "sched/base/real.h"
#include "sched/core/runq.h"
#include "sched/signal/sigtask.h"
#include "sched/observe/timeline.h"
#include "sched/io/syscall.h"
#include "sched/core/sysmon.h"
#include "sched/core/task.h"
#include "sched/base/throw.h"
#include "sched/core/timer.h"
#include "sched/stack/tls.h"
#include "sched/core/worker.h"

/* wt_netpoll's answer, taken once, while wt_netpoll_waiters > 0. */
extern struct wt_task *_Atomic stub_netpoll_list;
extern _Atomic int stub_kicks;         /* wt_sysmon_kick calls */

/* A new task context (its TSan fiber, in the TSan build). */
void stub_ctx_new(const struct wt_ctx *c);
void stub_fiber_register(const struct wt_ctx *c, void *fiber);

#endif
