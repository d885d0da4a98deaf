/*
 * timeline.c — WEFTDEBUG=trace=FILE: recording the scheduler's events.
 *
 * Each worker has a ring of fixed-size records (timeline.h: struct
 * wt_tlbuf, 65536 records of 40 bytes), mapped when the worker starts;
 * sysmon and threads weft did not create share one more.  Recording an
 * event is a CAS on the ring's head (no lock; on a worker's ring only its
 * own thread competes, a signal handler that interrupted it at worst), a
 * vDSO clock read and a release store that marks the record complete.
 * A full ring drops the event and counts it: a worker never waits for
 * the writer.  The writer thread (timeline_write.c) drains the rings every
 * 10 ms, or sooner when a ring is half full, and at exit, after a SIGQUIT
 * dump and in a crash report.
 *
 * What is recorded, and where:
 *   RUN / STOP   core/proc.c, at every switch in and out of a task (execute,
 *                wt_mcall): the slices of each worker's track.  A STOP
 *                for a park carries the task's wait reason (the string
 *                weft keeps for the dump) and, for an IO wait, the
 *                descriptor;
 *   WAKE         core/proc.c (wt_ready_m, wt_inject): who readied whom.  The
 *                record's flow id is kept in the woken task (tl_flow) and
 *                its next RUN carries it, so the writer draws an arrow
 *                from the waker's slice to the woken task's next slice
 *                without matching records across rings;
 *   CREATE, EXIT core/task.c; STEAL core/proc.c; PREEMPT (sysmon's request)
 *                core/preempt.c; RETAKE (a proc taken from a blocked system
 *                call) and LOSTPROC io/syscall.c; HANDOFF (a proc handed to
 *                another worker) core/proc.c.
 *
 * Off (the default), each of those places costs one load and one
 * predictable branch on wt_tl_on.
 *
 * Context: every function here may run on a task, on g0, on sysmon or in
 * a signal handler; none blocks, parks or allocates (rings are mapped by
 * wt_tl_start and wt_tl_worker, outside the hot path).
 */
#include <string.h>
#include <sys/syscall.h>

#include "core/runtime.h"
#include "core/config.h"
#include "base/print.h"
#include "base/slab.h"
#include "timeline.h"
#include "core/timer.h"

WT_DORMANT_DATA bool wt_tl_on;
struct wt_tlbuf *_Atomic wt_tl_bufs;
struct wt_tlbuf *wt_tl_shared;

/* Flow ids: the ring's position in the list and the record's index, so
 * no counter is shared between workers. */
static uint64_t flow_id(struct wt_tlbuf *b, uint64_t idx)
{
	return ((uint64_t)(b->id + 2) << 32) | ((idx + 1) & 0xffffffffull);
}

/* The record, at time ts (mono ns). */
static uint64_t put(struct wt_tlbuf *b, int64_t ts, uint32_t kind, uint64_t task, uint64_t arg,
		    uint64_t arg2)
{
	uint64_t h = atomic_load_explicit(&b->head, memory_order_relaxed);
	uint64_t t;
	do {
		/* Acquire: pairs with the writer's release of tail, after
		 * which it no longer reads the slots before it. */
		t = atomic_load_explicit(&b->tail, memory_order_acquire);
		if (h - t >= WT_TL_N) {
			atomic_fetch_add_explicit(&b->dropped, 1, memory_order_relaxed);
			return 0;
		}
	} while (!atomic_compare_exchange_weak_explicit(&b->head, &h, h + 1, memory_order_relaxed,
							memory_order_relaxed));
	struct wt_tl_rec *r = &b->rec[h % WT_TL_N];
	uint64_t id = flow_id(b, h);
	r->ts = ts;
	r->task = task;
	r->arg = arg;
	r->arg2 = kind == WT_TL_WAKE ? id : arg2;
	r->kind = kind;
	/* Release: the fields above before the writer's acquire load of seq. */
	atomic_store_explicit(&r->seq, (uint32_t)(h + 1), memory_order_release);
	if (unlikely(h - t == WT_TL_N / 2))
		wt_tl_kick();
	return id;
}

uint64_t wt_tl_put(struct wt_tlbuf *b, uint32_t kind, uint64_t task, uint64_t arg, uint64_t arg2)
{
	return put(b, wt_nanotime(), kind, task, arg, arg2);
}

static struct wt_tlbuf *buf_of(struct wt_m *m)
{
	return m && m->tlbuf ? m->tlbuf : wt_tl_shared;
}

/* The caller's worker ring when it runs a task, else the shared one (g0
 * has no task to name its worker by: callers on g0 pass m instead). */
struct wt_tlbuf *wt_tl_here(void)
{
	struct wt_task *t = wt_cur();
	return buf_of(t ? t->m : NULL);
}

/* m: the worker switching to t (on its thread). */
void wt_tl_run(struct wt_m *m, struct wt_task *t)
{
	uint64_t flow = t->tl_flow;
	t->tl_flow = 0;
	wt_tl_put(buf_of(m), WT_TL_RUN, t->id, (uintptr_t)t->start, flow);
}

/* The same, at ts. */
static void run_at(struct wt_tlbuf *b, int64_t ts, struct wt_task *t)
{
	uint64_t flow = t->tl_flow;
	t->tl_flow = 0;
	put(b, ts, WT_TL_RUN, t->id, (uintptr_t)t->start, flow);
}

/* t switches out of m, for `why` (enum wt_tl_why), to next (NULL: to g0).
 * A park names its reason as the dump does: the caller's, or a sleep on
 * the task's own timer, else a plain wait. */
void wt_tl_switch(struct wt_m *m, struct wt_task *t, int why, struct wt_task *next)
{
	const char *reason = NULL;
	uint64_t fd = 0;
	if (why == WT_TL_PARK) {
		reason = t->wait_reason;
		if (!reason)
			reason = t->wait_on == &t->timer ? "sleep" : "wait";
		fd = (uint64_t)(unsigned)t->wait_fd;
	}
	/* A direct switch: one clock read for the end of one slice and the
	 * start of the next. */
	struct wt_tlbuf *b = buf_of(m);
	int64_t now = wt_nanotime();
	put(b, now, WT_TL_STOP, t->id, (uintptr_t)reason, (uint64_t)why | fd << 8);
	if (next)
		run_at(b, now, next);
}

/* t is being made runnable by the caller, which owns it until it is
 * queued: its flow id is stored before the queue publishes it.  m: the
 * caller's worker if known (g0), else found from the current task. */
void wt_tl_wake(struct wt_m *m, struct wt_task *t)
{
	struct wt_task *cur = wt_cur();
	struct wt_tlbuf *b = m ? buf_of(m) : buf_of(cur ? cur->m : NULL);
	t->tl_flow = wt_tl_put(b, WT_TL_WAKE, t->id, cur ? cur->id : 0, 0);
}

void wt_tl_event(struct wt_m *m, uint32_t kind, uint64_t task, uint64_t arg, uint64_t arg2)
{
	wt_tl_put(m ? buf_of(m) : wt_tl_here(), kind, task, arg, arg2);
}

static struct wt_tlbuf *buf_new(int id, int tid)
{
	struct wt_tlbuf *b = wt_mmap_anon(sizeof *b);
	if (!b) {
		static _Atomic int said;
		if (!atomic_exchange(&said, 1))
			wt_print("weft: trace: no memory for a worker's event buffer; its events "
				 "go to the shared one\n");
		return NULL;
	}
	b->id = id;
	b->tid = tid;
	struct wt_tlbuf *old = atomic_load_explicit(&wt_tl_bufs, memory_order_relaxed);
	do
		b->next = old;
	while (!atomic_compare_exchange_weak_explicit(&wt_tl_bufs, &old, b, memory_order_release,
						      memory_order_relaxed));
	return b;
}

/* Context: the new worker's thread, before it runs anything. */
void wt_tl_worker(struct wt_m *m)
{
	m->tlbuf = buf_new(m->id, m->ostid);
}

/* Context: core/start.c, on the initial thread running main (m0), before
 * sysmon and any other worker start (creating them publishes wt_tl_on
 * and the rings to them).  Tracing starts here, with main's first slice. */
void wt_tl_start(struct wt_m *m0)
{
	if (!wt_cfg.trace_path[0])
		return;
	/* A track number no thread has: above the kernel's PID_MAX_LIMIT. */
	if (!(wt_tl_shared = buf_new(-1, (1 << 22) + 1)))
		return;
	if (wt_tl_file_open(wt_cfg.trace_path) < 0)
		return;
	wt_tl_worker(m0);
	wt_tl_on = true;
	wt_tl_run(m0, m0->curg);
	wt_tl_writer_start();
}

/* Fork child, on the forking thread, alone (process/fork.c): the child traces on
 * into a file of its own (timeline_write.c).  What the parent recorded
 * and had not written is the parent's: the forking worker's ring and the
 * shared one are emptied, the other workers' rings (their threads are not
 * in the child) unmapped. */
void wt_tl_fork_reset(void)
{
	if (!wt_tl_on)
		return;
	struct wt_task *t = wt_cur();
	struct wt_tlbuf *mine = t && t->m ? t->m->tlbuf : NULL, *keep = NULL, *next;
	for (struct wt_tlbuf *b = atomic_load_explicit(&wt_tl_bufs, memory_order_relaxed); b; b = next) {
		next = b->next;
		if (b != mine && b != wt_tl_shared) {
			wt_syscall6(SYS_munmap, (long)b, sizeof *b, 0, 0, 0, 0);
			continue;
		}
		atomic_store_explicit(&b->tail, atomic_load_explicit(&b->head, memory_order_relaxed),
				      memory_order_relaxed);
		b->open = 0;
		b->next = keep;
		keep = b;
	}
	atomic_store_explicit(&wt_tl_bufs, keep, memory_order_relaxed);
	wt_tl_file_fork();
}

/* Fork child, at the end of process/fork.c's reset (the forking worker is worker
 * 0 with its new thread id): its track, the running task's slice, and
 * the child's writer thread. */
void wt_tl_fork_child(void)
{
	if (!wt_tl_on)
		return;
	struct wt_task *t = wt_cur();
	if (t && t->m && t->m->tlbuf) {
		t->m->tlbuf->id = t->m->id;
		t->m->tlbuf->tid = t->m->ostid;
		wt_tl_run(t->m, t);
	}
	wt_tl_writer_start();
}
