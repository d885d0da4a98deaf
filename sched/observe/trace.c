/*
 * trace.c — WEFTDEBUG=schedtrace=MS[,scheddetail=1]: the scheduler's state
 * every MS ms on stderr, in the format of Go's GODEBUG=schedtrace,
 * so that the same reading of it applies:
 *
 *   SCHED 5ms: gomaxprocs=2 idleprocs=0 threads=4 spinningthreads=0
 *     idlethreads=1 runqueue=0 [ 17 31 ] schedticks=[ 40 12 ]
 *
 * runqueue is the global queue, the first bracket each proc's local queue
 * (its ring; a task in runnext is not counted, as in Go), schedticks how
 * many tasks each proc has started (the extra column of Go 1.27).
 * scheddetail=1 adds, as Go does, one line per proc (P), per worker (M) and
 * per task (G):
 *
 *   P0: status=1 schedtick=40 syscalltick=3 m=0 runqsize=17 gfreecnt=2
 *   M1: p=1 curg=7 mallocing=0 throwing=0 preemptoff= locks=0 dying=0
 *     spinning=false blocked=false lockedg=-1
 *   G7: status=2() m=1 lockedm=nil
 *   G9: status=4(pthread_cond_wait) m=nil lockedm=nil
 *
 * Status numbers are Go's (P: 0 idle, 1 running, 2 in a system call; G:
 * 0 not started, 1 runnable, 2 running, 3 running in a system call,
 * 4 waiting).  gfreecnt is the proc's cache of free stack slots (Go's
 * free G list, which keeps stacks too).  M lines print Go's fields that
 * weft has no counterpart for (mallocing, throwing, preemptoff, locks,
 * dying, lockedg) with the values Go prints for an ordinary worker, so that
 * tools reading Go's trace read this one; G lines likewise print
 * lockedm=nil.  Go's timerslen is left out: weft keeps one timer heap, not
 * one per proc.  blocked=true is a worker asleep on its futex (idle).
 *
 * Context: sysmon.  Reads other threads' fields without their locks, as Go
 * does: the numbers are a snapshot, each field read once.  Workers and
 * procs are never freed; the task list is walked under alllock, so no task
 * struct is released while it is read.
 */
#include "core/runtime.h"
#include "core/task.h"
#include "core/config.h"
#include "base/print.h"
#include "core/runq.h"
#include "stack/stack.h"
#include "stack/tls_static.h"
#include "trace.h"
#include "core/worker.h"

static const char *bool_str(bool b)
{
	return b ? "true" : "false";
}

static void trace_procs(struct wt_wbuf *o)
{
	for (int i = 0; i < wt_sched.nprocs; i++) {
		struct wt_p *p = &wt_sched.procs[i];
		struct wt_m *m = p->m;
		char mid[16] = "nil";
		if (m)
			wt_snprintf(mid, sizeof mid, "%d", m->id);
		wt_wprint(o, "  P%d: status=%d schedtick=%lu syscalltick=%lu m=%s runqsize=%u "
			  "gfreecnt=%d\n", i, WT_P_KIND(atomic_load(&p->status)),
			  (unsigned long)p->schedtick, (unsigned long)p->syscalltick, mid,
			  wt_runq_len(p), p->slots.n);
	}
}

static void trace_workers(struct wt_wbuf *o)
{
	/* Idle workers: the ones asleep on their futex (Go's "blocked"). */
	uint64_t idle[16] = { 0 };
	wt_lock(&wt_sched.lock);
	struct wt_m *all = atomic_load_explicit(&wt_sched.allm, memory_order_acquire);
	for (struct wt_m *m = wt_sched.midle; m; m = m->link)
		if (m->id >= 0 && m->id < 1024)
			idle[m->id / 64] |= 1ull << (m->id % 64);
	wt_unlock(&wt_sched.lock);
	/* alllink is constant once a worker is published: no lock needed. */
	for (struct wt_m *m = all; m; m = m->alllink) {
		struct wt_p *p = m->p;
		struct wt_task *g = m->curg;
		bool blocked = m->id >= 0 && m->id < 1024 && (idle[m->id / 64] >> (m->id % 64)) & 1;
		wt_wprint(o, "  M%d: p=%d curg=%ld mallocing=0 throwing=0 preemptoff= locks=0 "
			  "dying=0 spinning=%s blocked=%s lockedg=-1\n", m->id, p ? p->id : -1,
			  g ? (long)g->id : -1l, bool_str(m->spinning), bool_str(blocked));
	}
}

/* Go's G status numbers (its _Gidle... constants), which schedtrace prints. */
enum { G_IDLE = 0, G_RUNNABLE = 1, G_RUNNING = 2, G_SYSCALL = 3, G_WAITING = 4, G_DEAD = 6 };

/* Go's G status number for a task. */
static int go_status(struct wt_task *t, int st, struct wt_m *m)
{
	switch (st) {
	case WT_IDLE: return G_IDLE;
	case WT_RUNNABLE: return G_RUNNABLE;
	case WT_RUNNING: return m && m->insyscall ? G_SYSCALL : G_RUNNING;
	case WT_WAITING: return G_WAITING;
	default: return G_DEAD;
	}
}

static void trace_tasks(struct wt_wbuf *o)
{
	wt_lock(&wt_sched.alllock);
	/* Oldest first, as Go lists goroutines: the list is newest first. */
	struct wt_task *t = wt_sched.alltasks;
	while (t && t->alllink)
		t = t->alllink;
	for (; t; t = t->allprev) {
		int st = atomic_load_explicit(&t->state, memory_order_relaxed);
		struct wt_m *m = st == WT_RUNNING ? t->m : NULL;
		const char *why = st == WT_WAITING ? t->wait_reason : NULL;
		if (st == WT_WAITING && !why)
			why = t->wait_on == &t->timer ? "sleep" : "wait";
		char mid[16] = "nil";
		if (m)
			wt_snprintf(mid, sizeof mid, "%d", m->id);
		char name[sizeof t->name];
		wt_task_name_copy(t, name);
		wt_wprint(o, "  G%lu: status=%d(%s) m=%s lockedm=nil%s%s\n", (unsigned long)t->id,
			  go_status(t, st, m), why ? why : "", mid, name[0] ? " name=" : "", name);
	}
	wt_unlock(&wt_sched.alllock);
}

/* Context: sysmon.  since: ns since the runtime started. */
void wt_sched_trace(int64_t since)
{
	char buf[8192];
	struct wt_wbuf o = { buf, 0, sizeof buf, 2, NULL };
	wt_wprint(&o, "SCHED %ldms: gomaxprocs=%d idleprocs=%d threads=%d spinningthreads=%d "
		  "idlethreads=%d runqueue=%d [", (long)(since / 1000000), wt_sched.nprocs,
		  atomic_load(&wt_sched.npidle), atomic_load(&wt_nthreads),
		  atomic_load(&wt_sched.nmspinning), wt_sched.nmidle,
		  atomic_load(&wt_sched.runq_size));
	for (int i = 0; i < wt_sched.nprocs; i++)
		wt_wprint(&o, " %u", wt_runq_len(&wt_sched.procs[i]));
	wt_wprint(&o, " ] schedticks=[");
	for (int i = 0; i < wt_sched.nprocs; i++)
		wt_wprint(&o, " %lu", (unsigned long)wt_sched.procs[i].schedtick);
	wt_wprint(&o, " ]\n");
	if (wt_cfg.scheddetail) {
		wt_wprint(&o, "  stacks: guards=%s static-tls=%s\n", wt_guard_method, wt_tls_layout);
		trace_procs(&o);
		trace_workers(&o);
		trace_tasks(&o);
	}
	wt_wflush(&o);
}
