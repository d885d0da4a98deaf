/*
 * preempt.c — sysmon's SIGURG to a worker and its handler: taking the CPU
 * from a task that does not give it back, and the signal that makes a
 * worker blocked where weft did not see it give up its proc.
 *
 * Both are done by sysmon (sysmon.c) sending SIGURG to the worker, as Go
 * does, and by the handler below, which runs on the worker's own thread and
 * so may change what only the owner may change.  sysmon's watch
 * (wt_sysmon_preempt) remembers, per proc, the schedtick it last saw, when
 * it first saw it (Go's sysmon retake) and the worker's thread CPU clock
 * (io/blocked.c: wt_thread_cpu_ns).
 *
 * 1. Preemption.  A proc whose tick has not moved for 10 ms while its
 *    worker's CPU clock advances runs one task that long: sysmon stores
 *    m->preempt = tick + 1 and signals.  So it does after 1 ms when a
 *    task has waited that long in the proc's runnext, no proc is idle and
 *    the tick has not moved for 1 ms either: the running task readied it
 *    and ran on (Go's runnext inherits the slice; the kernel's wake-up
 *    preemption would run the woken thread about then), or a task readied
 *    with no proc held was put there (proc.c: wt_ready_busy: a sleep's
 *    timer fired by sysmon, a task back from a system call that lost its
 *    proc).  The handler
 *    switches only at a safe point:
 *      - the interrupted pc is outside the no-switch text (text.c: libc,
 *        ld.so, the vDSO, libweft and the libraries weft uses), so no
 *        glibc-internal lock and no weft lock or cached proc is held by
 *        the innermost frames;
 *      - the task is not in a system call (m->insyscall == 0) and the
 *        worker runs a task (not g0);
 *      - the stack pointer is inside the task's stack with room to spare.
 *    It does not switch inside the handler.  As Go's asyncPreempt, it makes
 *    the interrupted context "call" wt_async_preempt (arch.h:
 *    wt_arch_uc_push_call).  After sigreturn the stub saves every register
 *    and the extended state, calls wt_preempt_park, which puts the task on
 *    the global run queue and reschedules (proc.c: wt_preempt_yield), and
 *    on resumption restores all of it and returns to the interrupted pc.
 *    Not at a safe point, the request stays in m->preempt and the task
 *    yields at its next exit from a blocking call or yield, or as an
 *    interposed call that does not block returns to the program
 *    (wt_preempt_wanted; shim.h: RETURN_POINT); any switch meanwhile
 *    makes it stale, since it names the schedtick.
 *
 * 2. System calls nobody intercepted.  A proc whose tick has not moved
 *    while its worker's CPU clock stood still between two reads (at least
 *    1 ms apart: a read is a system call) is suspect;
 *    sysmon signals its worker when io/blocked.c says it sleeps in a call that
 *    a handled signal restarts (wt_blocked_restartable), at most every
 *    2 ms, and looks again only after 10 ms when it said no.  The handler,
 *    seeing the interrupted context sit in a system call (arch.h:
 *    wt_arch_uc_in_syscall) outside libweft, with m->insyscall == 0,
 *    enters the implicit call (io/syscall.c: wt_implicit_enter): after
 *    sigreturn the call restarts, and sysmon's retake takes the proc.  A
 *    worker that has left such a call and runs on without a proc
 *    (m->implicit still set) is signalled whenever its CPU clock advances;
 *    the handler sends it through the stub at the next safe point, where
 *    wt_preempt_park settles the call (wt_implicit_exit).
 *    A worker that is runnable but descheduled by the kernel also shows a
 *    still CPU clock.  Mistaking it costs nothing: /proc says "running" and
 *    no signal is sent; and if it were sent, the handler would find no
 *    system call at the pc and change nothing.  The handler's checks, not
 *    sysmon's guess, decide.
 *
 * Signal set-up.  SA_SIGINFO, SA_RESTART, SA_ONSTACK.  The handler runs on
 * the worker's alternate stack, not on the task's: the kernel builds the
 * signal frame, with the extended state that sigreturn restores, right
 * below the interrupted red zone, exactly where the rewritten context
 * pushes the return address; on the task stack the push would corrupt the
 * frame being returned through.  SA_RESTART keeps read/write/futex waits
 * restarting transparently.  sysmon's requests are queued with
 * rt_tgsigqueueinfo, si_code SI_QUEUE and a per-process cookie in si_value,
 * so any other SIGURG (raise, kill, a socket's out-of-band data) but
 * `weft stack`'s request (si_value tagged WT_STACK_MAGIC, observe/dump.c), `weft
 * profile`'s (WT_PROF_MAGIC) and a profiling timer's tick (si_code
 * SI_TIMER, observe/pprof.c's value) goes to the program's own handler (signal/sighandler.c records it: wt_sig_action;
 * SA_SIGINFO, SA_RESETHAND, SA_NODEFER and sa_mask honoured; its default,
 * as natively, is to ignore).  Masks never block SIGURG at the OS level
 * (shim/signal.c strips it), or preemption would stop.  The kernel keeps
 * one SIGURG pending per thread (and one for the process): a program's
 * SIGURG must never ride as a kernel signal where one of weft's may be
 * pending.  A kill or sigqueue of the program's to its own process is
 * taken in the call (signal/sighandler.c: wt_sig_send_process), and a program
 * SIGURG weft moves to the thread that runs its handler is kept on that
 * worker and carried by a marked SIGURG (signal/sigtask.c: wt_sig_raise): every
 * SIGURG handler run, after its own work, runs a kept one
 * (wt_sig_urg_owed), so a carrier merged into a request loses nothing.
 *
 * EINTR risk.  The signal interrupts whatever the worker is doing.
 * Restartable calls (read, write, wait4, accept, futex waits without a
 * timeout, ...) restart.  Calls the kernel never restarts after a handled
 * signal — poll, select, epoll_wait, nanosleep, clock_nanosleep,
 * sigtimedwait, sigsuspend, pause, timed futex waits, semop, msgrcv,
 * io_getevents, reads on sockets with SO_RCVTIMEO — return EINTR if made
 * with a raw system call or libc's wrapper from a task that sysmon signals
 * while it is in them.  sysmon never sends a blocked-worker probe to
 * those, and sends preemption requests only to workers whose CPU clock
 * advances, so the window is a task entering such a call in the
 * microseconds after sysmon decided; the intercepted forms (weft's poll,
 * sleep, ...) are not affected, and System V IPC waits that a SIGURG of weft's
 * ends (this one, a poke, `weft stack`'s request) are made again
 * (shim/fallback.c).  Go documents the same for cgo.
 *
 * Layering: this file sits above the scheduler.  It calls proc.c
 * (wt_preempt_yield), io/syscall.c (wt_implicit_enter, wt_implicit_exit),
 * io/blocked.c and text.c; only start.c (wt_preempt_init), sysmon.c
 * (wt_sysmon_preempt) and the stub (wt_preempt_park) call into it.
 *
 * Rejected: switching inside the handler (the task would resume through a
 * signal frame on another worker, restoring that worker's mask with the
 * first one's); a timer signal per worker (POSIX timers tick even when the
 * task yields often, costing a signal per slice); letting sysmon take a
 * RUNNING proc from a blocked worker without its handler (every weft entry
 * would need a fenced handshake to learn of it).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include "runtime.h"
#include "io/blocked.h"
#include "process/cpuclock.h"
#include "config.h"
#include "hooks.h"
#include "preempt.h"
#include "rtq.h"
#include "process/setxid.h"
#include "process/tracer.h"
#include "proc.h"
#include "base/real.h"
#include "signal/sighandler.h"
#include "signal/sigstack.h"
#include "signal/sigtask.h"
#include "base/slab.h"
#include "io/syscall.h"
#include "task.h"
#include "text.h"
#include "base/throw.h"
#include "thread.h"
#include "stack/tls.h"

#define PREEMPT_NS 10000000 /* a task's slice before sysmon asks, as Go's forcePreemptNS */
#define RUNNEXT_NS 1000000  /* a woken runnext's wait behind a task that runs on */
#define PROBE_NS 2000000    /* least interval between probes of one suspect proc */
#define SKIP_NS 10000000    /* after /proc said "leave it alone" */
#define CPU_LOOK_NS 1000000 /* least interval between reads of a worker's CPU clock */

static void *cookie; /* [const after init] si_value of sysmon's requests */
static uintptr_t main_top; /* [const after init] top of the initial thread's stack */
static uintptr_t main_lo;  /* [const after init] its lowest address weft counts on */
extern void *__libc_stack_end; /* ld.so: where _start found argc */

/* ---- the handler ---- */

/* sp lies on t's own stack with `room` to spare under it: its stack (main's
 * slot once main runs there), or for main the initial thread's stack it
 * starts on (constructors, and main where it got no slot).  Not a signal
 * stack or a stack of the program's making. */
static bool on_task_stack(const struct wt_task *t, uintptr_t sp, size_t room)
{
	if (sp >= (uintptr_t)t->stack_lo + room && sp <= (uintptr_t)t->stack_hi)
		return true;
	return t->main && sp >= main_lo + room && sp <= main_top;
}

/* Context: signal handler.  sysmon asked something of this worker. */
static void on_request(ucontext_t *uc)
{
	struct wt_task *t = wt_cur();
	if (!t)
		return; /* g0 or a thread weft did not create */
	struct wt_m *m = t->m;
	if (!m || m->curg != t)
		return; /* mid-switch (weft code anyway) */
	atomic_store_explicit(&m->sigsent, 0, memory_order_relaxed);
	uintptr_t pc = wt_arch_uc_pc(uc);
	if (wt_pc_in_weft(pc))
		return; /* weft checks its flags itself; its futex waits keep the proc */
	bool sys = wt_arch_uc_in_syscall(uc);
	int call = atomic_load(&t->cancel_call);
	if (m->insyscall != 0 && sys && call != WT_CALL_NONE && wt_cancel_pending(t) &&
	    !atomic_load_explicit(&m->implicit, memory_order_relaxed)) {
		/* A cancellation point blocked in libc: the call ends with EINTR
		 * and the shim acts on the cancel (shim.h: CANCELABLE). */
		if (call == WT_CALL_EINTR) {
			wt_arch_uc_syscall_eintr(uc);
			return;
		}
		/* One that would only wait again (glibc's condvar waits): the
		 * task unwinds from the call, through the stub, as glibc's own
		 * cancellation signal unwinds it, and only inside glibc's own
		 * window (not in the mutex re-lock after it); elsewhere sysmon's
		 * next request (wt_sysmon_cancel) looks again.  A lock wait made
		 * with asynchronous cancellation (WT_CALL_ASYNC) unwinds from
		 * its system call, as the native signal would. */
		if ((call == WT_CALL_ASYNC || wt_tls_libc_cancel_window(wt_tls_pd(t->tp))) &&
		    on_task_stack(t, wt_arch_uc_sp(uc), 16384 + wt_arch_preempt_state_size())) {
			wt_arch_uc_syscall_eintr(uc);
			wt_arch_uc_push_call(uc, wt_async_preempt);
		}
		return;
	}
	if (m->insyscall == 0) {
		if (sys) {
			if (m->p)
				wt_implicit_enter(m);
			return;
		}
		if (!wt_preempt_wanted(m) && !wt_cancel_async_pending(t))
			return;
	} else if (!atomic_load_explicit(&m->implicit, memory_order_relaxed) ||
		   m->insyscall != 1 || sys) {
		return; /* an intercepted call, or still blocked in the implicit one */
	}
	/* Preempt, or settle an implicit call that has returned: at a safe point only. */
	/* On the task's own stack, with room for the stub's frame and the C
	 * code under it (not on a signal stack or a stack of its own making).
	 * main's frames lie above the constructor's frame weft started from
	 * (stack_hi): _start reset the stack pointer. */
	uintptr_t sp = wt_arch_uc_sp(uc);
	if (wt_cfg.asyncpreemptoff || wt_pc_no_switch(pc) ||
	    !on_task_stack(t, sp, 16384 + wt_arch_preempt_state_size()))
		return;
	wt_arch_uc_push_call(uc, wt_async_preempt);
}

/* The program's own SIGURG (a kill, or the one a socket's urgent data
 * raises): its handler runs as any other program handler does, through
 * the trampoline (signal/sighandler.c), which holds it back while weft's code or
 * locks are interrupted and hands it to a task from g0.  The kernel set
 * this handler's mask (every signal but the faults); the trampoline's
 * installed for the program's sigaction would have the interrupted mask,
 * the handler's sa_mask and sig (unless SA_NODEFER), with SIGSEGV and
 * SIGBUS open for weft (signal/crash.c): set here for the call. */
static void chain(int sig, siginfo_t *si, void *ucv)
{
	struct sigaction u;
	if (!wt_sig_handler_get(sig, &u))
		return; /* SIGURG's default action: ignore */
	if (u.sa_handler == SIG_IGN || u.sa_handler == SIG_DFL)
		return;
	ucontext_t *uc = ucv;
	uint64_t set, old, um;
	memcpy(&set, &uc->uc_sigmask, 8);
	memcpy(&um, &u.sa_mask, 8);
	set |= um;
	if (u.sa_flags & SA_NODEFER)
		set &= ~(1ull << (sig - 1));
	else
		set |= 1ull << (sig - 1);
	set &= ~((1ull << (SIGSEGV - 1)) | (1ull << (SIGBUS - 1)));
	wt_syscall6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&set, (long)&old, 8, 0, 0);
	wt_sig_trampoline(sig, si, ucv);
	wt_syscall6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8, 0, 0);
}

/* Context: signal handler.  A preempted task's stub asks to resume
 * (WT_ARCH_PREEMPT_RESUME_SIGNAL): its saved state, on its own stack, is
 * loaded into the frame the kernel restores as the handler returns. */
static bool on_resume(const siginfo_t *si, ucontext_t *uc)
{
	struct wt_task *t = wt_cur();
	uintptr_t s = (uintptr_t)si->si_value.sival_ptr;
	if (!t || si->si_pid != wt_pid || !on_task_stack(t, s, 0))
		return false;
	return wt_arch_uc_resume(uc, (void *)s);
}

/* Context: the task, in the stub, after wt_preempt_park: its saved state
 * at `state`.  The signal is this thread's and SIGURG is never blocked,
 * so it is taken as the call returns, and its handler does not return
 * here.  SIGURG does not queue: a send while another SIGURG is pending
 * (a request of sysmon's, a program's) is dropped, and that one's handler
 * returns here instead (finding the pc in weft, it changed nothing), so
 * the send is made again. */
void wt_preempt_resume(void *state)
{
	siginfo_t si;
	wt_sig_info_self(&si, SIGURG, SI_QUEUE);
	si.si_value.sival_ptr = state;
	for (int i = 0;; i++) {
		long r = wt_syscall6(SYS_rt_tgsigqueueinfo, wt_pid,
				     wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0), SIGURG, (long)&si, 0, 0);
		if (r < 0 && r != -EAGAIN)
			wt_throw("a preempted task's resume signal cannot be sent");
		if (i == 1000)
			wt_throw("a preempted task's resume signal is never taken");
	}
}

static void take(int sig, siginfo_t *si, void *uc)
{
	if (si && (wt_setxid_signal(si) || wt_ptrace_signal(si) || wt_dump_signal(si) ||
		   wt_prof_signal(si, uc) ||
		   wt_libc_freeze_signal(si, uc)))
		return;
	if (WT_ARCH_PREEMPT_RESUME_SIGNAL && si && si->si_code == SI_QUEUE &&
	    si->si_value.sival_ptr != cookie && on_resume(si, uc))
		return;
	if (si && si->si_code == SI_QUEUE && si->si_value.sival_ptr == cookie) {
		on_request(uc);
		wt_sig_poked(uc); /* a poke it may have absorbed */
	}
	else if (!si || !wt_sig_urg(si, uc))
		chain(sig, si, uc);
}

/* Every SIGURG, whoever sent it: weft's request or poke, or the program's
 * own from the kernel (take); then the program's SIGURG weft raised on
 * this thread (signal/sigtask.c: wt_sig_raise), which any SIGURG taken here
 * carries, since the kernel merges one into another pending. */
static void on_sigurg(int sig, siginfo_t *si, void *uc)
{
	take(sig, si, uc);
	siginfo_t owed;
	if (wt_sig_urg_owed(&owed))
		chain(sig, &owed, uc);
}

/* Context: the initial thread, at start (after the fault handler). */
void wt_preempt_init(void)
{
	main_top = WT_ALIGN_UP((uintptr_t)__libc_stack_end, 4096);
	if (wt_main_task && main_top < (uintptr_t)wt_main_task->stack_hi)
		main_top = (uintptr_t)wt_main_task->stack_hi;
	if (wt_main_task)
		main_lo = (uintptr_t)wt_main_task->stack_lo;
	/* From the kernel's 16 random bytes for the process (AT_RANDOM),
	 * folded so that neither half (glibc's stack and pointer guards)
	 * shows: a clock read here would be the process's first, three page
	 * faults at start (the vDSO's data and libc's clock_gettime). */
	uint64_t rnd[2] = { 0, 0 };
	const void *ar = (const void *)getauxval(AT_RANDOM);
	if (ar)
		memcpy(rnd, ar, sizeof rnd);
	uint64_t mix = (rnd[0] * 0x9e3779b97f4a7c15ull) ^ (rnd[1] * 0xc2b2ae3d27d4eb4full);
	cookie = (void *)(((uintptr_t)&cookie ^ (uintptr_t)(mix ^ (mix >> 29))) | 1);
	struct sigaction sa = { 0 }, old;
	sa.sa_sigaction = on_sigurg;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	/* Everything but the fault signals is blocked in the handler, so what
	 * a poke raises (signal/sigtask.c) is delivered as it returns, on the
	 * interrupted task; chain() sets the program handler's own mask. */
	sigfillset(&sa.sa_mask);
	sigdelset(&sa.sa_mask, SIGSEGV);
	sigdelset(&sa.sa_mask, SIGBUS);
	wt_sig_install_own(SIGURG, &sa, &old);
	/* A handler the program set before weft started (a constructor). */
	if (old.sa_handler != SIG_DFL && (void *)old.sa_sigaction != (void *)on_sigurg)
		wt_sig_handler_set(SIGURG, &old, NULL);
}

/* ---- task side ---- */

/* Context: the task, called by wt_async_preempt with every register saved. */
void wt_preempt_park(void)
{
	struct wt_task *t = wt_cur();
	/* A cancel the handler found in a WT_CALL_UNWIND or WT_CALL_ASYNC
	 * call: the call's own cleanup (the shim's) leaves the system call
	 * bracket. */
	int call = atomic_load(&t->cancel_call);
	if ((call == WT_CALL_UNWIND || call == WT_CALL_ASYNC) && wt_cancel_pending(t))
		wt_cancel_act();
	if (atomic_load_explicit(&t->m->implicit, memory_order_relaxed))
		wt_implicit_exit(t->m);
	if (wt_preempt_wanted(t->m))
		wt_preempt_yield();
	/* Asynchronous cancellation: unwind from here, through the stub
	 * (a signal frame for the unwinder) into the interrupted code. */
	if (wt_cancel_async_pending(t))
		wt_cancel_act();
}

void wt_preempt_at_return(struct wt_task *t, uintptr_t ret)
{
	char here; /* this frame lies on the stack the caller runs on */
	struct wt_m *m = t->m;
	/* Not inside a blocking call of a signal handler's, nor from libc
	 * or weft (their locks may be held), nor on a signal stack. */
	if (m->insyscall || m->curg != t || wt_pc_no_switch(ret) ||
	    !on_task_stack(t, (uintptr_t)&here, 4096))
		return;
	wt_preempt_yield();
}

/* ---- cancellation ----
 * A cancel that a parked task cannot see: t runs with asynchronous
 * cancellation, or blocks in a cancellation point that libc makes
 * (CANCELABLE).  Its worker gets a request; the handler above sends a
 * running task through the stub (wt_preempt_park unwinds) at a safe
 * point, or ends a blocked call with EINTR.  A request that finds the
 * task between its check and the call, or at no safe point, or switched
 * out, is repeated by sysmon (wt_sysmon_cancel) while such a task runs;
 * a switched-out one is met by its own checks when it runs again, or by
 * preemption after a slice. */
static _Atomic int cancel_watch; /* [atomic] sysmon should look for such tasks */

static void poke(struct wt_m *m)
{
	wt_sig_urg_send(m->ostid, (union sigval){ .sival_ptr = cookie });
}

static bool needs_signal(struct wt_task *t)
{
	return wt_cancel_async_pending(t) || (atomic_load(&t->cancel_call) && wt_cancel_pending(t));
}

/* pthread_cancel of t has set the request.  Context: any. */
void wt_preempt_cancel(struct wt_task *t)
{
	if (!needs_signal(t))
		return;
	atomic_store(&cancel_watch, 1);
	struct wt_m *m = __atomic_load_n(&t->m, __ATOMIC_RELAXED);
	if (m && __atomic_load_n(&m->curg, __ATOMIC_RELAXED) == t && cookie)
		poke(m);
}

/* Context: sysmon, every tick. */
void wt_sysmon_cancel(int64_t now)
{
	if (!atomic_load(&cancel_watch) || !cookie)
		return;
	atomic_store(&cancel_watch, 0); /* seq_cst: before the looks below */
	bool more = false;
	wt_lock(&wt_sched.lock);
	struct wt_m *all = atomic_load_explicit(&wt_sched.allm, memory_order_acquire);
	wt_unlock(&wt_sched.lock);
	for (struct wt_m *m = all; m; m = m->alllink) {
		struct wt_task *t = __atomic_load_n(&m->curg, __ATOMIC_RELAXED);
		if (!t || !needs_signal(t))
			continue;
		more = true;
		if (now - m->mon_cancel >= 1000000) {
			m->mon_cancel = now;
			poke(m);
		}
	}
	if (more)
		atomic_store(&cancel_watch, 1);
}

/* ---- sysmon side ---- */

struct pmon {
	struct wt_m *m;     /* the worker seen on the proc */
	uint64_t tick;      /* its schedtick */
	int64_t when;       /* first seen */
	int64_t cpu;        /* worker's CPU time at the last read; -1 not read yet */
	int64_t cpu_at;     /* when it was read */
	int64_t next_probe; /* no blocked-worker probe before */
	struct wt_task *rn; /* the proc's runnext at the last look */
	int64_t rn_at;      /* when it was first seen there */
};
static struct pmon *pmon; /* [sysmon] one per proc */

static void send(struct wt_m *m, int64_t now)
{
	/* One request in flight; again after 10 ms in case a SIGURG of the
	 * program's, pending at the same time, absorbed ours. */
	if (atomic_load_explicit(&m->sigsent, memory_order_relaxed) && now - m->mon_sent < 10000000)
		return;
	atomic_store_explicit(&m->sigsent, 1, memory_order_relaxed);
	m->mon_sent = now;
	/* The signal's delivery orders m->preempt, stored before, for the handler. */
	poke(m);
}

/* Context: sysmon, every tick while a proc is busy.  true: a task waits
 * in a busy proc's runnext (sysmon looks again within RUNNEXT_NS). */
bool wt_sysmon_preempt(int64_t now)
{
	bool waiting = false;
	/* Per-task CPU counting just started: every running task switches
	 * once, so each opens its window (process/cpuclock.c). */
	bool acct_kick = atomic_load_explicit(&wt_cpuacct_kick, memory_order_relaxed) &&
			 atomic_exchange_explicit(&wt_cpuacct_kick, false, memory_order_relaxed);
	/* Room for every proc: nprocs may rise later (process/cgroup.c, process/affinity.c). */
	if (!pmon && !(pmon = wt_mmap_anon(sizeof *pmon * wt_sched.maxprocs)))
		return false;
	for (int i = 0; i < wt_sched.nprocs; i++) {
		struct wt_p *p = &wt_sched.procs[i];
		struct pmon *pm = &pmon[i];
		int s = atomic_load_explicit(&p->status, memory_order_acquire);
		struct wt_m *m = __atomic_load_n(&p->m, __ATOMIC_RELAXED);
		if ((s & 3) != WT_P_RUNNING || !m) {
			pm->m = NULL;
			continue;
		}
		uint64_t tick = __atomic_load_n(&p->schedtick, __ATOMIC_RELAXED);
		if (unlikely(acct_kick) && !wt_cfg.asyncpreemptoff &&
		    __atomic_load_n(&m->curg, __ATOMIC_RELAXED)) {
			atomic_store_explicit(&m->preempt, tick + 1, memory_order_relaxed);
			send(m, now);
		}
		/* A real-time task waits (rtq.c) above the one running here and
		 * no proc is idle to take it: the running one gives way now. */
		struct wt_task *cg;
		if (wt_rt_any() && !wt_cfg.asyncpreemptoff &&
		    atomic_load_explicit(&wt_sched.npidle, memory_order_relaxed) == 0 &&
		    (cg = __atomic_load_n(&m->curg, __ATOMIC_RELAXED)) &&
		    atomic_load_explicit(&cg->eff, memory_order_relaxed) <
			    atomic_load_explicit(&wt_rtq_top, memory_order_relaxed)) {
			atomic_store_explicit(&m->preempt, tick + 1, memory_order_relaxed);
			if (unlikely(wt_tl_on))
				wt_tl_put(wt_tl_shared, WT_TL_PREEMPT, cg->id, (uint64_t)m->id, 0);
			send(m, now);
		}
		/* A task readied into runnext by one that runs on (a wake-up,
		 * not a hand-off: the waker did not park) waits RUNNEXT_NS at
		 * most once the running one has run as long, with no proc
		 * idle to take it: then the running one gives way, as the
		 * kernel's wake-up preemption lets a thread that slept run
		 * soon.  A program's helper thread woken by busy ones (a JIT
		 * compiler thread, a logger) would else wait out their 10 ms
		 * slices. */
		struct wt_task *rn = atomic_load_explicit(&p->runnext, memory_order_relaxed);
		if (rn)
			waiting = true;
		if (!rn || rn != pm->rn) {
			pm->rn = rn;
			pm->rn_at = now;
		} else if (m == pm->m && tick == pm->tick && now - pm->rn_at >= RUNNEXT_NS &&
			   now - pm->when >= RUNNEXT_NS &&
			   atomic_load_explicit(&wt_sched.npidle, memory_order_relaxed) == 0 &&
			   __atomic_load_n(&m->curg, __ATOMIC_RELAXED)) {
			/* As a slice's end: without asynchronous preemption
			 * the task yields at its next return point. */
			atomic_store_explicit(&m->preempt, tick + 1, memory_order_relaxed);
			if (unlikely(wt_tl_on)) {
				struct wt_task *g = __atomic_load_n(&m->curg, __ATOMIC_RELAXED);
				wt_tl_put(wt_tl_shared, WT_TL_PREEMPT, g ? g->id : 0, (uint64_t)m->id, 0);
			}
			if (!wt_cfg.asyncpreemptoff)
				send(m, now);
			pm->rn_at = now;
		}
		if (m != pm->m || tick != pm->tick) {
			/* The worker's CPU clock is read from the second look at
			 * the same tick on: a busy server's procs change task
			 * between most looks, and a read is a system call. */
			pm->m = m;
			pm->tick = tick;
			pm->when = now;
			pm->cpu = -1;
			pm->next_probe = 0;
			continue;
		}
		if (!__atomic_load_n(&m->curg, __ATOMIC_RELAXED))
			continue; /* g0: looking for work or waiting for a lock */
		/* A read is a system call, and sysmon looks every 20 µs while
		 * procs change hands: a task that runs on reads the clock at
		 * most once a millisecond (a slice is 10 ms; a worker asleep in
		 * a call nobody intercepted is found within 2 ms, or two of
		 * sysmon's 10 ms looks while every proc is busy). */
		if (pm->cpu >= 0 && now - pm->cpu_at < CPU_LOOK_NS)
			continue;
		int64_t cpu = wt_thread_cpu_ns(m->ostid);
		pm->cpu_at = now;
		if (pm->cpu < 0) {
			pm->cpu = cpu;
			continue;
		}
		bool ran = cpu != pm->cpu;
		pm->cpu = cpu;
		/* A slice ends only for a task that waits: with every runnable
		 * task running (as many busy threads as procs, OpenMP's
		 * spinning barriers, xz -T2), a preemption would put the same
		 * task back, for a signal and its handler's work each 10 ms. */
		if (ran) {
			if (now - pm->when >= PREEMPT_NS && wt_any_runnable()) {
				atomic_store_explicit(&m->preempt, tick + 1, memory_order_relaxed);
				if (unlikely(wt_tl_on)) {
					struct wt_task *g = __atomic_load_n(&m->curg, __ATOMIC_RELAXED);
					wt_tl_put(wt_tl_shared, WT_TL_PREEMPT, g ? g->id : 0,
						  (uint64_t)m->id, 0);
				}
				if (!wt_cfg.asyncpreemptoff)
					send(m, now);
			}
		} else if (now >= pm->next_probe) {
			bool b = wt_blocked_restartable(m);
			if (b)
				send(m, now);
			pm->next_probe = now + (b ? PROBE_NS : SKIP_NS);
		}
	}
	/* Workers that left an implicit call and run on without a proc. */
	if (atomic_load(&wt_nimplicit) == 0 || wt_cfg.asyncpreemptoff)
		return waiting;
	wt_lock(&wt_sched.lock);
	struct wt_m *all = atomic_load_explicit(&wt_sched.allm, memory_order_acquire);
	wt_unlock(&wt_sched.lock);
	for (struct wt_m *m = all; m; m = m->alllink) {
		if (!atomic_load_explicit(&m->implicit, memory_order_relaxed)) {
			m->mon_cpu = 0;
			continue;
		}
		int64_t cpu = wt_thread_cpu_ns(m->ostid);
		if (m->mon_cpu && cpu > m->mon_cpu + 100000)
			send(m, now);
		m->mon_cpu = cpu;
	}
	return waiting;
}
