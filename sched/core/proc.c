/*
 * proc.c — the scheduler: which task runs next on a worker.
 *
 * A worker (M) runs task code only while it holds a proc (P).  Its loop,
 * wt_schedule, runs on the worker's own stack ("g0"):
 *
 *   1. find a runnable task (findrunnable): expired timers, the proc's
 *      runnext and ring, every 61st tick the global queue first (fairness),
 *      the global queue, then steal half of another proc's ring;
 *   2. switch to it (execute); the task runs until it parks, yields or
 *      exits, each of which switches out through wt_mcall: to g0, or on a
 *      park straight to the proc's next runnable task (a hand-off);
 *   3. whoever runs next on the worker finishes what the task asked for
 *      (m->after: release the park lock, requeue after a yield, free the
 *      stack after an exit); repeat.
 *
 * With nothing to run, a worker gives up its proc and sleeps on a futex
 * (stopm).  wt_ready wakes one (wakep) only when a proc is idle and no
 * worker is already spinning (looking for work), so a burst of wake-ups
 * does not cost a futex each.  A worker that stops spinning re-checks every
 * run queue before sleeping: the waker may have seen it spinning and not
 * woken anyone.
 *
 * Signal masks (sched/signal/sigtask.c) follow the task at no cost while masks are
 * equal.  Ordering at a switch to task N: the switching side (task or g0)
 * blocks at the thread level whatever N blocks more than the thread does
 * (wt_sig_preswitch), so neither side's code ever runs with a signal
 * unblocked that it blocks; after the switch, on N, m->after runs (locks
 * released), then N's exact mask is set and its pending signals raised
 * (wt_sig_switchin).  g0 runs with the mask of the task that ran last, and
 * takes the program's handled signals before it sleeps (wt_sig_idle): one
 * that comes to g0 is handed to a task (signal/sighandler.c).
 *
 * Direct task-to-task switches keep Go's guarantee that a parked task's
 * context is saved before its park lock is released: the lock is released
 * by m->after, which only the next context on the worker runs.  The count
 * of weft locks a context holds (base/lock.h: wt_locks_held, which holds
 * program handlers back) is a thread-local, so the context's; locks are
 * the thread's: the switching side hands its count to the worker last
 * thing before the switch (wt_locks_hand, after wt_cpu_switch's clock
 * reads) and the next context adds it to its own first thing after
 * (wt_finish_switch), before m->after releases the lock.  A task's switch
 * out (wt_mcall) counts as a lock itself, from its first line to that
 * hand-over: its clock reads run in the vDSO, where the pc would let a
 * program handler run, and a handler that switched the task out and back
 * there left the outer switch without its request (the task lost) or on
 * another worker, whose switch then loaded the first worker's g0 while
 * that worker's own thread ran on it.  The checks at the switch (the
 * worker runs the task it switches out; the task switched in is
 * RUNNABLE) turn any such path still left into a weft: fatal report.
 *
 * A task readied by a thread that holds no proc (sysmon's timers and
 * poller, a worker whose proc was taken during a system call) goes to the
 * global queue while a proc is idle; while none is, to the free runnext of
 * a busy one (wt_ready_busy), as if its running task had woken it: sysmon
 * ends that task's slice about 1 ms later (preempt.c), as the kernel's
 * wake-up preemption runs a thread whose sleep or I/O has ended.
 *
 * Preemption requests: sysmon stores m->preempt = schedtick + 1 for a task
 * that has run too long (preempt.c); any switch meanwhile makes the
 * request stale, since it names the tick (wt_preempt_wanted).  The task
 * honours it by wt_preempt_yield, to the back of the global queue (Go's
 * gopreempt_m): from the preemption stub, or at its next yield or return
 * from a system call; a park that would hand off to runnext demotes it
 * behind the ring instead.
 *
 * Layering: proc.c switches and moves tasks and procs; it calls down into
 * runq.c, worker.c (startm's threads, stopm) and the poller, and across
 * into io/syscall.c, which shares the ownership of m->p with it: at each
 * entry from a task it asks which proc it may use (wt_curp,
 * wt_implicit_*).  The preemption signal handler (preempt.c) sits above
 * and calls in; nothing here calls it.
 *
 * Resizing (GOMAXPROCS following the cgroup CPU limit, process/cgroup.c), without
 * stopping the world: the procs array has room for every CPU and procs
 * 0..nprocs-1 are enabled.  wt_procs_resize, under sched.lock, stores the
 * new nprocs; lowering takes idle procs >= n off the idle list (disabled);
 * a worker holding one gives it up at its next scheduling point (dropp:
 * its queued tasks go to the global queue), a proc taken from a blocked
 * call is disabled instead of handed on (wt_handoffp).  Raising puts the
 * disabled procs < n on the idle list; one still held by a worker that has
 * not noticed the earlier lowering simply stays with it.  pidleput is the
 * one place that decides: a proc >= nprocs is never idle-listed.
 */
#include <errno.h>
#include <sys/syscall.h>

#include "runtime.h"
#include "process/affinity.h"
#include "config.h"
#include "process/cpuclock.h"
#include "io/netpoll.h"
#include "process/prio.h"
#include "proc.h"
#include "rtq.h"
#include "runq.h"
#include "signal/sighandler.h"
#include "signal/sigtask.h"
#include "stack/stack.h"
#include "io/syscall.h"
#include "sysmon.h"
#include "task.h"
#include "base/throw.h"
#include "hooks.h"
#include "stack/tls.h"
#include "worker.h"

struct wt_sched wt_sched = {
	.lock = WT_LOCK_INIT(WT_RANK_SCHED),
	.alllock = WT_LOCK_INIT(WT_RANK_ALLTASKS),
};

/* Fairness: every GLOBRUNQ_EVERY-th schedtick a proc looks at the global
 * queue before its own, so tasks there are not starved by a local queue
 * that never empties (Go's schedule() does the same, every 61st tick). */
#define GLOBRUNQ_EVERY 61

static uint32_t fastrand(struct wt_m *m)
{
	uint64_t x = m->fastrand;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	m->fastrand = x;
	return (uint32_t)x;
}

/* [sched.lock]  A disabled proc (id >= nprocs) is parked aside with
 * its queued tasks moved to the global queue. */
static void pidleput(struct wt_p *p)
{
	p->status = WT_P_IDLE;
	if (unlikely(p->id >= atomic_load_explicit(&wt_sched.nprocs, memory_order_relaxed))) {
		struct wt_task *t;
		while ((t = wt_runq_get(p)))
			wt_globrunq_put(t);
		p->disabled = true;
		return;
	}
	p->link = wt_sched.pidle;
	wt_sched.pidle = p;
	atomic_fetch_add(&wt_sched.npidle, 1);
}

/* [sched.lock] */
static struct wt_p *pidleget(void)
{
	struct wt_p *p = wt_sched.pidle;
	if (p) {
		wt_sched.pidle = p->link;
		p->status = WT_P_RUNNING;
		atomic_fetch_sub(&wt_sched.npidle, 1);
	}
	return p;
}

/* [sched.lock] */
static struct wt_m *midleget(void)
{
	struct wt_m *m = wt_sched.midle;
	if (m) {
		wt_sched.midle = m->link;
		wt_sched.nmidle--;
		m->idle = false;
	}
	return m;
}

/* Hands p (or an idle proc) to an idle or new worker.  Context: any. */
/* Wakes idle worker m holding p. */
static void handm(struct wt_m *m, struct wt_p *p, bool spinning)
{
	if (unlikely(wt_tl_on))
		wt_tl_event(NULL, WT_TL_HANDOFF, 0, (uint64_t)p->id, (uint64_t)m->id);
	m->spinning = spinning;
	m->nextp = p;
	/* Release: pairs with the acquire load in wt_stopm (nextp visible). */
	atomic_store_explicit(&m->park, 1, memory_order_release);
	wt_futex_wake(&m->park, 1, false);
}

/* glibc in its single-threaded mode (thread.c), and a worker wanted by a
 * thread that runs no task (sysmon): the work is the only task, which the
 * switch must not find running glibc's code.  It is taken out of the
 * queues while glibc switches, so no worker can run it meanwhile; only
 * from a queue, so it stopped at one of weft's calls (a wait, or a
 * blocking call it came back from), never inside glibc (a single task is
 * never preempted).  false: it is not queued (a worker holds it, or it
 * waits) and no worker is made now. */
static bool libc_switch_holding(void)
{
	struct wt_task *t = wt_main_task;
	if (!t || atomic_load(&wt_ntasks) != 1)
		return false;
	wt_lock(&wt_sched.lock);
	bool held = wt_globrunq_take(t);
	wt_unlock(&wt_sched.lock);
	if (!held && !wt_rtq_take(t))
		return false;
	int err = wt_libc_threaded(t->tp);
	wt_lock(&wt_sched.lock);
	wt_globrunq_puthead(t); /* or the real-time queue, as it came */
	wt_unlock(&wt_sched.lock);
	return err == 0;
}

/* A glibc thread may be made here: glibc is multi-threaded, or the caller
 * is the only task, or sysmon switched it holding that task. */
static bool libc_allows_thread(void)
{
	return !wt_libc_single() || wt_cur() || libc_switch_holding();
}

/* Hands p to a new worker, or, when none can be made, gives it back idle
 * with capwait set (the next worker to go idle takes it).  Context: sysmon,
 * or the caller of startm before sysmon runs; may block in glibc's
 * pthread_create (its DTV comes from the program's malloc). */
static void newm_or_wait(struct wt_p *p, bool spinning)
{
	if (unlikely(wt_tl_on))
		wt_tl_event(NULL, WT_TL_HANDOFF, 0, (uint64_t)p->id, ~0ull);
	if (libc_allows_thread() && wt_newm(p, spinning))
		return;
	/* No thread (WEFT_MAXTHREADS, or the system's limit, or glibc's mode).  A worker that
	 * went idle meanwhile takes the proc; else it waits, its work queued,
	 * and the next worker to go idle wakes one (wt_stopm reads capwait
	 * under the same lock: no lost wake). */
	wt_lock(&wt_sched.lock);
	struct wt_m *m = midleget();
	if (!m) {
		wt_sched.capwait = true;
		pidleput(p);
		wt_unlock(&wt_sched.lock);
		if (spinning)
			atomic_fetch_sub(&wt_sched.nmspinning, 1);
		return;
	}
	wt_unlock(&wt_sched.lock);
	handm(m, p, spinning);
}

static void startm(struct wt_p *p, bool spinning)
{
	wt_lock(&wt_sched.lock);
	if (!p && !(p = pidleget())) {
		wt_unlock(&wt_sched.lock);
		if (spinning)
			atomic_fetch_sub(&wt_sched.nmspinning, 1);
		return;
	}
	struct wt_m *m = midleget();
	wt_unlock(&wt_sched.lock);
	if (m) {
		handm(m, p, spinning);
		return;
	}
	/* A new worker is made by sysmon, never here: glibc's pthread_create
	 * takes the DTV from the program's malloc, and a malloc whose locks
	 * are pthread mutexes (jemalloc) may be held by a task that only this
	 * worker would run (g0 would wait for it in the kernel for ever), or
	 * would park a task in the middle of the creation (pinned in trap
	 * mode).  sysmon owns no proc: it waits for such a lock while workers
	 * run its holder.  Before sysmon exists (start, a fork child), here;
	 * once its thread is made, even before it runs, sysmon makes them,
	 * after it has lowered the procs to the cgroup limit (process/cgroup.c). */
	if (atomic_load_explicit(&wt_sysmon_made, memory_order_relaxed) && !wt_sysmon_self()) {
		atomic_store_explicit(&p->want_m, WT_WANT_M | (spinning ? WT_WANT_M_SPINNING : 0),
				      memory_order_release); /* pairs with wt_sysmon_make_workers */
		wt_sysmon_kick();
		return;
	}
	newm_or_wait(p, spinning);
}

/* Context: sysmon.  Makes the workers startm asked for. */
bool wt_sysmon_make_workers(void)
{
	bool made = false;
	for (int i = 0; i < wt_sched.maxprocs; i++) {
		struct wt_p *p = &wt_sched.procs[i];
		if (!atomic_load_explicit(&p->want_m, memory_order_relaxed))
			continue;
		/* Acquire: pairs with startm's release (p is ours to hand). */
		int w = atomic_exchange_explicit(&p->want_m, 0, memory_order_acquire);
		if (!w)
			continue;
		/* A worker that went idle since startm asked takes p: the
		 * thread count stays what the procs need. */
		wt_lock(&wt_sched.lock);
		struct wt_m *m = midleget();
		wt_unlock(&wt_sched.lock);
		if (m)
			handm(m, p, w & WT_WANT_M_SPINNING);
		else
			newm_or_wait(p, w & WT_WANT_M_SPINNING);
		made = true;
	}
	return made;
}

/* A proc nobody owns (taken from a worker blocked in a system call):
 * hand it to another worker if there is work for it, else idle it. */
void wt_handoffp(struct wt_p *p)
{
	if (p->id >= atomic_load_explicit(&wt_sched.nprocs, memory_order_relaxed)) {
		wt_lock(&wt_sched.lock);
		p->m = NULL;
		pidleput(p); /* disables it unless raised again meanwhile */
		wt_unlock(&wt_sched.lock);
		if (atomic_load(&wt_sched.runq_size) > 0)
			wt_wakep();
		return;
	}
	if (wt_runq_len(p) > 0 || atomic_load(&wt_sched.runq_size) > 0 || wt_rt_any() ||
	    wt_timer_next() != INT64_MAX) {
		atomic_store(&p->status, WT_P_RUNNING);
		startm(p, false);
		return;
	}
	wt_lock(&wt_sched.lock);
	p->m = NULL;
	pidleput(p);
	wt_unlock(&wt_sched.lock);
	/* Work may have been queued while we idled it. */
	if (wt_runq_len(p) > 0 || atomic_load(&wt_sched.runq_size) > 0)
		wt_wakep();
}

/* An idle proc, or NULL.  Context: any; takes sched.lock. */
struct wt_p *wt_pidleget(void)
{
	wt_lock(&wt_sched.lock);
	struct wt_p *p = pidleget();
	wt_unlock(&wt_sched.lock);
	return p;
}

void wt_wakep(void)
{
	if (atomic_load(&wt_sched.npidle) == 0)
		return;
	int z = 0;
	if (atomic_load(&wt_sched.nmspinning) != 0 ||
	    !atomic_compare_exchange_strong(&wt_sched.nmspinning, &z, 1))
		return;
	startm(NULL, true);
}

/* Context: sysmon (its timers, its look at the poller), or the g0 of a
 * worker whose proc sysmon took during a system call (io/syscall.c); t is
 * runnable and owned by the caller, who holds no proc.  With no proc
 * idle, t goes to the free runnext of a proc that runs a task, as if that
 * task had woken it: sysmon's runnext watch (preempt.c) then ends the
 * running task's slice once it has run 1 ms more, as the kernel's wake-up
 * preemption runs a thread whose sleep or I/O ended about then.  In the
 * global queue t would wait for a 10-15 ms slice to end while every proc
 * stays busy: a 1 ms sleep beside 2 busy tasks at GOMAXPROCS=2 took
 * 15.7 ms on average (1.08 ms natively); an SQLite writer back from the
 * fdatasync of its commit, still holding the database's write lock, kept
 * every other writer waiting that long.  Returns false, having done
 * nothing, when a proc is idle (the global queue and wakep are the way
 * then), every busy proc's runnext is taken, or at the thread cap (a proc
 * whose task then blocks may find no worker to take it on: the global
 * queue's head, which every worker looks at first while capped, is the
 * way).  A proc that went idle just after the look keeps t in its runnext
 * until sysmon's next look wakes a worker for it
 * (wt_sysmon_wake_idle_work). */
bool wt_ready_busy(struct wt_task *t)
{
	static _Atomic unsigned rot; /* [atomic] the proc to try first */
	if (atomic_load(&wt_sched.npidle) != 0 ||
	    unlikely(atomic_load_explicit(&t->eff, memory_order_relaxed)) ||
	    unlikely(atomic_load_explicit(&wt_sched.capped, memory_order_relaxed)))
		return false;
	int n = atomic_load_explicit(&wt_sched.nprocs, memory_order_relaxed);
	unsigned r = atomic_load_explicit(&rot, memory_order_relaxed);
	for (int k = 0; k < n; k++) {
		struct wt_p *p = &wt_sched.procs[(r + k) % n];
		if (WT_P_KIND(atomic_load_explicit(&p->status, memory_order_acquire)) !=
		    WT_P_RUNNING)
			continue;
		struct wt_task *none = NULL;
		/* Release: t's saved context and state before the owner or a
		 * thief takes it (their acquire CAS on runnext). */
		if (atomic_compare_exchange_strong_explicit(&p->runnext, &none, t,
							    memory_order_acq_rel,
							    memory_order_relaxed)) {
			atomic_store_explicit(&rot, (r + k + 1) % n, memory_order_relaxed);
			return true;
		}
	}
	return false;
}

/* t, waiting, becomes runnable.  The waker owns t now (it took t off a
 * wait queue or the timer heap under a lock that t's park released after
 * storing WAITING). */
static inline void to_runnable(struct wt_task *t, struct wt_m *m)
{
	int old = atomic_load_explicit(&t->state, memory_order_relaxed);
	if (old != WT_WAITING && old != WT_IDLE)
		wt_throw("wt_ready: task is not waiting");
	if (unlikely(wt_tl_on))
		wt_tl_wake(m, t);
	atomic_store_explicit(&t->state, WT_RUNNABLE, memory_order_relaxed);
}

void wt_ready_m(struct wt_task *t, struct wt_m *m)
{
	to_runnable(t, m);
	if (unlikely(atomic_load_explicit(&t->eff, memory_order_relaxed)) && wt_rtq_put(t, false)) {
		wt_wakep(); /* sysmon preempts a lower task if no proc is idle */
		return;
	}
	if (m && m->p) {
		struct wt_p *p = m->p;
		/* A program's signal handler that readies a task (sem_post) makes
		 * no hand-off: the task it interrupted goes on once it returns.
		 * In runnext the readied one would wait for sysmon's look, about
		 * 1 ms, or a thief's 3 µs of grace (a pthread_kill and sem_wait
		 * ping-pong with a busy thread: 1,000 rounds a second against
		 * 27,000 natively): while a proc is idle it goes to the ring, for
		 * a worker woken now.  With none idle, runnext's 1 ms wake-up
		 * preemption (preempt.c) is its fastest way in: a ring task
		 * would wait for the running one's 10 ms slice. */
		struct wt_task *cur = wt_cur();
		bool handler = cur && cur->sigframe &&
			       atomic_load_explicit(&wt_sched.npidle, memory_order_relaxed) > 0;
		wt_runq_put(p, t, !handler);
		/* A lone task in runnext is usually a hand-off: the running task
		 * is about to park and will switch to it directly, so waking
		 * another worker would only bounce the pair between workers (a
		 * futex wake-up per hand-off).  Wake one only when there is more
		 * work than that; sysmon wakes one for a runnext left waiting. */
		uint32_t h = atomic_load_explicit(&p->head, memory_order_relaxed);
		uint32_t tl = atomic_load_explicit(&p->tail, memory_order_relaxed);
		if (tl == h && !handler)
			return;
	} else {
		if (!m && wt_sysmon_self() && wt_ready_busy(t))
			return;
		wt_lock(&wt_sched.lock);
		wt_globrunq_put(t);
		wt_unlock(&wt_sched.lock);
	}
	wt_wakep();
}

/* t readied by a context that must not start a worker thread (a vfork
 * child, which runs on its parent's memory): the global queue, where
 * sysmon's next look finds it (wt_sysmon_wake_idle_work).  Context: any;
 * the caller took t off a wait queue. */
void wt_ready_quiet(struct wt_task *t)
{
	to_runnable(t, NULL);
	wt_lock(&wt_sched.lock);
	wt_globrunq_put(t);
	wt_unlock(&wt_sched.lock);
}

/* Context: sysmon.  A proc whose runnext has waited a whole sysmon tick
 * while its worker kept running something else gets another worker.
 * Returns WT_PROCS_QUEUED when tasks wait in a queue, else
 * WT_PROCS_RUNNING when a worker runs tasks on some proc, else
 * WT_PROCS_IDLE (sysmon's tick follows: proc.h, sysmon.c).  A proc held
 * in a blocking call with nothing queued behind it is not busy: a single-threaded program waiting in read or wait4 (a shell, cat,
 * sort reading a pipe) would otherwise wake its sysmon every millisecond,
 * each time taking a CPU from the programs that do run. */
int wt_sysmon_wake_idle_work(void)
{
	int n = atomic_load_explicit(&wt_sched.nprocs, memory_order_relaxed);
	int idle = atomic_load(&wt_sched.npidle);
	if (idle == n) {
		/* All asleep: one is woken for the idle work the scavenger
		 * left (wt_stack_idle_trim), which it does before it sleeps
		 * again. */
		if (wt_rt_any() || wt_stack_idle_work() ||
		    atomic_load_explicit(&wt_sched.runq_size, memory_order_relaxed))
			wt_wakep();
		return WT_PROCS_IDLE;
	}
	bool running = false, work = false;
	for (int i = 0; i < n; i++) {
		struct wt_p *p = &wt_sched.procs[i];
		if (WT_P_KIND(atomic_load_explicit(&p->status, memory_order_relaxed)) ==
		    WT_P_RUNNING)
			running = true;
		if (atomic_load_explicit(&p->runnext, memory_order_relaxed) ||
		    wt_runq_len(p) > 0)
			work = true;
	}
	if (atomic_load(&wt_sched.runq_size) || wt_rt_any())
		work = true;
	if (work && idle > 0)
		wt_wakep();
	return work ? WT_PROCS_QUEUED : running ? WT_PROCS_RUNNING : WT_PROCS_IDLE;
}

void wt_ready(struct wt_task *t)
{
	/* Inside a blocking call (a signal handler's code), or after one nobody
	 * intercepted whose proc sysmon took, the proc may belong to another
	 * worker by now: wt_curp says so, and the global queue is used. */
	struct wt_p *p = wt_curp();
	wt_ready_m(t, p ? wt_cur()->m : NULL);
}

static void after_park(struct wt_m *m, struct wt_task *t, void *lock);
static void after_yield(struct wt_m *m, struct wt_task *t, void *arg);
static void after_preempt(struct wt_m *m, struct wt_task *t, void *arg);
static void after_aside(struct wt_m *m, struct wt_task *t, void *arg);

/* A task is switched in only from a run queue, where it is RUNNABLE (the
 * queues and wt_ready set that before they publish it): one found RUNNING
 * runs on another thread already, or was queued twice, and switching to
 * its saved context would put two threads on one stack.  One load and
 * compare.  Context: the switching side, before the switch. */
static inline void wt_switch_in_check(struct wt_task *t)
{
	if (unlikely(atomic_load_explicit(&t->state, memory_order_relaxed) != WT_RUNNABLE))
		wt_throw("a task is switched in that is not runnable (running elsewhere, or queued twice)");
}

/* The weft locks this context holds go with the worker to the context it
 * switches to (wt_finish_switch takes them): thread-locals are the
 * context's, locks the thread's.  Done last before the switch, after the
 * clock reads of wt_cpu_switch: from here to the next context's
 * wt_finish_switch the thread runs only weft's code, where its program
 * counter holds program handlers back.  Context: a task or g0 on m. */
static inline void wt_locks_hand(struct wt_m *m)
{
	atomic_signal_fence(memory_order_seq_cst);
	m->handed_locks = wt_locks_held;
	wt_locks_held = 0;
}

/* Runs what the task that last switched out on m asked for (m->after).
 * Whoever gets m next does it: g0 (execute), or the task switched to
 * directly, first thing when it resumes. */
void wt_finish_switch(struct wt_m *m)
{
	void (*fn)(struct wt_m *, struct wt_task *, void *) = m->after;
	/* The locks the previous context handed over are this one's now:
	 * whatever it calls while it holds them (libc, the vDSO) still holds
	 * program handlers back. */
	if (unlikely(m->handed_locks)) {
		wt_locks_held += m->handed_locks;
		m->handed_locks = 0;
		atomic_signal_fence(memory_order_seq_cst);
	}
	if (fn) {
		m->after = NULL;
		fn(m, m->prevg, m->after_arg);
	}
}

/* Context: a task.  Switches out; fn(m, task, arg) runs once the task's
 * context is saved.  A park hands the worker straight to the proc's next
 * task (a hand-off: one switch instead of two through g0), except every
 * 61st tick, when g0 runs the full search (timers, global queue).  The task
 * resumes when something makes it runnable again, maybe on another worker. */
void wt_mcall(void (*fn)(struct wt_m *, struct wt_task *, void *), void *arg)
{
	struct wt_task *t = wt_cur();
	/* From here to the switch this is one worker's switch, m its worker
	 * and m->after its request: no program handler may run in between.
	 * weft's code holds them back by its pc, but the clock reads below
	 * (wt_cpu_switch, rt_since) run in libc and the vDSO: there the
	 * trampoline held them back only while a weft lock was counted, as a
	 * park's bucket lock is, and a yield, a preemption or a lost proc
	 * count none.  A handler run there that switched t out and back (its
	 * sched_yield, a post that readies a higher real-time task) consumed
	 * m->after, so the switch below left t RUNNING on no queue (a lost
	 * task: 3 hangs in 150 runs of signal_busy_target's phases five
	 * times over, at GOMAXPROCS=2), or
	 * brought t back on another worker, where the switch below loaded the
	 * g0 of the first, live on its own thread (the soak's one SIGSEGV in
	 * wt_schedule, with m NULL on another worker's g0 stack).  The window
	 * counts as a lock (base/lock.h), so the trampoline defers those handlers
	 * to t's switch-in (signal/sighandler.c). */
	wt_locks_inc();
	struct wt_m *m = t->m;
	/* After a system call nobody intercepted (io/syscall.c): the proc back,
	 * or none, and then g0 stops this worker once the switch is done. */
	if (unlikely(atomic_load_explicit(&m->implicit, memory_order_relaxed)))
		wt_implicit_switch_out(m);
	struct wt_p *p = m->p;
	struct wt_task *next = NULL;
	bool inherit = false;
	m->after = fn;
	m->after_arg = arg;
	m->prevg = t;
	/* Through g0 instead every GLOBRUNQ_EVERY-th tick, when resizing
	 * disabled the proc, or at the thread cap (findrunnable then prefers
	 * tasks back from system calls).  The tick findrunnable tests is this
	 * one: execute counts the switch after it. */
	if ((fn == after_park || fn == wt_task_after_exit || fn == after_aside) && p &&
	    p->schedtick % GLOBRUNQ_EVERY != 0 &&
	    likely(p->id < atomic_load_explicit(&wt_sched.nprocs, memory_order_relaxed)) &&
	    likely(!atomic_load_explicit(&wt_sched.capped, memory_order_relaxed))) {
		/* Tasks that ready each other and park share one time slice
		 * (runnext, inherit); when sysmon finds it over, the ring goes
		 * first, as a preempted Go pair's would. */
		if (unlikely(wt_preempt_wanted(m))) {
			atomic_store_explicit(&m->preempt, 0, memory_order_relaxed);
			wt_runq_demote_next(p);
		}
		if (wt_rt_any() && (next = wt_rtq_get(1)))
			next->rt_since = wt_nanotime();
		else
			next = wt_runq_get_inherit(p, &inherit);
	}
	if (unlikely(wt_tl_on))
		wt_tl_switch(m, t, fn == after_park ? WT_TL_PARK : fn == after_yield ? WT_TL_YIELD
				   : fn == after_preempt ? WT_TL_PREEMPTED : WT_TL_OTHER, next);
	/* The g0 or the proc loaded below are those of the worker running t:
	 * a t->m that named another worker would put this thread on that
	 * worker's g0 stack, live on its own thread (a SIGSEGV far from the
	 * cause).  One compare makes it a report here; from here to the
	 * switch nothing lets t move. */
	if (unlikely(m->curg != t))
		wt_throw("a task switches out through a worker that is not running it");
	if (next) {
		if (!inherit)
			p->schedtick++;
		m->curg = next;
		next->m = m;
		wt_switch_in_check(next);
		atomic_store_explicit(&next->state, WT_RUNNING, memory_order_relaxed);
		wt_sig_preswitch(m, next);
		wt_cpu_switch(m, t, next);
		wt_tls_switching(m, next);
		wt_locks_dec(); /* weft's code only from here: its pc holds them */
		wt_locks_hand(m);
		wt_ctx_switch(&t->ctx, &next->ctx, &m->cur_tp);
	} else {
		wt_cpu_switch(m, t, NULL);
		wt_locks_dec();
		wt_locks_hand(m);
		wt_ctx_switch(&t->ctx, &m->g0, &m->cur_tp);
	}
	wt_task_resumed(t); /* first: before this task writes to its stack (observe/dump.c) */
	/* Resumed (maybe on another worker): first what the previous context
	 * asked for, which releases its locks, then this task's signal mask and
	 * pending signals, whose handlers may call back into weft. */
	wt_finish_switch(t->m);
	wt_sig_switchin(t);
}

/* What a parking task leaves to after_park, on its own stack, which stays
 * as it is until the bucket lock is released. */
struct park_commit {
	wt_spin_t *lock;
	wt_park_release_fn release;
	void *release_arg;
};

static void after_park(struct wt_m *m, struct wt_task *t, void *arg)
{
	struct park_commit pc = *(struct park_commit *)arg;
	/* Published by the release of lock; a waker reads it after taking it. */
	atomic_store_explicit(&t->state, WT_WAITING, memory_order_relaxed);
	/* A signal that interrupted t's switch out was put back in its queue
	 * (signal/sighandler.c) after park's last look: the park ends now. */
	bool intr = wt_park_intr_locked(t);
	wt_spin_unlock(pc.lock);
	/* t may be running elsewhere from here on: only the copies above. */
	if (pc.release)
		pc.release(m, pc.release_arg);
	if (intr)
		wt_ready(t);
}

/* Context: a task holding `unlock`.  Parks; the next context on the worker
 * releases the lock once the task's context is saved, then calls
 * release(m, arg) if set.  Returns after wt_ready. */
void wt_park_commit(wt_spin_t *unlock, wt_park_release_fn release, void *arg)
{
	struct park_commit pc = { unlock, release, arg };
	wt_mcall(after_park, &pc);
}

/* t, switched out runnable, back on m's proc (its runnext if `next`), or
 * on the global queue if m lost the proc meanwhile. */
static void requeue(struct wt_m *m, struct wt_task *t, bool next)
{
	atomic_store(&t->state, WT_RUNNABLE);
	if (m->p) {
		wt_runq_put(m->p, t, next);
		return;
	}
	wt_lock(&wt_sched.lock); /* the task gave up a proc it had lost */
	wt_globrunq_put(t);
	wt_unlock(&wt_sched.lock);
	wt_wakep();
}

static void after_yield(struct wt_m *m, struct wt_task *t, void *arg)
{
	(void)arg;
	requeue(m, t, false);
}

void wt_yield(void)
{
	struct wt_task *t = wt_cur();
	if (!t)
		return;
	if (unlikely(atomic_load_explicit(&t->m->implicit, memory_order_relaxed)))
		wt_implicit_exit(t->m);
	/* A signal handler's sched_yield inside a blocking call: the proc may
	 * be another worker's by now; stay. */
	if (t->m->insyscall)
		return;
	/* Signals that interrupted weft here (a spin loop that yields comes
	 * back here, and may wait for their handler). */
	wt_sig_unlocked();
	if (t->m->insyscall)
		return; /* the handlers parked: t may be on another worker */
	struct wt_p *p = t->m->p;
	if (wt_preempt_wanted(t->m)) {
		wt_preempt_yield();
		return;
	}
	/* A real-time task with no other task of its priority or above to
	 * give way to stays when the process has more than one CPU.  Natively
	 * its yield gives way only to a thread of the same real-time priority
	 * waiting for the same CPU, which the kernel moves to another CPU when
	 * one is free, so it rarely does; the worker is SCHED_OTHER to the
	 * kernel (process/prio.c), and a kernel sched_yield would hand the CPU to any
	 * other process's ordinary thread, which natively never runs ahead of
	 * it (a switch per yield for a program that yields holding a lock).
	 * On one CPU it yields to the kernel: another process's real-time
	 * thread may be waiting for that CPU, and under weft that process's
	 * worker looks SCHED_OTHER too (two such processes alternate). */
	int eff = atomic_load_explicit(&t->eff, memory_order_relaxed);
	if (unlikely(eff)) {
		if (atomic_load_explicit(&wt_rtq_top, memory_order_relaxed) >= eff) {
			wt_mcall(after_yield, NULL);
			return;
		}
		int ncpu = wt_aff_ncpu();
		if ((ncpu ? ncpu : wt_cfg.ncpu) > 1)
			return;
	} else if (wt_runq_len(p) != 0 || wt_rt_any() ||
		   atomic_load_explicit(&wt_sched.runq_size, memory_order_relaxed) != 0) {
		wt_mcall(after_yield, NULL);
		return;
	}
	/* Nothing else to run here or anywhere: stay, and give the CPU to the
	 * kernel's other threads instead (the other processes that wait for
	 * it). */
	wt_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
	wt_tls_after_sleep(t->tp);
}

static void after_preempt(struct wt_m *m, struct wt_task *t, void *arg)
{
	(void)m;
	(void)arg;
	atomic_store(&t->state, WT_RUNNABLE);
	/* A real-time task keeps its place at the head of its list (sched(7)),
	 * except a SCHED_RR one whose time slice is used up: the tail. */
	if (unlikely(atomic_load_explicit(&t->eff, memory_order_relaxed))) {
		bool head = true;
		if ((atomic_load_explicit(&t->policy, memory_order_relaxed) & 0xff) == SCHED_RR) {
			t->rr_used += wt_nanotime() - t->rt_since;
			if (t->rr_used >= wt_prio_rr_ns()) {
				t->rr_used = 0;
				head = false;
			}
		}
		if (wt_rtq_put(t, head)) {
			wt_wakep();
			return;
		}
	}
	wt_lock(&wt_sched.lock);
	wt_globrunq_put(t);
	wt_unlock(&wt_sched.lock);
	wt_wakep();
}

/* A task that makes tasks faster than any proc starts them (main creating
 * ten thousand threads at GOMAXPROCS=1, before it joins them) would give
 * each one a stack slot that nobody has used yet: a page-table page, a
 * TCB page and a guard marker each, the dearest thing a spawn costs
 * (create all then join: about 55 µs a thread here at GOMAXPROCS=1
 * against 0.5 µs for a create-join loop, whose slots are reused warm).
 * So past ASIDE_UNSTARTED tasks per proc made and not yet run, the maker
 * steps aside for the task it just made (its proc's runnext: a hand-off,
 * one switch) and runs again as that proc's runnext once the new task
 * parks, exits or uses up the slice they share; a task that returns at
 * once leaves its slot warm for the next spawn.  Go lets its new
 * goroutines pile up: their stacks are 8 KiB of a heap whose memory is
 * already mapped.  A maker spends at most ASIDE_BUDGET_NS of each
 * ASIDE_WINDOW_NS aside (wall time, so the new tasks' work and the
 * kernel's other threads both count), then makes without stepping aside
 * until the window ends: a program that starts a thousand busy threads
 * (each new one runs until sysmon sees the maker wait in runnext, about a
 * millisecond, preempt.c) makes them at least three quarters as fast.
 * A step aside shorter than ASIDE_CHEAP_NS is not counted: the new task
 * returned at once, and letting it cost less than the fresh slot the
 * maker would otherwise take (two page faults and a page-table page,
 * 50-100 µs here).  Counting those too, a maker of threads that return
 * at once spent its budget in the first 25 ms of each window and then
 * piled them up (create 50,000 then join at GOMAXPROCS=1: 2.6-5.5 µs a
 * thread and 400 slots; not counted: 1.4-1.8 µs and 160 slots).
 * With more than one proc the new tasks seldom pile up: an idle proc
 * steals them as they come.  They then run on another CPU, and every
 * task's memory (its record, TCB, stack slot and the slot's entries)
 * moves between the two CPUs' caches twice, there and back to the maker:
 * create 50,000 threads that return at once, then join them, cost
 * 2.6-3.2 µs a thread at GOMAXPROCS=2 against 1.3-1.5 at GOMAXPROCS=1.
 * So a maker also steps aside while its step asides are cheap (the new
 * task parked or returned within ASIDE_CHEAP_NS: aside_streak), and tries
 * one every ASIDE_PROBE spawns to find that out; a new task that runs
 * longer, or a maker stolen from runnext by an idle proc and then kept
 * waiting, ends the streak.  The same run at GOMAXPROCS=2: 1.3-1.4 µs.
 * No streak or probe while tasks wait on the poller: a worker asleep in epoll_wait
 * is off the idle list, and with the churn of a streak's switches sysmon
 * now and then found no idle worker for an idle proc and made one more
 * thread (netpoll_many, 1,000 readers parked on pipes at GOMAXPROCS=4 on
 * 2 CPUs: 8 threads against its bound of 7 in 3 of 227 runs, 0 of 227
 * before).
 * Rejected: a yield to the whole queue (the maker would wait for every
 * busy task's slice); a bound on a single step aside's length (a loaded
 * machine's descheduling tripped it, and the spawns piled up again). */
#define ASIDE_UNSTARTED 64
#define ASIDE_PROBE 64
#define ASIDE_WINDOW_NS 100000000
#define ASIDE_BUDGET_NS 25000000
#define ASIDE_CHEAP_NS 50000

static void after_aside(struct wt_m *m, struct wt_task *t, void *arg)
{
	(void)arg;
	requeue(m, t, true);
}

void wt_step_aside(void)
{
	struct wt_task *t = wt_cur();
	if (!t || t->m->insyscall || atomic_load_explicit(&t->m->implicit, memory_order_relaxed) ||
	    atomic_load_explicit(&t->eff, memory_order_relaxed))
		return;
	bool many = atomic_load_explicit(&wt_sched.unstarted, memory_order_relaxed) >
		    ASIDE_UNSTARTED * atomic_load_explicit(&wt_sched.nprocs, memory_order_relaxed);
	if (!many && (atomic_load_explicit(&wt_netpoll_waiters, memory_order_relaxed) > 0 ||
		      (!t->aside_streak && ++t->aside_probe < ASIDE_PROBE)))
		return;
	t->aside_probe = 0;
	int64_t t0 = wt_nanotime();
	if (t0 - t->aside_from > ASIDE_WINDOW_NS) {
		t->aside_from = t0;
		t->aside_used = 0;
	} else if (t->aside_used >= ASIDE_BUDGET_NS) {
		return;
	}
	wt_mcall(after_aside, NULL);
	int64_t d = wt_nanotime() - t0;
	t->aside_streak = d <= ASIDE_CHEAP_NS;
	if (d > ASIDE_CHEAP_NS)
		t->aside_used += d;
}

/* Context: a task, no lock held.  Go's gopreempt_m: to the back of the
 * global queue, so every other runnable task goes first. */
void wt_preempt_yield(void)
{
	struct wt_task *t = wt_cur();
	atomic_store_explicit(&t->m->preempt, 0, memory_order_relaxed);
	wt_mcall(after_preempt, NULL);
}

static void resetspinning(struct wt_m *m)
{
	m->spinning = false;
	/* The last spinner found work: more may be queued, start another. */
	if (atomic_fetch_sub(&wt_sched.nmspinning, 1) == 1)
		wt_wakep();
}

/* Three rounds over the other procs' rings, or (next) one that may also
 * take a proc's runnext. */
static struct wt_task *steal(struct wt_m *m, struct wt_p *p, bool next)
{
	int n = atomic_load_explicit(&wt_sched.nprocs, memory_order_relaxed);
	for (int round = next ? 3 : 0; round < (next ? 4 : 3); round++) {
		uint32_t start = fastrand(m) % n;
		for (int i = 0; i < n; i++) {
			struct wt_p *v = &wt_sched.procs[(start + i) % n];
			if (v == p)
				continue;
			struct wt_task *t = wt_runq_steal(p, v, round == 3);
			if (t) {
				if (unlikely(wt_tl_on))
					wt_tl_event(m, WT_TL_STEAL, t->id, (uint64_t)v->id,
						    (uint64_t)p->id);
				return t;
			}
		}
	}
	return NULL;
}

bool wt_any_runnable(void)
{
	if (atomic_load(&wt_sched.runq_size) || wt_rt_any())
		return true;
	int n = atomic_load_explicit(&wt_sched.nprocs, memory_order_relaxed);
	for (int i = 0; i < n; i++)
		if (wt_runq_len(&wt_sched.procs[i]))
			return true;
	return false;
}

/* Context: g0 of m, whose proc resizing disabled.  Gives it up and returns
 * holding an enabled proc, after sleeping if none is idle. */
static void dropp(struct wt_m *m)
{
	struct wt_p *p = m->p;
	wt_lock(&wt_sched.lock);
	if (p->id < atomic_load_explicit(&wt_sched.nprocs, memory_order_relaxed)) {
		wt_unlock(&wt_sched.lock); /* enabled again meanwhile */
		return;
	}
	p->m = NULL;
	m->p = NULL;
	pidleput(p); /* its queued tasks go to the global queue */
	struct wt_p *np = pidleget();
	wt_unlock(&wt_sched.lock);
	if (np) {
		m->p = np;
		np->m = m;
		return;
	}
	if (m->spinning) {
		m->spinning = false;
		atomic_fetch_sub(&wt_sched.nmspinning, 1);
	}
	wt_stopm(m); /* returns holding a proc */
}

/* Tasks given a real-time priority while they waited on p's ring or the
 * global queue go to the real-time queue (wt_runq_put and wt_globrunq_put
 * send them there; the others keep their order).  Context: g0 of p's
 * owner. */
static void stray_move(struct wt_p *p)
{
	p->stray_seen = atomic_load_explicit(&wt_rtq_stray, memory_order_relaxed);
	struct wt_task *all[WT_RUNQ_SIZE + 1], *t;
	int n = 0;
	while (n < WT_RUNQ_SIZE + 1 && (t = wt_runq_get(p)))
		all[n++] = t;
	for (int i = 0; i < n; i++)
		wt_runq_put(p, all[i], false);
	wt_lock(&wt_sched.lock);
	struct wt_task *list = wt_sched.runq_head;
	int size = atomic_load_explicit(&wt_sched.runq_size, memory_order_relaxed);
	wt_sched.runq_head = wt_sched.runq_tail = NULL;
	atomic_fetch_sub_explicit(&wt_sched.runq_size, size, memory_order_relaxed);
	while (list) {
		t = list;
		list = t->schedlink;
		wt_globrunq_put(t);
	}
	wt_unlock(&wt_sched.lock);
}

/* Context: g0.  Returns a task to run; sleeps while there is none. */
static struct wt_task *findrunnable(struct wt_m *m)
{
	struct wt_task *t;
top:;
	wt_sig_defer_check(m); /* signals that came while it looked: to tasks */
	struct wt_p *p = m->p;
	if (unlikely(p->id >= atomic_load_explicit(&wt_sched.nprocs, memory_order_relaxed))) {
		dropp(m);
		goto top;
	}
	if (wt_timer_next() != INT64_MAX)
		wt_timer_run(wt_nanotime(), m);
	if (unlikely(atomic_load_explicit(&wt_rtq_stray, memory_order_relaxed) != p->stray_seen))
		stray_move(p);
	/* Real-time tasks first (rtq.c); one load when there are none. */
	if (wt_rt_any() && (t = wt_rtq_get(1))) {
		t->rt_since = wt_nanotime();
		return t;
	}
	/* Tasks back from a system call (at the global queue's head, put
	 * there by exitsyscall) go before the local queue: a new task may
	 * block the worker too, and the one back may hold what the blocked
	 * ones wait for (at WEFT_MAXTHREADS that was a deadlock).  nsysret is
	 * a hint: another worker may have taken them meanwhile. */
	bool sysret = atomic_load_explicit(&wt_sched.nsysret, memory_order_relaxed) > 0;
	if ((p->schedtick % GLOBRUNQ_EVERY == 0 || sysret ||
	     atomic_load_explicit(&wt_sched.capped, memory_order_relaxed)) &&
	    atomic_load(&wt_sched.runq_size)) {
		wt_lock(&wt_sched.lock);
		if (sysret && atomic_load_explicit(&wt_sched.nsysret, memory_order_relaxed) > 0)
			atomic_fetch_sub_explicit(&wt_sched.nsysret, 1, memory_order_relaxed);
		t = wt_globrunq_get(p, 1);
		wt_unlock(&wt_sched.lock);
		if (t)
			return t;
	}
	if ((t = wt_runq_get(p)))
		return t;
	if (atomic_load(&wt_sched.runq_size)) {
		wt_lock(&wt_sched.lock);
		t = wt_globrunq_get(p, 0);
		wt_unlock(&wt_sched.lock);
		if (t)
			return t;
	}
	/* Spin (steal) only while fewer than half the busy procs spin. */
	int np = atomic_load_explicit(&wt_sched.nprocs, memory_order_relaxed);
	if (!m->spinning && 2 * atomic_load(&wt_sched.nmspinning) < np - atomic_load(&wt_sched.npidle)) {
		m->spinning = true;
		atomic_fetch_add(&wt_sched.nmspinning, 1);
	}
	if (m->spinning && np > 1 && (t = steal(m, p, false)))
		return t;
	/* Descriptors that became ready: run the first task, queue the rest. */
	if (atomic_load_explicit(&wt_netpoll_waiters, memory_order_relaxed) > 0 &&
	    (t = wt_netpoll(0))) {
		wt_inject(t->schedlink, p);
		if (unlikely(wt_tl_on))
			wt_tl_wake(m, t);
		atomic_store_explicit(&t->state, WT_RUNNABLE, memory_order_relaxed);
		return t;
	}
	/* Fresh stack slots for creations under way (stack/stack.c), one between
	 * looks for work: better spent than the wait for another proc's
	 * runnext below, which a burst of creations keeps refilling (the
	 * creator's runnext changes with every create). */
	if (wt_stack_prefault())
		goto top;
	if (m->spinning && np > 1 && (t = steal(m, p, true)))
		return t;

	/* Nothing: give the proc back. */
	wt_lock(&wt_sched.lock);
	if (wt_rt_any()) {
		wt_unlock(&wt_sched.lock);
		goto top;
	}
	if (atomic_load(&wt_sched.runq_size)) {
		t = wt_globrunq_get(p, 0);
		wt_unlock(&wt_sched.lock);
		if (t)
			return t;
		goto top;
	}
	p->m = NULL;
	m->p = NULL;
	pidleput(p);
	wt_unlock(&wt_sched.lock);
	wt_sysmon_shorten(); /* it may sleep 10 ms, counting every proc busy */

	if (m->spinning) {
		m->spinning = false;
		atomic_fetch_sub(&wt_sched.nmspinning, 1);
		/* A waker may have skipped wakep because we were spinning. */
		if (wt_any_runnable()) {
			struct wt_p *pp = wt_pidleget();
			if (pp) {
				m->p = pp;
				pp->m = m;
				m->spinning = true;
				atomic_fetch_add(&wt_sched.nmspinning, 1);
				goto top;
			}
		}
	}
	/* The last worker to find nothing sleeps in epoll_wait instead of on
	 * its futex, as Go's does: an I/O event then costs one wake-up, and
	 * the woken worker runs the task itself. */
	wt_sig_idle(m);
	wt_stack_idle_trim();
	bool polled = wt_netpoll_block(m);
	wt_tls_after_sleep(m->cur_tp);
	if (polled)
		goto top; /* holding a proc, with the woken tasks queued on it */
	wt_stopm(m); /* returns holding a proc */
	goto top;
}

/* Makes a list of collected waiters (linked by schedlink) runnable: on p's
 * local queue when p is given, else on the global queue; wakes a worker
 * for them as wt_ready would. */
void wt_inject(struct wt_task *list, struct wt_p *p)
{
	int n = 0;
	while (list) {
		struct wt_task *t = list;
		list = t->schedlink;
		t->schedlink = NULL;
		if (unlikely(wt_tl_on))
			wt_tl_wake(p ? p->m : NULL, t);
		atomic_store_explicit(&t->state, WT_RUNNABLE, memory_order_relaxed);
		if (p) {
			wt_runq_put(p, t, false);
		} else {
			wt_lock(&wt_sched.lock);
			wt_globrunq_put(t);
			wt_unlock(&wt_sched.lock);
		}
		n++;
	}
	if (n)
		wt_wakep();
}

static void execute(struct wt_m *m, struct wt_task *t)
{
	if (m->spinning)
		resetspinning(m);
	m->p->schedtick++;
	m->curg = t;
	t->m = m;
	if (unlikely(wt_tl_on))
		wt_tl_run(m, t);
	wt_switch_in_check(t);
	atomic_store_explicit(&t->state, WT_RUNNING, memory_order_relaxed);
	wt_sig_preswitch(m, t);
	wt_cpu_switch(m, NULL, t);
	wt_tls_switching(m, t);
	wt_locks_hand(m);
	wt_ctx_switch(&m->g0, &t->ctx, &m->cur_tp);
	/* Back on g0: a task (t, or one t handed off to) switched out. */
	m->curg = NULL;
	wt_finish_switch(m);
	wt_sig_defer_check(m); /* to tasks: none runs here now */
	/* It had lost the proc in a system call nobody intercepted (wt_mcall). */
	if (!m->p) {
		wt_sig_idle(m);
		wt_stopm(m);
	}
}

/* Context: sysmon (process/cgroup.c).  Makes procs 0..n-1 the enabled ones. */
void wt_procs_resize(int n)
{
	if (n < 1 || n > wt_sched.maxprocs)
		return;
	wt_lock(&wt_sched.lock);
	int old = atomic_load_explicit(&wt_sched.nprocs, memory_order_relaxed);
	atomic_store_explicit(&wt_sched.nprocs, n, memory_order_relaxed);
	if (n < old) {
		for (struct wt_p **pp = &wt_sched.pidle; *pp;) {
			struct wt_p *p = *pp;
			if (p->id >= n) {
				*pp = p->link;
				p->disabled = true;
				atomic_fetch_sub(&wt_sched.npidle, 1);
			} else {
				pp = &p->link;
			}
		}
	} else {
		for (int i = old; i < n; i++) {
			struct wt_p *p = &wt_sched.procs[i];
			if (p->disabled) {
				p->disabled = false;
				pidleput(p);
			}
		}
	}
	wt_unlock(&wt_sched.lock);
	wt_sysmon_wake_idle_work(); /* new procs for queued work */
}

void wt_schedule(struct wt_m *m)
{
	/* Worker 0's g0 starts when main first switches out: finish that. */
	m->curg = NULL;
	wt_finish_switch(m);
	if (!m->p)
		wt_stopm(m);
	for (;;)
		execute(m, findrunnable(m));
}
