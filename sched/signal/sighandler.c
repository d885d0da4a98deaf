/*
 * sighandler.c — a program's signal handlers run through one trampoline,
 * which runs them at once, or later if they interrupted weft's own code.
 *
 * Why.  A handler may call what POSIX calls async-signal-safe: sem_post,
 * write, sleep, pthread_kill...  Under weft those park tasks and take the
 * parking lot's locks.  If the signal interrupted this thread inside weft
 * while it held such a lock (a task half-way through parking on the same
 * bucket; a switch, whose lock the next context releases), the handler
 * spins forever on a lock its own thread holds: a SIGALRM every 50 µs
 * whose handler posts a semaphore hung every run.
 *
 * What.  sigaction (wt_sig_action, below) installs wt_sig_trampoline
 * for every handler a program sets (not SIGSEGV, SIGBUS, SIGURG: weft's own, which chain; not
 * SIGQUIT: the task dump), with the program's mask and flags, so the kernel
 * blocks during it what it would during the handler; SA_RESETHAND is done
 * here, at the call.  The trampoline looks at the interrupted context:
 *  - holding no weft lock (base/lock.h: wt_locks_held, the interrupted
 *    context's count, read through the thread pointer the signal came
 *    with) and outside weft, or in wt_syscall6_sigok (a wait holding
 *    nothing: an idle worker's sleep, the poller's epoll_wait, a task
 *    unblocking or raising its own signals), it calls the handler, with
 *    the same siginfo and ucontext the kernel gave;
 *  - holding a weft lock, wherever the pc is (libc or the vDSO called
 *    under the lock: a clock read, a memcpy, a file read; a task's switch
 *    out counts as one, core/proc.c: wt_mcall), or inside weft
 *    elsewhere, it keeps the siginfo on the worker (m): the
 *    worker runs it at its next point outside weft's locks and switches
 *    (wt_sig_defer_run: a task's switch-in, yield, end of a park, release
 *    of a program's lock or semaphore; g0's loop), raising it again on its
 *    own thread with rt_tgsigqueueinfo and the original siginfo (the
 *    kernel allows any si_code to oneself) from wt_syscall6_sigok, so the
 *    trampoline runs the handler in that call.  A task that goes on in its
 *    own code without passing such a point is poked by sysmon, every tick
 *    while the signals wait (a poke may land in weft again, or be absorbed
 *    by another SIGURG pending there): the poke's handler raises them, to
 *    be delivered as it returns, and the trampoline looks again.  Signals a
 *    task raised for itself (SI_TKILL from this process) go back to the
 *    task's queue instead, so they run on that task, not on the thread; if
 *    the task was switching out to park, the park ends (core/park.c:
 *    wt_park_intr_locked, from core/proc.c's after_park).  So does a
 *    process-directed one for a task that does not block it, unless the
 *    main task takes it (keep_on_task): the task was chosen for it.
 * A process-directed signal the main task does not block is moved to it
 * (to_main).  A program's handler never runs on a worker outside a task:
 * a signal that comes to g0 (an idle worker takes every handled signal:
 * sigtask.c's wt_sig_idle) is pending for the process until a task that
 * takes it does (route; "signals pending for the process" below).  While deferred,
 * signals of one kind coalesce, as a blocked one does.  A thread with no
 * worker (a thread weft did not create) runs the handler at once, as
 * before, and so do faults (SIGILL, SIGFPE, SIGTRAP, SIGSYS from the
 * kernel), which would only recur.  The lock count makes the rule hold
 * for every call weft makes under a lock by construction: the pc alone
 * (the test until then) missed pthread_setschedparam's clock read under
 * the real-time queue's lock, where a handler's sem_post, readying a
 * real-time task, waited for that lock on its own thread (a
 * conformance test hung 7 runs in 32; tests/preload/signal_busy_target's
 * scheduling phase 4 in 4, none in 30 since); the timer heap's growth
 * (memcpy), the
 * scheduling checks' file reads and the TLS images' copies are among the
 * others.  Rejected: keeping libc out of every locked section by hand
 * (the way core/park.c reads the clock before its bucket lock), which the next
 * change breaks silently; a per-worker depth bumped by every entry into
 * weft (an entry costs a store more on paths that take no lock, and the
 * lock is what a handler can wait for).  The count costs one increment
 * and one decrement of a thread-local word per lock, no system call.
 * A handler held back this way runs at the worker's next point outside
 * weft's locks (below); the calls that take weft's locks and return to
 * the program without passing one run what waits as they return
 * (shim/sched.c, pthread_create, pthread_join).  (A poke that lands
 * inside weft still raises the task's signals, which the trampoline then
 * holds back: leaving them queued for the next point instead starved a
 * process-directed signal taken by a task that loops on a program lock
 * and sched_yield, tests/preload/signal_rate: 1,500-7,000 rounds in 30 s
 * against 20,000 in well under a second.)  The same holds for a handler's way back: weft's
 * own handlers (the fault handler, which repairs thread-pointer faults
 * taken inside weft's locked sections, and SIGURG's) return through
 * wt_arch_sigaction_restorer in libweft (wt_sig_install_own), not libc's restorer:
 * a SIGALRM taken on libc's two instructions there ran its handler over a
 * held bucket lock (the lock-order check caught it in 1 run in 5-20 of
 * signal_sem and signal_parked in trap mode).  A handler's frame records
 * the thread's alternate signal stack, which sigreturn installs again: a
 * handler whose task comes back on another thread (it parked or was
 * preempted, and its worker's struct may even belong to a new thread by
 * then) gets that thread's stack put in its frame (moved).
 * The trampoline returns through libweft's restorer too: a poke taken on libc's rt_sigreturn, the handler having
 * interrupted a blocking call, looked like that call to sigtask.c, which
 * stepped over the rt_sigreturn to end it with EINTR.
 *
 * A task inside glibc's fork, between weft's two fork handlers, holds
 * glibc's atfork, stdio and malloc locks: a handler that interrupts it
 * there is deferred too, to the end of that window (process/fork.c:
 * wt_fork_window), so it cannot yield or park holding them.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include "core/runtime.h"
#include "core/hooks.h"
#include "base/real.h"
#include "sighandler.h"
#include "sigstack.h"
#include "sigtask.h"
#include "core/start.h"
#include "io/syscall.h"
#include "core/sysmon.h"
#include "core/task.h"
#include "core/text.h"
#include "base/throw.h"
#include "core/worker.h"
#include "core/park.h"

/* ---- the program's handlers ----
 * For each signal whose kernel handler is weft's (the trampoline, crash.c's
 * fault handler, core/preempt.c's SIGURG handler), the handler the program set,
 * if any.  Written by sigaction on any thread (and by a delivery that
 * forgets a one-shot handler); read by the handlers, on any thread, at any
 * moment.  A reader must see a record whole, the old one or the new, and
 * must never wait for a writer, which it may have interrupted on its own
 * thread.  So each signal has two copies of its record and one word,
 * seq = count << 1 | claimed; the live copy is copy[count & 1]:
 *   writer: claims seq (CAS of the claimed bit, acquire), then a release
 *           fence, writes the other copy, and publishes it by storing
 *           count + 1, unclaimed, with release.  Writers exclude each other
 *           through the claim (one per signal); each blocks every signal
 *           but SIGSEGV and SIGBUS on its thread meanwhile, so no handler
 *           on that thread can wait for the claim it holds.  Those two come
 *           there as faults weft repairs (stack growth, trap-mode TLS), or
 *           from kill: a program's SIGSEGV handler run then that sets
 *           SIGSEGV's handler itself would wait forever;
 *   reader: loads seq (acquire), copies the live copy, then an acquire
 *           fence and a second load of seq: if count moved, a writer may
 *           have been writing the copy it read (two publications), so it
 *           reads again.
 * Every access to a copy is a relaxed atomic word, so the races are not
 * data races: a reader whose load saw a writer's store sees, through the
 * fence pair, that writer's claim, and so a moved count. */
struct rec {
	struct sigaction sa;
	bool set;
};
#define REC_WORDS (sizeof(struct rec) / sizeof(unsigned long))
_Static_assert(sizeof(struct rec) % sizeof(unsigned long) == 0, "struct rec is whole words");
static struct {
	_Atomic unsigned long seq;       /* [atomic] count << 1 | claimed */
	unsigned long copy[2][REC_WORDS]; /* [seq's claim to write; relaxed words] */
} handlers[65] WT_BSS_LARGE;

static void rec_load(const unsigned long *w, struct rec *r)
{
	unsigned long buf[REC_WORDS];
	for (size_t i = 0; i < REC_WORDS; i++)
		buf[i] = __atomic_load_n(&w[i], __ATOMIC_RELAXED);
	memcpy(r, buf, sizeof *r);
}

static void rec_store(unsigned long *w, const struct rec *r)
{
	unsigned long buf[REC_WORDS];
	memcpy(buf, r, sizeof buf);
	for (size_t i = 0; i < REC_WORDS; i++)
		__atomic_store_n(&w[i], buf[i], __ATOMIC_RELAXED);
}

/* Context: any, a signal handler included; never waits. */
static unsigned long rec_read(int sig, struct rec *r)
{
	for (;;) {
		unsigned long s = atomic_load_explicit(&handlers[sig].seq, memory_order_acquire);
		rec_load(handlers[sig].copy[(s >> 1) & 1], r);
		atomic_thread_fence(memory_order_acquire);
		if ((atomic_load_explicit(&handlers[sig].seq, memory_order_relaxed) >> 1) == s >> 1)
			return s >> 1;
	}
}

/* Claims sig's record: returns the count, with *mask the thread's old
 * signal mask.  Context: any; spins while another thread writes. */
static unsigned long rec_claim(int sig, uint64_t *mask)
{
	uint64_t all = ~(WT_SIGBIT(SIGSEGV) | WT_SIGBIT(SIGBUS));
	wt_syscall6(SYS_rt_sigprocmask, SIG_BLOCK, (long)&all, (long)mask, 8, 0, 0);
	unsigned long s = atomic_load_explicit(&handlers[sig].seq, memory_order_relaxed);
	for (;;) {
		if (s & 1)
			s = atomic_load_explicit(&handlers[sig].seq, memory_order_relaxed);
		else if (atomic_compare_exchange_weak_explicit(&handlers[sig].seq, &s, s | 1,
							       memory_order_acquire,
							       memory_order_relaxed))
			break;
	}
	atomic_thread_fence(memory_order_release);
	return s >> 1;
}

/* Publishes r (NULL: leaves the live copy as it is) and releases the claim. */
static void rec_release(int sig, unsigned long count, const struct rec *r, uint64_t mask)
{
	if (r) {
		rec_store(handlers[sig].copy[(count + 1) & 1], r);
		count++;
	}
	atomic_store_explicit(&handlers[sig].seq, count << 1, memory_order_release);
	wt_syscall6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&mask, 0, 8, 0, 0);
}

bool wt_sig_handler_get(int sig, struct sigaction *out)
{
	struct rec r;
	rec_read(sig, &r);
	if (r.set && out)
		*out = r.sa;
	return r.set;
}

/* Signals with a handler of the program's recorded: an idle worker takes
 * them for the tasks (wt_sig_idle).  [atomic] changed with the record. */
static _Atomic uint64_t handled_set;

uint64_t wt_sig_handled(void)
{
	return atomic_load_explicit(&handled_set, memory_order_relaxed);
}

bool wt_sig_handler_set(int sig, const struct sigaction *sa, struct sigaction *old)
{
	struct rec r, prev;
	memset(&r, 0, sizeof r);
	if (sa) {
		r.sa = *sa; /* read before the claim: a bad pointer faults here */
		r.set = true;
	}
	uint64_t mask;
	unsigned long count = rec_claim(sig, &mask);
	rec_load(handlers[sig].copy[count & 1], &prev);
	if (sa && sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN)
		atomic_fetch_or_explicit(&handled_set, WT_SIGBIT(sig), memory_order_relaxed);
	else
		atomic_fetch_and_explicit(&handled_set, ~WT_SIGBIT(sig), memory_order_relaxed);
	rec_release(sig, count, &r, mask);
	if (prev.set && old)
		*old = prev.sa;
	return prev.set;
}

bool wt_sig_handler_take(int sig, struct sigaction *out)
{
	struct rec r;
	rec_read(sig, &r);
	if (r.set)
		*out = r.sa;
	if (!r.set || !(r.sa.sa_flags & SA_RESETHAND) || r.sa.sa_handler == SIG_DFL ||
	    r.sa.sa_handler == SIG_IGN)
		return r.set;
	/* One-shot: forgotten, as the kernel resets it at delivery (the
	 * trampoline then sets SIG_DFL in the kernel). */
	wt_sig_handler_set(sig, NULL, NULL);
	return true;
}

/* ---- sigaction ---- */

/* SIGSEGV, SIGBUS (crash.c) and SIGURG (core/preempt.c): weft's handler stays
 * in the kernel; the program's is only recorded, and chained from weft's. */
static bool kept(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGURG;
}

/* Run through the trampoline: every other signal a handler can be set
 * for, but glibc's internal ones (32, 33). */
static bool wrapped(int sig)
{
	return sig >= 1 && sig <= 64 && sig != SIGKILL && sig != SIGSTOP && sig != 32 && sig != 33;
}

bool wt_sig_takes(int sig)
{
	return (kept(sig) || wrapped(sig)) && wt_runtime_on();
}

/* libc's sigaction (it sets the restorer the kernel needs) without
 * touching the caller's errno: 0 or -errno. */
static int libc_sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
	int e = errno;
	int r = real.sigaction(sig, sa, old) < 0 ? -errno : 0;
	errno = e;
	return r;
}

static bool is_handler(const struct sigaction *sa)
{
	return sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN;
}

/* Signals whose default action ends the process (not those it ignores,
 * and not the stop signals, whose default the kernel must do itself). */
static bool keeps_default(int sig)
{
	switch (sig) {
	case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
	case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return false;
	default:
		return sig < 32;
	}
}

static int set_wrapped(int sig, const struct sigaction *sa, struct sigaction *old)
{
	struct sigaction prev, kold;
	if (!sa) {
		if (wt_sig_handler_get(sig, &prev)) {
			if (old)
				*old = prev;
			return 0;
		}
		return libc_sigaction(sig, NULL, old);
	}
	bool had;
	if (is_handler(sa)) {
		/* The record first: a signal may come as soon as the kernel has
		 * the trampoline. */
		struct sigaction k = *sa;
		k.sa_sigaction = wt_sig_trampoline;
		/* On the interrupted stack, the task's own: the thread's
		 * alternate stack is weft's, the task's is applied by the
		 * trampoline (sigstack.c). */
		k.sa_flags = (sa->sa_flags | SA_SIGINFO) & ~(SA_RESETHAND | SA_ONSTACK);
		/* SIGSEGV and SIGBUS stay open for weft: the trampoline reads
		 * TLS, which in trap mode may fault to be repaired (stack/tls.c). */
		sigdelset(&k.sa_mask, SIGSEGV);
		sigdelset(&k.sa_mask, SIGBUS);
		had = wt_sig_handler_set(sig, sa, &prev);
		/* Returning through libweft's restorer, as weft's own handlers
		 * do: a SIGURG taken on its rt_sigreturn counts as inside weft.
		 * On libc's, a poke there with the task inside a blocking call
		 * (the handler interrupted it) stepped over the rt_sigreturn as
		 * if it were that call, ending it with EINTR (sigtask.c), and
		 * the task ran on into libc's sigaction and returned to the
		 * frame's uc_flags, 7.  glibc's own signals (32, 33) are
		 * refused as glibc's sigaction refuses them. */
		int r = sig == 32 || sig == 33 ? -EINVAL : wt_sig_install_own(sig, &k, &kold);
		if (r < 0) {
			wt_sig_handler_set(sig, had ? &prev : NULL, NULL);
			return r;
		}
	} else if (sa->sa_handler == SIG_DFL && keeps_default(sig) &&
		   wt_sig_handler_get(sig, &prev) && is_handler(&prev)) {
		/* A handler back to the default action: the trampoline stays the
		 * kernel's handler, and does the default action on a task that
		 * takes the signal (default_action).  Installed in the kernel, the
		 * default would act on whichever thread took the signal: an idle
		 * worker that unblocked it for the handler would end the process
		 * with a signal every task blocks (one a sigwait waits for). */
		had = wt_sig_handler_set(sig, sa, &prev);
		kold = prev;
	} else {
		int r = libc_sigaction(sig, sa, &kold);
		if (r < 0)
			return r;
		had = wt_sig_handler_set(sig, NULL, &prev);
	}
	if (old)
		*old = had ? prev : kold;
	return 0;
}

/* The kernel's struct sigaction (x86_64 and aarch64 alike), for
 * rt_sigaction with an 8-byte mask. */
struct ksigaction {
	void *handler;
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

int wt_sig_install_own(int sig, const struct sigaction *sa, struct sigaction *old)
{
	struct ksigaction k = { 0 }, ko = { 0 };
	k.handler = (void *)sa->sa_sigaction;
	k.flags = (unsigned long)sa->sa_flags | SA_RESTORER;
	k.restorer = wt_arch_sigaction_restorer;
	memcpy(&k.mask, &sa->sa_mask, sizeof k.mask);
	long r = wt_syscall6(SYS_rt_sigaction, sig, (long)&k, (long)&ko, sizeof k.mask, 0, 0);
	if (r < 0 || !old)
		return (int)r;
	memset(old, 0, sizeof *old);
	old->sa_sigaction = (void (*)(int, siginfo_t *, void *))ko.handler;
	old->sa_flags = (int)ko.flags;
	old->sa_restorer = ko.restorer;
	memcpy(&old->sa_mask, &ko.mask, sizeof ko.mask);
	return 0;
}

/* Context: any (sigaction is async-signal-safe). */
int wt_sig_action(int sig, const struct sigaction *sa, struct sigaction *old)
{
	if (!kept(sig))
		return set_wrapped(sig, sa, old);
	struct sigaction prev;
	bool had = sa ? wt_sig_handler_set(sig, sa->sa_handler != SIG_DFL ? sa : NULL, &prev)
		      : wt_sig_handler_get(sig, &prev);
	if (!had) {
		memset(&prev, 0, sizeof prev);
		prev.sa_handler = SIG_DFL;
	}
	if (old)
		*old = prev;
	return 0;
}


/* The kernel's dispositions at a dormant start (core/start.c), read before
 * weft's handlers replace those of the signals it keeps.  [the start] */
static WT_BSS_LARGE struct sigaction adopted[65];

void wt_sig_adopt_read(void)
{
	for (int sig = 1; sig <= 64; sig++)
		if ((kept(sig) || wrapped(sig)) && sig != SIGQUIT &&
		    libc_sigaction(sig, NULL, &adopted[sig]) < 0)
			adopted[sig].sa_handler = SIG_DFL;
}

/* SIGQUIT is left to observe/dump.c, which keeps a program's handler.  A signal
 * weft keeps takes SIG_IGN as a record, as wt_sig_action does; a wrapped
 * one's SIG_IGN or SIG_DFL is the kernel's already. */
void wt_sig_adopt(void)
{
	for (int sig = 1; sig <= 64; sig++) {
		struct sigaction *a = &adopted[sig];
		if (!(kept(sig) || wrapped(sig)) || sig == SIGQUIT)
			continue;
		if (is_handler(a) || (kept(sig) && a->sa_handler == SIG_IGN))
			wt_sig_action(sig, a, NULL);
	}
}

/* A vfork child (process/vfork.c) takes each signal as the program set it up: the
 * kernel gets the program's handler, SIG_DFL or SIG_IGN for every signal
 * weft handles itself or through the trampoline, which would run the
 * runtime on the parent's memory.  Context: the child, every signal
 * blocked, on the task's thread pointer. */
void wt_sig_vfork_child(void)
{
	for (int sig = 1; sig <= 64; sig++) {
		struct sigaction v;
		/* A record, even of SIG_DFL, may leave the trampoline in the
		 * kernel (set_wrapped); the rest is the program's already. */
		if ((kept(sig) || wt_sig_handler_get(sig, NULL)) && wt_sig_action(sig, NULL, &v) == 0)
			libc_sigaction(sig, &v, NULL);
	}
	struct sigaction q, h;
	if (libc_sigaction(SIGQUIT, NULL, &q) == 0) {
		h = q;
		wt_dump_hide(&h); /* weft's task dump, which the program never set */
		if (h.sa_handler != q.sa_handler)
			libc_sigaction(SIGQUIT, &h, NULL);
	}
}

/* This thread's worker, or NULL.  Context: a signal handler. */
static struct wt_m *self_m(void)
{
	struct wt_task *t = wt_cur();
	if (t && t->m)
		return t->m; /* fs is t's only on the thread running it */
	return wt_m_of_tid((int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0));
}

/* The handler interrupted weft: its code (but a wait that holds nothing),
 * or anything the thread runs while it holds a weft lock (libc or the
 * vDSO called under it: the pc alone does not show that).  The count is
 * the interrupted context's, read through the thread pointer the signal
 * came with.  Context: a signal handler. */
static bool interrupted_weft(const ucontext_t *uc)
{
	if (wt_locks_held)
		return true;
	uintptr_t pc = wt_arch_uc_pc(uc);
	if (!wt_pc_in_weft(pc))
		return false;
	return !wt_pc_in_sigok(pc);
}

bool wt_sig_in_weft(const void *uc)
{
	return interrupted_weft(uc);
}

/* The worker runs what was held back on it at its next point outside
 * weft's locks (wt_sig_defer_run); sysmon pokes a thread that goes on
 * without passing one (a task back in its own code).  seq_cst: the
 * caller's store of what waits, then this exchange; sysmon clears
 * defer_poke, then looks at both (wt_sig_defer_poke): it sees them, or we
 * see 0 and kick it.  Context: a signal handler on m's thread. */
static void defer_later(struct wt_m *m)
{
	if (!atomic_exchange(&m->defer_poke, 1))
		wt_sysmon_kick();
}

static bool keep_on_task(struct wt_task *t, int sig, const siginfo_t *si);

static bool defer(struct wt_m *m, int sig, const siginfo_t *si)
{
	uint64_t bit = WT_SIGBIT(sig);
	struct wt_task *t = wt_cur();
	if (t && ((si->si_code == SI_TKILL && si->si_pid == wt_pid) || keep_on_task(t, sig, si))) {
		atomic_fetch_or(&t->sigpend, bit);
		atomic_store_explicit(&m->defer_own, 1, memory_order_seq_cst);
	} else {
		siginfo_t *info = __atomic_load_n(&m->defer_info, __ATOMIC_ACQUIRE);
		if (!info) {
			long p = wt_syscall6(SYS_mmap, 0, 65 * sizeof(siginfo_t), PROT_READ | PROT_WRITE,
					     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p < 0 && p > -4096)
				return false;
			siginfo_t *none = NULL;
			if (__atomic_compare_exchange_n(&m->defer_info, &none, (siginfo_t *)p, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				info = (siginfo_t *)p;
			else /* a nested handler on this thread mapped it first */
				wt_syscall6(SYS_munmap, p, 65 * sizeof(siginfo_t), 0, 0, 0, 0), info = none;
		}
		if (!(atomic_fetch_or(&m->defer_claim, bit) & bit)) {
			info[sig] = *si;
			atomic_fetch_or_explicit(&m->defer_ready, bit, memory_order_release);
		}
	}
	defer_later(m);
	return true;
}

/* A fault of the interrupted instruction itself (or a seccomp trap, whose
 * handler may emulate the call through the ucontext): deferred, it would
 * only fault again. */
static bool synchronous(int sig, const siginfo_t *si)
{
	return si->si_code > 0 &&
	       (sig == SIGILL || sig == SIGFPE || sig == SIGTRAP || sig == SIGSYS);
}

/* A signal sent to the process, not to one thread: not raised by a thread
 * for itself (SI_TKILL), not a fault, not one the kernel sends to the thread
 * that caused it (SIGPIPE, SIGXFSZ). */
static bool process_directed(int sig, const siginfo_t *si)
{
	return si->si_code != SI_TKILL && !synchronous(sig, si) && sig != SIGSEGV &&
	       sig != SIGBUS && sig != SIGPIPE && sig != SIGXFSZ;
}

/* ---- signals pending for the process ----
 * A process-directed signal that no task on the thread it came to may run
 * now (it came to a worker's g0, or to a task that blocks it) is pending
 * for the process, as in the kernel's shared queue: its bit in proc_pend,
 * its siginfo in handed[sig] (owner NULL).  It belongs to no task until one
 * takes it (wt_sig_proc_take): a task that does not block it, or waits for
 * it in sigwait*, at each of its points that look at its own queue (a
 * switch-in, the start and end of a park, a mask change, a poke's handler,
 * the start of a sigwait).  A taker is asked to look (nudge): a parked one
 * is taken out of its wait, a running one is poked; a runnable one looks as
 * it is switched in.  So a task whose park a pending signal ended runs the
 * handler before it returns to its own code, as the kernel runs it before
 * the thread leaves its wait; and a task that exits or blocks the signal
 * first leaves it pending, and asks another taker (wt_sig_proc_retarget).
 * Pairs: the router sets proc_pend (an atomic RMW), then a process-wide
 * barrier, then reads each task's state, mask and sigwait set; a task
 * writes its mask (or queues its waiter), then reads proc_pend: one sees
 * the other.
 * The main task is also handed process-directed signals with their siginfo
 * (to_main): owner main, the bit in main's own queue.  While a slot is
 * claimed (its bit in `claim`), another signal of its kind coalesces, as a
 * pending one does; one that comes while a taker is between claiming the
 * bit and freeing the slot coalesces with the one taken, whose handler has
 * not run yet. */
static struct {
	struct wt_task *owner;  /* [claim bit] */
	siginfo_t si;           /* [claim bit] */
} handed[65] WT_BSS_LARGE;
static _Atomic uint64_t handed_claim, handed_ready; /* [atomic] */
_Atomic uint64_t wt_sig_procpend;                   /* [atomic] handed, owner NULL */
#define proc_pend wt_sig_procpend

/* Fork child: a claim another thread held at the fork is dropped (it had
 * not published, so the live copies are whole). */
void wt_sig_handlers_fork_reset(void)
{
	/* Written only where a change was under way: a page the child writes
	 * is a page copied. */
	for (int sig = 0; sig < 65; sig++)
		if (atomic_load_explicit(&handlers[sig].seq, memory_order_relaxed) & 1)
			atomic_fetch_and_explicit(&handlers[sig].seq, ~1ul, memory_order_relaxed);
	/* A child starts with no pending signals (fork(2)). */
	atomic_store_explicit(&proc_pend, 0, memory_order_relaxed);
	atomic_store_explicit(&handed_ready, 0, memory_order_relaxed);
	atomic_store_explicit(&handed_claim, 0, memory_order_relaxed);
}

bool wt_sig_handed_info(struct wt_task *t, int sig, siginfo_t *out)
{
	uint64_t bit = WT_SIGBIT(sig);
	if (!(atomic_load_explicit(&handed_ready, memory_order_acquire) & bit) ||
	    handed[sig].owner != t)
		return false;
	*out = handed[sig].si;
	atomic_fetch_and(&handed_ready, ~bit);
	atomic_fetch_and(&handed_claim, ~bit);
	return true;
}

uint64_t wt_sig_proc_pending(void)
{
	return atomic_load_explicit(&proc_pend, memory_order_relaxed);
}

/* Context: t, on its worker, holding no weft lock (sigtask.c: t does not
 * block or waits for some of `want`).  The slot is freed before the raise,
 * whose system call is a point where a handler may route another signal.
 * Returns those raised. */
uint64_t wt_sig_proc_take(struct wt_task *t, uint64_t want)
{
	uint64_t r = atomic_load_explicit(&proc_pend, memory_order_acquire) & want, took = 0;
	while (r) {
		uint64_t bit = r & -r;
		r &= ~bit;
		if (!(atomic_fetch_and(&proc_pend, ~bit) & bit))
			continue;
		int sig = __builtin_ctzll(bit) + 1;
		siginfo_t si = handed[sig].si;
		atomic_fetch_and(&handed_ready, ~bit);
		atomic_fetch_and(&handed_claim, ~bit);
		took |= bit;
		wt_sig_raise(t->m, t, sig, &si, true);
	}
	return took;
}

/* Would t take a signal of bit now: alive, and not blocking it or waiting
 * for it.  An exiting task blocks every signal (wt_sig_task_exit). */
static bool takes(struct wt_task *t, uint64_t bit)
{
	int st = atomic_load_explicit(&t->state, memory_order_relaxed);
	return st != WT_DEAD && st != WT_IDLE &&
	       (!(__atomic_load_n(&t->sigmask, __ATOMIC_RELAXED) & bit) ||
		(__atomic_load_n(&t->sigwait, __ATOMIC_RELAXED) & bit));
}

/* Asks t to look at the process's pending signals: out of a wait it is
 * parked in (one it does not block), a poke when it runs.  Returns whether
 * t was taken out of a wait.  Context: any, holding at most alllock
 * (which keeps t's struct in place). */
static bool nudge(struct wt_task *t, uint64_t bit)
{
	if (!(__atomic_load_n(&t->sigmask, __ATOMIC_RELAXED) & bit) && wt_park_interrupt(t))
		return true;
	if (t != wt_cur() && atomic_load_explicit(&t->state, memory_order_relaxed) == WT_RUNNING) {
		struct wt_m *m = __atomic_load_n(&t->m, __ATOMIC_RELAXED);
		if (m)
			wt_sig_poke(m);
	}
	return false;
}

/* Would t take bit now and is it parked: a sure taker once nudged. */
static bool parked_taker(struct wt_task *t, uint64_t bit)
{
	return atomic_load_explicit(&t->state, memory_order_relaxed) == WT_WAITING &&
	       !(__atomic_load_n(&t->sigmask, __ATOMIC_RELAXED) & bit);
}

/* Nudges one task that takes each signal of `bits` pending for the
 * process: the main task first, as the kernel prefers the main thread,
 * else the first in the list; none but `not`.  parked: only a parked
 * taker, taken out of its wait (no barrier is needed for it: its mask
 * cannot change while it waits, and it looks at the pending signals as
 * its park ends, after the readying that follows the bucket lock the
 * interrupt took); returns whether every bit found one.  Otherwise:
 * after the barrier that follows the setting of the bits, any taker.
 * Context: a worker or a task, holding no weft lock. */
static bool find_takers(uint64_t bits, struct wt_task *not, bool parked)
{
	struct wt_task *mt = wt_main_task;
	bool all = true;
	while (bits) {
		uint64_t bit = bits & -bits;
		bits &= ~bit;
		if (!(wt_sig_proc_pending() & bit))
			continue; /* taken meanwhile */
		if (mt && mt != not &&
		    (parked ? parked_taker(mt, bit) : takes(mt, bit)) &&
		    (nudge(mt, bit) || !parked))
			continue;
		bool found = false;
		wt_lock(&wt_sched.alllock);
		for (struct wt_task *t = wt_sched.alltasks; t && !found; t = t->alllink)
			if (t != not && t != mt && (parked ? parked_taker(t, bit) : takes(t, bit)))
				found = nudge(t, bit) || !parked;
		wt_unlock(&wt_sched.alllock);
		all &= found;
	}
	return all;
}

/* Queues sig on the main task with its siginfo (to_main).  While one of
 * its kind is on its way or pending for the process, this one coalesces;
 * main is asked to look in case the pending one waits for a taker.
 * Context: as route. */
static void hand_main(struct wt_task *mt, int sig, const siginfo_t *si)
{
	uint64_t bit = WT_SIGBIT(sig);
	if (atomic_fetch_or(&handed_claim, bit) & bit) {
		if (wt_sig_proc_pending() & bit)
			nudge(mt, bit);
		return;
	}
	handed[sig].si = *si;
	handed[sig].owner = mt;
	atomic_fetch_or_explicit(&handed_ready, bit, memory_order_release);
	wt_sig_send(mt, sig);
}

/* A signal for task t with its siginfo (pthread_sigqueue,
 * rt_tgsigqueueinfo, a CPU-clock timer's): the siginfo goes with it when no
 * other of its number is pending for the process or on its way; else t
 * gets the signal with the siginfo its handler is then given.  Context: a
 * task or a worker, holding no weft lock. */
void wt_sig_send_info(struct wt_task *t, int sig, const siginfo_t *si)
{
	uint64_t bit = WT_SIGBIT(sig);
	if (!(atomic_fetch_or(&handed_claim, bit) & bit)) {
		handed[sig].si = *si;
		handed[sig].owner = t;
		atomic_fetch_or_explicit(&handed_ready, bit, memory_order_release);
	}
	wt_sig_send(t, sig);
}

/* A signal no task on this thread may run now (it came to a worker's g0,
 * or to a task that blocks it) becomes pending for the process, and a task
 * that takes it is asked to look (the main task first).  One of its kind
 * already pending or on its way coalesces with it.  Context: a worker,
 * holding no weft lock (a handler at a wt_syscall6_sigok point, or
 * wt_sig_defer_run). */
static void route(int sig, const siginfo_t *si)
{
	uint64_t bit = WT_SIGBIT(sig);
	if (!(atomic_fetch_or(&handed_claim, bit) & bit)) {
		handed[sig].si = *si;
		handed[sig].owner = NULL;
		atomic_fetch_or_explicit(&handed_ready, bit, memory_order_release);
		atomic_fetch_or(&proc_pend, bit);
	} else if (!(wt_sig_proc_pending() & bit)) {
		return; /* on its way to the main task */
	}
	if (find_takers(bit, NULL, true))
		return;
	wt_sig_barrier();
	find_takers(bit, NULL, false);
}

/* kill(getpid(), sig) or sigqueue to the process from a task, for a signal
 * whose handler is the program's.  Natively the kernel queues it for the
 * process and chooses its thread within the call: the sender itself takes
 * it as the call returns when it does not block it, else a thread that
 * does not is marked to take it at its next return from the kernel (a
 * waiting one is woken).  Sent to the kernel, it would reach a worker's
 * thread only later, once that thread runs, while the only task that takes
 * it may have left its wait and gone on (exited, or blocked it): so it is
 * made pending for the process here, in the call, and the sender takes it
 * or a taker is asked to look.  SIGURG too, although weft's own handler
 * stays the kernel's for it: the kernel gives a signal sent to the process
 * to the initial thread first, which under weft is worker 0's, not the
 * main task's, and often a worker asleep on a loaded machine; every kill
 * sent until that thread ran found the first one pending and merged into
 * it, while the sender's thread took none (the kernel had not marked it).
 * A storm of 200 kills of SIGURG from a thread, with four threads looping
 * on pthread_setschedparam, ran no handler before the join of the sender
 * returned in 2-3 runs of 12 concurrent ones; natively the main thread,
 * waiting in that join, runs one first.  Returns 0, or -ENOSYS for the
 * kernel to send it (no program handler; SIGSEGV and SIGBUS, which the
 * kernel must raise for the fault handler).  Context: a task, holding no
 * weft lock. */
int wt_sig_send_process(int sig, int code, union sigval v)
{
	uint64_t bit = WT_SIGBIT(sig);
	struct wt_task *t = wt_cur();
	if (!t || sig < 1 || sig > 64 || !wrapped(sig) || (kept(sig) && sig != SIGURG) || !(wt_sig_handled() & bit))
		return -ENOSYS;
	siginfo_t si;
	wt_sig_info_self(&si, sig, code);
	si.si_value = v;
	if (!(__atomic_load_n(&t->sigmask, __ATOMIC_RELAXED) & bit)) {
		if (!(atomic_fetch_or(&handed_claim, bit) & bit)) {
			handed[sig].si = si;
			handed[sig].owner = NULL;
			atomic_fetch_or_explicit(&handed_ready, bit, memory_order_release);
			atomic_fetch_or(&proc_pend, bit);
		}
		wt_sig_deliver(t); /* runs it, or one of its kind pending */
		return 0;
	}
	route(sig, &si);
	return 0;
}

/* A signal sent to the process from outside, with a handler of the
 * program's, while every worker runs a task that blocks it (no idle worker
 * takes it: wt_sig_idle), stays in the kernel's queue for the process even
 * when a task that takes it waits: natively the kernel gives it to that
 * waiting thread at once.  sysmon takes such signals from the kernel, at
 * most once a millisecond, with their siginfo, and routes them.  A sigwait
 * for one without a handler needs none of this: its thread waits in the
 * kernel, which gives it the signal.  Context: sysmon (every signal
 * blocked on its thread, so rt_sigpending reports the process's queue). */
void wt_sig_sweep(int64_t now)
{
	static int64_t next;
	uint64_t h = wt_sig_eff(wt_sig_handled());
	if (!h || now < next)
		return;
	next = now + 1000000;
	uint64_t pend = 0;
	if (wt_syscall6(SYS_rt_sigpending, (long)&pend, 8, 0, 0, 0, 0) < 0)
		return;
	for (pend &= h; pend; pend &= pend - 1) {
		int sig = __builtin_ctzll(pend) + 1;
		if (!wrapped(sig) || kept(sig))
			continue;
		uint64_t one = pend & -pend;
		struct timespec zero = { 0, 0 };
		siginfo_t si;
		if (wt_syscall6(SYS_rt_sigtimedwait, (long)&one, (long)&si, (long)&zero, 8, 0, 0) == sig)
			route(sig, &si);
	}
}

/* t no longer takes some of the signals pending for the process (it
 * blocked them, or exits): those handed to it as the main task and not yet
 * raised become pending for the process, and other takers are asked to
 * look for `bits`.  Context: t, after its new mask is stored, holding no
 * weft lock. */
void wt_sig_proc_retarget(struct wt_task *t, uint64_t bits)
{
	uint64_t mine = atomic_load_explicit(&handed_ready, memory_order_acquire) & bits;
	for (uint64_t b = mine; b; b &= b - 1) {
		uint64_t bit = b & -b;
		int sig = __builtin_ctzll(bit) + 1;
		if (handed[sig].owner != t || !(atomic_fetch_and(&t->sigpend, ~bit) & bit))
			continue;
		handed[sig].owner = NULL;
		atomic_fetch_or(&proc_pend, bit);
	}
	wt_sig_barrier();
	if (wt_sig_proc_pending() & bits)
		find_takers(wt_sig_proc_pending() & bits, t, false);
}

/* A process-directed signal that came to task t inside weft, where t does
 * not block it and the main task does not take it (else it goes there,
 * to_main): the kernel chose t, or t took it from those pending for the
 * process and raised it while its thread blocked it (in a poke's handler,
 * or a handler of its own).  It is t's from now on, as natively the
 * thread the kernel chose runs it before it goes on in its own code: its
 * siginfo is handed to t (or, while another of its kind is pending for the
 * process or on its way, t gets the signal without it), and the caller
 * queues it on t.  Kept on the worker instead, it would go back to the
 * process only once the worker's g0 ran, after t could have left its wait
 * and exited with nobody else to take it.  Context: the trampoline, t
 * inside weft. */
static bool keep_on_task(struct wt_task *t, int sig, const siginfo_t *si)
{
	uint64_t bit = WT_SIGBIT(sig);
	struct wt_task *mt = wt_main_task;
	if (!process_directed(sig, si) || (__atomic_load_n(&t->sigmask, __ATOMIC_RELAXED) & bit) ||
	    (mt && mt != t && takes(mt, bit)))
		return false;
	if (!(atomic_fetch_or(&handed_claim, bit) & bit)) {
		handed[sig].si = *si;
		handed[sig].owner = t;
		atomic_fetch_or_explicit(&handed_ready, bit, memory_order_release);
	}
	return true;
}

/* A process CPU-time limit the kernel found expired (ITIMER_PROF,
 * ITIMER_VIRTUAL, RLIMIT_CPU): it sends the signal to the process but gives
 * it to the thread whose running expired it, when that thread does not
 * block it.  That thread is the task this worker runs: it stays there, so
 * a task that never lets main run (SCHED_FIFO on the only proc) still gets
 * its own profiling ticks. */
static bool cpu_timer_sig(int sig, const siginfo_t *si)
{
	return si->si_code == SI_KERNEL && (sig == SIGPROF || sig == SIGVTALRM || sig == SIGXCPU);
}

/* The kernel gives a process-directed signal to the main thread when it
 * does not block it, and interrupts the main thread's sleep or read: a
 * program's main loop counts on that (a daemon sleeping in main, woken by
 * SIGTERM's handler; Python, whose handlers run on its main thread once a
 * call there returns EINTR).  Under weft the signal comes to whichever task
 * a worker runs: move it to the main task, as pthread_kill would, keeping
 * its siginfo.  Context: a handler at a point where weft may be called. */
static bool to_main(int sig, const siginfo_t *si)
{
	struct wt_task *mt = wt_main_task, *cur = wt_cur();
	if (!mt || mt == cur || !process_directed(sig, si) || !takes(mt, WT_SIGBIT(sig)))
		return false;
	if (cur && cpu_timer_sig(sig, si) && takes(cur, WT_SIGBIT(sig)))
		return false;
	hand_main(mt, sig, si);
	return true;
}

/* The handler's task left the OS thread the signal came to: the handler
 * parked, was preempted (an ordinary program function, it is no
 * no-switch text) or made a blocking call that lost its proc, and the task
 * came back on another worker, or on the same worker struct taken over by
 * a new thread (an idle worker's thread exits and the next worker made
 * takes its struct: core/worker.c).  sigreturn will run on `to`'s thread.  It
 * restores the alternate signal stack the frame recorded, the first
 * thread's: two threads sharing one would run their SIGURG and fault
 * handlers on the same memory, and one whose thread has exited is unmapped
 * (the kernel then cannot write the next handler's frame: the process dies
 * by SIGSEGV without a word) or mapped again for something else (a
 * worker's stack, whose frames the handlers overwrite).  So `to`'s own is
 * put there instead, whatever the frame holds: a worker's thread has no
 * other.  A frame made on an alternate stack (SS_ONSTACK) is left alone:
 * the kernel keeps the stack of a thread running on it.  The mask it
 * restores was set on the first thread: `to` no longer knows its thread's
 * mask.  Context: the trampoline, on `to`. */
static void moved(void *ucv, struct wt_m *to)
{
	ucontext_t *uc = ucv;
	if (!(uc->uc_stack.ss_flags & SS_ONSTACK)) {
		uc->uc_stack.ss_sp = to->sigstk;
		uc->uc_stack.ss_size = to->sigstk ? WT_SIGSTK : 0;
		uc->uc_stack.ss_flags = to->sigstk ? 0 : SS_DISABLE;
	}
	to->sigmask = WT_SIGMASK_UNKNOWN;
}

/* A signal whose handler the program set back to the default (set_wrapped)
 * came to a task that takes it: the kernel does the default action now, on
 * this thread, as the signal is raised again once this handler returns.
 * Context: the trampoline, on a task. */
static void default_action(int sig)
{
	struct sigaction d;
	memset(&d, 0, sizeof d);
	d.sa_handler = SIG_DFL;
	if (libc_sigaction(sig, &d, NULL) == 0)
		wt_syscall6(SYS_tgkill, wt_pid, (long)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0), sig,
			    0, 0, 0);
}

/* ---- handlers left by a longjmp ----
 * A handler may leave by siglongjmp (or longjmp) instead of returning, as
 * POSIX allows: nothing returns to the trampoline, so what it did on the
 * handler's way in would stay done.  Each running handler has a record on
 * the trampoline's stack, linked from t->sigframe (innermost first): what
 * it interrupted (the bracket depth, for the brackets to end and for
 * wt_sig_call_is_own), and which stacks it lies and runs on.  The
 * longjmps a program calls are weft's (shim/setjmp.c), which read the
 * target's stack pointer from the jmp_buf (arch: wt_arch_jmpbuf_sp) and
 * call wt_sig_longjmp before jumping: a record lying below that stack
 * pointer on the same stack belongs to a handler the jump leaves, as the
 * kernel tells SS_ONSTACK by the stack pointer alone; it and every record
 * inside it are unlinked, and the brackets the abandoned code entered are
 * ended (wt_exitsyscall), so the worker's proc is the task's again and
 * the next system call is not taken for a handler's nested one.  The mask
 * glibc's siglongjmp restores by an internal system call, which weft never
 * sees, becomes the task's own (wt_sig_setmask) before the jump: else the
 * next switch-in put back the handler's mask (SIGUSR1 blocked for good,
 * the next pthread_kill left pending: tests/preload/signal_longjmp).
 * A record on a stack weft does not know (the program's own coroutine
 * stack) is never taken as left: its bookkeeping stays, as before. */

/* The stack a at lies on: the task's own, the one prev runs on, or the
 * task's alternate stack; [0, 0) when none of these. */
static void stack_of(const struct wt_task *t, const struct wt_sigframe *prev, uintptr_t a,
		     uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t tlo = (uintptr_t)t->stack_lo;
	uintptr_t thi = (uintptr_t)(t->stack_top > t->stack_hi ? t->stack_top : t->stack_hi);
	uintptr_t alo = (uintptr_t)t->sigstk.ss_sp;
	*lo = *hi = 0;
	if (tlo && a - tlo < thi - tlo)
		*lo = tlo, *hi = thi;
	else if (prev && a - prev->run_lo < prev->run_hi - prev->run_lo)
		*lo = prev->run_lo, *hi = prev->run_hi;
	else if (t->sigstk.ss_size && a - alo < t->sigstk.ss_size)
		*lo = alo, *hi = alo + t->sigstk.ss_size;
}

/* Links rec, the record of handler u about to run on t (m: t's worker,
 * NULL = none) for a signal that interrupted sp.  Context: the trampoline. */
static void frame_push(struct wt_task *t, struct wt_m *m, struct wt_sigframe *rec,
		       const struct sigaction *u, uintptr_t sp)
{
	struct wt_sigframe *prev = t->sigframe;
	rec->prev = prev;
	stack_of(t, prev, (uintptr_t)rec, &rec->lo, &rec->hi);
	rec->run_lo = rec->lo;
	rec->run_hi = rec->hi;
	if (wt_sigstack_alt(t, u, sp)) {
		rec->run_lo = (uintptr_t)t->sigstk.ss_sp;
		rec->run_hi = rec->run_lo + t->sigstk.ss_size;
	}
	rec->callbase = m ? wt_sig_call_depth(m) : prev ? prev->callbase : 0;
	rec->insyscall = m ? m->insyscall : prev ? prev->insyscall : 0;
	/* Whole before it is linked: a poke's handler on this thread reads it. */
	atomic_signal_fence(memory_order_release);
	__atomic_store_n(&t->sigframe, rec, __ATOMIC_RELAXED);
}

void wt_sig_longjmp(struct wt_task *t, uintptr_t sp, const uint64_t *mask)
{
	/* The outermost record the jump leaves: every one inside it goes too. */
	struct wt_sigframe *cut = NULL;
	for (struct wt_sigframe *f = t->sigframe; f; f = f->prev)
		if (f->hi && sp - f->lo < f->hi - f->lo && sp > (uintptr_t)f)
			cut = f;
	if (cut) {
		struct wt_sigframe *keep = cut->prev;
		int base = keep ? keep->insyscall : 0;
		__atomic_store_n(&t->sigframe, keep, __ATOMIC_RELAXED);
		/* The brackets entered since: each ends as its call would have
		 * (the last may switch t to another worker, so t->m is read
		 * afresh).  A call the program never saw return is no
		 * cancellation point any more. */
		while (t->m->insyscall > base) {
			struct wt_m *m = t->m;
			if (m->insyscall == 1 && atomic_load_explicit(&m->implicit, memory_order_relaxed))
				wt_implicit_exit(m);
			else
				wt_exitsyscall();
		}
		if (!base)
			wt_cancel_call_end(t);
	}
	/* sigsetjmp saved the thread's mask, which never has weft's own
	 * signals (WT_SIG_KEEP): the task keeps its word on those. */
	if (mask)
		wt_sig_setmask(t, (*mask & ~WT_SIG_KEEP) | (t->sigmask & WT_SIG_KEEP));
}

void wt_sig_trampoline(int sig, siginfo_t *si, void *ucv)
{
	struct wt_task *t = wt_cur();
	/* Inside weft, or inside glibc's fork holding its locks (process/fork.c:
	 * wt_fork_window): later. */
	if (!synchronous(sig, si) && (interrupted_weft(ucv) || (t && t->in_fork))) {
		struct wt_m *m = self_m();
		if (m && defer(m, sig, si))
			return;
	}
	if (wt_runtime_on() && to_main(sig, si))
		return;
	if (!t && !synchronous(sig, si) && wt_runtime_on()) {
		/* A worker's g0 (asleep, or polling): the program's handler runs
		 * on a task, never outside one. */
		struct wt_m *m = self_m();
		if (m) {
			route(sig, si);
			return;
		}
	}
	struct sigaction u;
	if (!wt_sig_handler_take(sig, &u))
		return; /* the program reset it meanwhile */
	if (u.sa_handler == SIG_DFL || u.sa_handler == SIG_IGN) {
		/* SIGURG's (chained from weft's handler, which stays the
		 * kernel's) is to ignore it. */
		if (!kept(sig) && u.sa_handler == SIG_DFL)
			default_action(sig);
		return;
	}
	if ((u.sa_flags & SA_RESETHAND) && !kept(sig)) {
		struct sigaction d;
		memset(&d, 0, sizeof d);
		d.sa_handler = SIG_DFL;
		real.sigaction(sig, &d, NULL);
	}
	if (t && !(u.sa_flags & SA_RESTART))
		t->sig_norestart = true; /* a read it interrupted ends with EINTR (io/netpoll.c) */
	if (t)
		t->sighandled++; /* a sigsuspend it interrupted returns (sigtask.c) */
	struct wt_m *m = t ? t->m : NULL;
	int ostid = m ? m->ostid : 0; /* m's thread now; m may have another by the end */
	/* The thread's alternate stack as the kernel recorded it is its
	 * worker's (moved() keeps it so).  Another one was set by an inline
	 * sigaltstack system call of the program's (libc's and syscall()'s
	 * set the task's, sigstack.c): the sigreturn puts the worker's back,
	 * since weft's SIGURG and fault handlers need a stack of their own
	 * on this thread whatever task it runs. */
	ucontext_t *kuc = ucv;
	if (m && !(kuc->uc_stack.ss_flags & SS_ONSTACK) && kuc->uc_stack.ss_sp != m->sigstk) {
		kuc->uc_stack.ss_sp = m->sigstk;
		kuc->uc_stack.ss_size = m->sigstk ? WT_SIGSTK : 0;
		kuc->uc_stack.ss_flags = m->sigstk ? 0 : SS_DISABLE;
	}
	/* The kernel blocks sig and sa_mask on the thread meanwhile; a handler
	 * that parks leaves that mask to the next task on this worker, which
	 * would keep its own signals pending there.  The next switch-in sets
	 * its mask afresh. */
	if (m)
		m->sigmask = WT_SIGMASK_UNKNOWN;
	uint64_t block = 0, old = 0;
	memcpy(&block, &u.sa_mask, sizeof block);
	if (!(u.sa_flags & SA_NODEFER))
		block |= WT_SIGBIT(sig);
	if (t)
		old = wt_sig_handler_enter(t, block);
	/* The handler's record (frame_push): a call the handler interrupted
	 * is not the handler's, so a poke that lands in the handler ends only
	 * calls it makes itself with EINTR (sigtask.c: wt_sig_call_is_own). */
	struct wt_sigframe rec;
	if (t)
		frame_push(t, m, &rec, &u, wt_arch_uc_sp(ucv));
	/* On t's alternate stack for SA_ONSTACK (sigstack.c). */
	wt_sigstack_call(t, &u, sig, si, ucv, wt_arch_uc_sp(ucv));
	if (m && (t->m != m || t->m->ostid != ostid))
		moved(ucv, t->m);
	if (t) {
		__atomic_store_n(&t->sigframe, rec.prev, __ATOMIC_RELAXED);
		wt_sig_handler_leave(t, old);
	}
}

/* Context: sysmon, every round.  Pokes each worker that has deferred
 * signals, every round until they are gone (a poke may land in weft again,
 * or coalesce with another SIGURG pending there).  Returns whether any
 * has (sysmon then looks again at its shortest interval). */
bool wt_sig_defer_poke(void)
{
	bool any = false;
	for (struct wt_m *m = atomic_load_explicit(&wt_sched.allm, memory_order_acquire); m; m = m->alllink) {
		if (!atomic_load_explicit(&m->defer_poke, memory_order_relaxed))
			continue;
		atomic_store(&m->defer_poke, 0);
		if (atomic_load(&m->defer_ready) || atomic_load(&m->defer_own)) {
			atomic_store(&m->defer_poke, 1);
			wt_sig_poke(m);
			any = true;
		}
	}
	return any;
}

/* Takes the lowest deferred signal of the set *r (from m->defer_ready):
 * removes it from *r, copies its siginfo to *si, then frees its slot for
 * the next defer of that signal.  Returns the signal number. */
static int defer_take(struct wt_m *m, uint64_t *r, siginfo_t *si)
{
	uint64_t bit = *r & -*r;
	*r &= ~bit;
	int sig = __builtin_ctzll(bit) + 1;
	*si = m->defer_info[sig];
	atomic_fetch_and(&m->defer_claim, ~bit);
	return sig;
}

/* Context: the SIGURG handler of a poke (every signal blocked), on the
 * thread the deferred signals came to; uc is what the poke interrupted.
 * Raised now they would be delivered there as the handler returns: if that
 * is still inside weft, the worker runs them at its next point outside
 * weft's locks, or the next poke (sysmon's next round) tries again.  The
 * task's own (defer_own) the caller raises (sigtask.c: wt_sig_urg). */
void wt_sig_redeliver(void *uc)
{
	struct wt_m *m = self_m();
	if (!m)
		return;
	if (!interrupted_weft(uc))
		atomic_store_explicit(&m->defer_own, 0, memory_order_relaxed);
	if (!atomic_load_explicit(&m->defer_ready, memory_order_relaxed))
		return;
	if (interrupted_weft(uc))
		return; /* still inside: sysmon pokes again */
	uint64_t r = atomic_exchange_explicit(&m->defer_ready, 0, memory_order_acquire);
	siginfo_t si;
	while (r) {
		int sig = defer_take(m, &r, &si);
		wt_sig_raise(m, wt_cur(), sig, &si, false);
	}
}

/* The signals deferred on m, at a point of the worker outside weft's locks
 * and switches: on a task t, those t does not block are queued to this
 * thread and run now, in this call (t's own, put back in t->sigpend,
 * too); the others, and all of them on g0, go to a task that takes them
 * (route).  Context: t on m, or m's g0; no weft lock held; a task's
 * handlers may park (t may come back on another worker). */
void wt_sig_defer_run(struct wt_m *m)
{
	struct wt_task *t = wt_cur();
	if (t && !t->sig_hold &&
	    (atomic_load_explicit(&t->sigpend, memory_order_relaxed) || wt_sig_proc_for(t)))
		wt_sig_deliver(t);
	if (!m)
		return;
	atomic_store_explicit(&m->defer_own, 0, memory_order_relaxed);
	uint64_t r = atomic_exchange_explicit(&m->defer_ready, 0, memory_order_acquire);
	siginfo_t si;
	while (r) {
		int sig = defer_take(m, &r, &si);
		if (t && !t->sig_hold && !(t->sigmask & (1ull << (sig - 1))))
			wt_sig_raise(t->m, t, sig, &si, true);
		else
			route(sig, &si);
	}
}
