/*
 * syscall.c — a task in a blocking system call does not hold its proc.
 *
 * Go's entersyscall/exitsyscall, in C.  Around a call that may block
 * (shim/blocking.c):
 *   entersyscall: the proc's status goes RUNNING -> SYSCALL; the worker
 *     keeps it, so a call that returns at once costs two atomics.
 *   sysmon (wt_sysmon_retake, every look): a proc that has been in SYSCALL
 *     since its previous look (the same syscalltick) is taken with a CAS
 *     SYSCALL -> IDLE and handed to another worker if there is work
 *     (wt_handoffp), so the other tasks keep running.  sysmon looks again
 *     20 µs after it first sees a call with work behind it (core/sysmon.c), so
 *     a proc changes hands about 20 µs into a blocking call; a first
 *     sighting alone does not shorten sysmon's later sleeps (most calls
 *     are over by the second look).  As in Go, a
 *     proc with nothing queued is left alone while some other proc is idle
 *     or spinning (it would only be idled), for up to 10 ms; taking it
 *     then does not count as taking one (sysmon keeps its long sleep).
 *   A sysmon in a long sleep would see the call late: entersyscall wakes
 *     it when the proc has work queued (Go's entersyscall wakes a sysmon in
 *     its deep sleep the same way); wt_sysmon_slow makes that one kick per
 *     long sleep, and sysmon clears it for a while after kicks that found
 *     the call over (core/sysmon.c): a program making many short calls (an
 *     SQLite database writing its file) would otherwise wake sysmon at
 *     every one, and sysmon would take a CPU from a busy worker each time.
 *   exitsyscall: CAS SYSCALL -> RUNNING; success means nobody took it.
 *     Otherwise the worker tries an idle proc; failing that, the task
 *     goes to a busy proc's runnext (core/proc.c: wt_ready_busy; that proc's
 *     task gives way within about 1 ms) or the head of the global queue,
 *     and the worker sleeps until a proc is handed to it.
 * Between enter and exit the worker touches nothing of the proc: the CAS
 * decides who owns it.  The SYSCALL status carries the worker's id, so a
 * worker whose proc was taken, handed on, and put in SYSCALL again by its
 * new owner cannot win the CAS by mistake.  The cost is one OS thread per
 * task blocked in the kernel, as in Go; a task waiting on a pollable
 * descriptor parks instead (netpoll.c).
 *
 * Implicit calls: the same bracket around a system call nobody intercepted
 * (stdio's internal read, an inline `syscall` instruction, glibc's internal
 * lock waits), entered from outside.  When sysmon finds such a worker
 * blocked (blocked.c), it signals it; the SIGURG handler (core/preempt.c),
 * seeing the interrupted context sit on a system call outside libweft with
 * m->insyscall == 0, calls wt_implicit_enter, which does what
 * wt_entersyscall does and marks the worker (m->implicit, counted in
 * wt_nimplicit).  After sigreturn the kernel restarts the call and it
 * blocks again; wt_sysmon_retake then takes the proc as for any system
 * call and hands it to another worker.
 *   The worker learns it lost its proc at its next entry into weft: every
 * path that uses m->p from a task checks m->implicit first: wt_mcall
 * (park, yield, exit: wt_implicit_switch_out), wt_yield, wt_entersyscall,
 * wt_ready and task creation (wt_curp), the stack slot cache (wt_curp) and
 * the preemption stub (wt_preempt_park).  wt_implicit_settle tries,
 * without switching, to get the proc back (CAS SYSCALL -> RUNNING) or an
 * idle one; wt_implicit_exit, where a switch is allowed, otherwise queues
 * the task and stops the worker, as wt_exitsyscall does.  Until then the
 * task runs on a worker without a proc; sysmon signals such a worker whose
 * CPU clock advances, and the handler sends it through the stub at the
 * next safe point (core/preempt.c).  Only code interrupted inside a kernel call
 * outside libweft gives up its proc: a weft-internal futex wait, whose
 * caller may be using m->p, never does.
 *
 * Layering: this file and the scheduler (core/proc.c) call each other, as they
 * share who owns m->p: the bracket switches and finds procs through
 * core/proc.c (wt_mcall, wt_pidleget, wt_handoffp, wt_preempt_yield) and
 * core/worker.c (wt_stopm); the scheduler asks here, at each entry from a task,
 * which proc it may use (wt_curp, wt_implicit_*).  core/preempt.c sits above
 * both: it calls wt_implicit_enter and wt_implicit_exit, and nothing here
 * calls it.
 */
#include "core/runtime.h"
#include "core/proc.h"
#include "core/runq.h"
#include "signal/sighandler.h"
#include "signal/sigtask.h"
#include "syscall.h"
#include "core/sysmon.h"
#include "base/throw.h"
#include "core/hooks.h"
#include "core/worker.h"

void wt_entersyscall(void)
{
	struct wt_task *t = wt_cur();
	if (!t)
		return;
	if (unlikely(atomic_load_explicit(&t->m->implicit, memory_order_relaxed)))
		wt_implicit_settle(t->m); /* no switch: maybe in a signal handler */
	/* Handlers held back while the task ran weft's code on its way here
	 * run before the call, as natively they ran before it began: left
	 * waiting, sysmon's poke would raise them inside the call and end a
	 * call the kernel never restarts (semop) with EINTR, SA_RESTART or
	 * not.  They may park the task (it may go on on another worker). */
	if (!t->m->insyscall && !wt_locks_held)
		wt_sig_unlocked();
	/* A signal handler that interrupts a blocking call and makes one of
	 * its own (bash's SIGCHLD handler calls waitpid) nests: only the
	 * outermost call changes the proc's status. */
	if (t->m->insyscall++ > 0)
		return;
	struct wt_p *p = t->m->p;
	p->syscalltick++;
	/* Release: the proc's queues as this worker left them. */
	atomic_store_explicit(&p->status, WT_P_SYSCALL_BY(t->m), memory_order_release);
	/* Relaxed: a stale 0 costs at most sysmon's current sleep (<= 10 ms),
	 * the exchange makes one kicker per long sleep. */
	if (unlikely(atomic_load_explicit(&wt_sysmon_slow, memory_order_relaxed)) &&
	    (wt_runq_len(p) > 0 || atomic_load_explicit(&wt_sched.runq_size, memory_order_relaxed)) &&
	    atomic_exchange_explicit(&wt_sysmon_slow, 0, memory_order_relaxed))
		wt_sysmon_kick();
}

static void after_lost_proc(struct wt_m *m, struct wt_task *t, void *arg)
{
	(void)arg;
	atomic_store(&t->state, WT_RUNNABLE);
	/* First in line: it may hold what tasks blocked in the kernel wait
	 * for (a lock taken inside the call), and at WEFT_MAXTHREADS a new
	 * task run before it could take the last thread and block too.  With
	 * every proc busy, the runnext of one of them (core/proc.c: wt_ready_busy),
	 * whose running task gives way within about 1 ms; else the head of
	 * the global queue, taken before any proc's own queue. */
	if (wt_ready_busy(t)) {
		wt_stopm(m);
		return;
	}
	wt_lock(&wt_sched.lock);
	wt_globrunq_puthead(t);
	atomic_fetch_add_explicit(&wt_sched.nsysret, 1, memory_order_relaxed);
	wt_unlock(&wt_sched.lock);
	wt_wakep();
	wt_stopm(m); /* until a proc is handed to this worker */
}

void wt_exitsyscall(void)
{
	struct wt_task *t = wt_cur();
	if (!t)
		return;
	struct wt_m *m = t->m;
	/* The bracket's count and proc are this worker's (core/proc.c: wt_mcall
	 * makes the same check before it loads a g0). */
	if (unlikely(m->curg != t))
		wt_throw("a task leaves a system call on a worker that is not running it");
	if (--m->insyscall > 0)
		return;
	struct wt_p *p = m->p;
	int s = WT_P_SYSCALL_BY(m);
	/* Acquire: pairs with the release in entersyscall / the new owner.
	 * p is NULL when an implicit call (below) already lost it. */
	if (p && atomic_compare_exchange_strong_explicit(&p->status, &s, WT_P_RUNNING,
							 memory_order_acquire, memory_order_relaxed)) {
		/* A preemption the signal handler could not do: now. */
		if (unlikely(wt_preempt_wanted(m)))
			wt_preempt_yield();
		return;
	}
	/* sysmon took it.  Another idle proc? */
	m->p = NULL;
	struct wt_p *np = wt_pidleget();
	if (np) {
		np->m = m;
		m->p = np;
		return;
	}
	/* None: queue the task, park the worker.  wt_mcall needs no proc for
	 * this path (after_lost_proc is not a park, so no direct switch).  The
	 * call may have been made by a signal handler, whose mask the thread
	 * keeps: the next switch-in on this worker sets the mask afresh. */
	m->sigmask = WT_SIGMASK_UNKNOWN;
	if (unlikely(wt_tl_on))
		wt_tl_event(m, WT_TL_LOSTPROC, t->id, 0, 0);
	wt_mcall(after_lost_proc, NULL);
}

/* Context: sysmon, tracing on.  p was taken from the worker in status s. */
static void trace_retake(struct wt_p *p, int s)
{
	int mid = (s >> 2) - 1;
	struct wt_m *m = atomic_load_explicit(&wt_sched.allm, memory_order_acquire);
	while (m && m->id != mid)
		m = m->alllink;
	struct wt_task *g = m ? __atomic_load_n(&m->curg, __ATOMIC_RELAXED) : NULL;
	wt_tl_put(wt_tl_shared, WT_TL_RETAKE, g ? g->id : 0, (uint64_t)p->id, (uint64_t)mid);
}

/* Context: sysmon, at mono time now. */
int wt_sysmon_retake(int64_t now, int *seen)
{
	int n = 0;
	*seen = 0;
	int max = wt_sched.maxprocs; /* disabled procs may be held in a call too */
	for (int i = 0; i < max; i++) {
		struct wt_p *p = &wt_sched.procs[i];
		int s = atomic_load_explicit(&p->status, memory_order_acquire);
		if (WT_P_KIND(s) != WT_P_SYSCALL) {
			p->sysmon_tick = ~0ull;
			continue;
		}
		/* Someone else can take new work: leave a proc with none queued
		 * in its call (taking it would only idle it) for up to 10 ms. */
		bool leave = wt_runq_len(p) == 0 &&
			     atomic_load(&wt_sched.nmspinning) + atomic_load(&wt_sched.npidle) > 0;
		uint64_t tick = __atomic_load_n(&p->syscalltick, __ATOMIC_RELAXED);
		if (p->sysmon_tick != tick) {
			p->sysmon_tick = tick; /* first look at this call: look again */
			p->sysmon_when = now;
			*seen += !leave;
			continue;
		}
		if (leave && now - p->sysmon_when < 10000000)
			continue;
		if (atomic_compare_exchange_strong(&p->status, &s, WT_P_IDLE)) {
			if (unlikely(wt_tl_on))
				trace_retake(p, s);
			p->m = NULL;
			wt_handoffp(p);
			/* One left alone its 10 ms had nothing queued: taking it
			 * only idled it, which is no reason for sysmon's short
			 * looks (50 of them after each such take, for a shell
			 * waiting in wait4). */
			n += !leave;
		}
	}
	return n;
}

/* ---- implicit calls: system calls nobody intercepted ---- */

_Atomic int wt_nimplicit;

/* Context: the SIGURG handler on m's thread, the task interrupted on a
 * system call outside weft with m->insyscall == 0 and m->p set:
 * wt_entersyscall's work. */
void wt_implicit_enter(struct wt_m *m)
{
	struct wt_p *p = m->p;
	m->insyscall = 1;
	atomic_store_explicit(&m->implicit, 1, memory_order_relaxed);
	atomic_fetch_add(&wt_nimplicit, 1);
	p->syscalltick++;
	/* Release: pairs with sysmon's acquire in wt_sysmon_retake. */
	atomic_store_explicit(&p->status, WT_P_SYSCALL_BY(m), memory_order_release);
}

/* Context: a task in weft code (not a signal handler).  Ends an implicit
 * system call without switching: the proc back if sysmon has not taken it,
 * else an idle one.  false: none; m->p is then NULL and the task runs on
 * as if still in the call (insyscall stays 1), without a proc. */
bool wt_implicit_settle(struct wt_m *m)
{
	if (!atomic_load_explicit(&m->implicit, memory_order_relaxed))
		return true;
	if (m->insyscall != 1)
		return false; /* an intercepted call nested inside (a signal handler's) */
	struct wt_p *p = m->p;
	int s = WT_P_SYSCALL_BY(m);
	/* Acquire: pairs with the release in wt_implicit_enter / the new owner. */
	if (!p || !atomic_compare_exchange_strong_explicit(&p->status, &s, WT_P_RUNNING,
							  memory_order_acquire,
							  memory_order_relaxed)) {
		m->p = NULL;
		struct wt_p *np = wt_pidleget();
		if (!np)
			return false;
		np->m = m;
		m->p = np;
	}
	m->insyscall = 0;
	atomic_store_explicit(&m->implicit, 0, memory_order_relaxed);
	atomic_fetch_sub(&wt_nimplicit, 1);
	return true;
}

/* Context: a task where a switch is allowed (no lock held).  Ends an
 * implicit system call; without a proc to be had, queues the task and
 * stops the worker (wt_exitsyscall), so it resumes later elsewhere. */
void wt_implicit_exit(struct wt_m *m)
{
	if (wt_implicit_settle(m) || m->insyscall != 1)
		return;
	atomic_store_explicit(&m->implicit, 0, memory_order_relaxed);
	atomic_fetch_sub(&wt_nimplicit, 1);
	wt_exitsyscall(); /* insyscall 1 -> 0, m->p NULL: the lost-proc path */
}

/* Context: wt_mcall, on a task about to switch out (a parking task holds
 * its bucket lock: no queueing here).  Ends an implicit system call: the
 * proc back, or none, and then the call is over all the same (insyscall 0,
 * m->p NULL) and g0 stops the worker once the switch is done (core/proc.c). */
void wt_implicit_switch_out(struct wt_m *m)
{
	if (!wt_implicit_settle(m) && m->insyscall == 1) {
		m->insyscall = 0;
		atomic_store_explicit(&m->implicit, 0, memory_order_relaxed);
		atomic_fetch_sub(&wt_nimplicit, 1);
	}
}

/* Context: a task (or a thread weft did not create: NULL).  The proc its
 * worker holds and it may use: NULL inside a system call, explicit or
 * implicit, whose proc may be another worker's by now. */
struct wt_p *wt_curp(void)
{
	struct wt_task *t = wt_cur();
	if (!t || !t->m)
		return NULL;
	struct wt_m *m = t->m;
	if (unlikely(atomic_load_explicit(&m->implicit, memory_order_relaxed)))
		wt_implicit_settle(m);
	return m->insyscall ? NULL : m->p;
}
