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
 * What.  shim/signal.c installs wt_sig_trampoline for every handler a
 * program sets (not SIGSEGV, SIGBUS, SIGURG: weft's own, which chain; not
 * SIGQUIT: the task dump), with the program's mask and flags, so the kernel
 * blocks during it what it would during the handler; SA_RESETHAND is done
 * here, at the call.  The trampoline looks at the interrupted instruction:
 *  - outside weft, or in wt_syscall6_sigok (a wait holding nothing: an idle
 *    worker's sleep, the poller's epoll_wait, a task unblocking or raising
 *    its own signals), it calls the handler, with the same siginfo and
 *    ucontext the kernel gave;
 *  - inside weft elsewhere, it keeps the siginfo on the worker (m) and asks
 *    sysmon to poke the thread.  The poke's handler (SIGURG) raises the
 *    signal again on its own thread with rt_tgsigqueueinfo and the original
 *    siginfo (the kernel allows any si_code to oneself); it is delivered as
 *    the poke handler returns, and the trampoline looks again.  Signals a
 *    task raised for itself (SI_TKILL from this process) go back to the
 *    task's queue instead, so they run on that task, not on the thread.
 * A process-directed signal the main task does not block is moved to it
 * (to_main).  While deferred, signals of one kind coalesce, as a blocked
 * one does.  A
 * thread with no worker (a thread weft did not create) runs the handler at
 * once, as before, and so do faults (SIGILL, SIGFPE, SIGTRAP, SIGSYS from
 * the kernel), which would only recur.  libc code weft calls holding a
 * lock is not seen as weft's: such calls are kept out of locked sections
 * (park.c reads the clock before its bucket lock); the timer heap's growth
 * (memcpy) remains, rare.
 */
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include "runtime.h"
#include "real.h"
#include "sighandler.h"
#include "sigtask.h"
#include "start.h"
#include "sysmon.h"
#include "task.h"
#include "text.h"
#include "worker.h"

struct sigaction wt_user_sa[65];
bool wt_user_sa_set[65];

/* This thread's worker, or NULL.  Context: a signal handler. */
static struct wt_m *self_m(void)
{
	struct wt_task *t = wt_cur();
	if (t && t->m)
		return t->m; /* fs is t's only on the thread running it */
	return wt_m_of_tid((int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0));
}

static bool interrupted_weft(const ucontext_t *uc)
{
	uintptr_t pc = wt_arch_uc_pc(uc);
	if (!wt_pc_in_weft(pc))
		return false;
	return !(pc >= (uintptr_t)wt_syscall6_sigok && pc < (uintptr_t)wt_syscall6_sigok_end);
}

static bool defer(struct wt_m *m, int sig, const siginfo_t *si)
{
	uint64_t bit = WT_SIGBIT(sig);
	struct wt_task *t = wt_cur();
	if (t && si->si_code == SI_TKILL && si->si_pid == wt_pid) {
		atomic_fetch_or(&t->sigpend, bit);
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
	if (!atomic_exchange_explicit(&m->defer_poke, 1, memory_order_acq_rel))
		wt_sysmon_kick();
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

/* main's copy of the siginfo of signals moved to it, for deliver (sigtask.c). */
static siginfo_t main_info[65];
static _Atomic uint64_t main_info_claim, main_info_ready;

bool wt_sig_main_info(int sig, siginfo_t *out)
{
	uint64_t bit = WT_SIGBIT(sig);
	if (!(atomic_load_explicit(&main_info_ready, memory_order_acquire) & bit))
		return false;
	*out = main_info[sig];
	atomic_fetch_and(&main_info_ready, ~bit);
	atomic_fetch_and(&main_info_claim, ~bit);
	return true;
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
	uint64_t bit = WT_SIGBIT(sig);
	if (!mt || mt == cur || !process_directed(sig, si) ||
	    atomic_load_explicit(&mt->state, memory_order_relaxed) == WT_DEAD ||
	    (__atomic_load_n(&mt->sigmask, __ATOMIC_RELAXED) & bit))
		return false;
	if (!(atomic_fetch_or(&main_info_claim, bit) & bit)) {
		main_info[sig] = *si;
		atomic_fetch_or_explicit(&main_info_ready, bit, memory_order_release);
	}
	return wt_sig_send(mt, sig) == 0;
}

void wt_sig_trampoline(int sig, siginfo_t *si, void *ucv)
{
	if (!synchronous(sig, si) && interrupted_weft(ucv)) {
		struct wt_m *m = self_m();
		if (m && defer(m, sig, si))
			return;
	}
	if (wt_runtime_on() && to_main(sig, si))
		return;
	if (!wt_user_sa_set[sig])
		return; /* the program reset it meanwhile */
	struct sigaction u = wt_user_sa[sig];
	if (u.sa_flags & SA_RESETHAND) {
		struct sigaction d;
		memset(&d, 0, sizeof d);
		d.sa_handler = SIG_DFL;
		wt_user_sa_set[sig] = false;
		real.sigaction(sig, &d, NULL);
	}
	struct wt_task *t = wt_cur();
	if (t && !(u.sa_flags & SA_RESTART))
		t->sig_norestart = true; /* a read it interrupted ends with EINTR (netpoll.c) */
	if (u.sa_flags & SA_SIGINFO)
		u.sa_sigaction(sig, si, ucv);
	else
		u.sa_handler(sig);
}

/* Context: sysmon. */
void wt_sig_defer_poke(void)
{
	for (struct wt_m *m = atomic_load_explicit(&wt_sched.allm, memory_order_acquire); m; m = m->alllink)
		if (atomic_load_explicit(&m->defer_poke, memory_order_relaxed) &&
		    atomic_exchange_explicit(&m->defer_poke, 0, memory_order_acquire))
			wt_sig_poke(m);
}

/* Context: the SIGURG handler of a poke (every signal blocked), on the
 * thread the deferred signals came to; uc is what the poke interrupted.
 * Raised now they would be delivered there as the handler returns: if that
 * is still inside weft, the next poke (sysmon's next round) tries again. */
void wt_sig_redeliver(void *uc)
{
	struct wt_m *m = self_m();
	if (!m || !atomic_load_explicit(&m->defer_ready, memory_order_relaxed))
		return;
	if (interrupted_weft(uc)) {
		atomic_store_explicit(&m->defer_poke, 1, memory_order_release);
		return;
	}
	uint64_t r = atomic_exchange_explicit(&m->defer_ready, 0, memory_order_acquire);
	while (r) {
		uint64_t bit = r & -r;
		r &= ~bit;
		int sig = __builtin_ctzll(bit) + 1;
		siginfo_t si = m->defer_info[sig];
		atomic_fetch_and(&m->defer_claim, ~bit);
		wt_syscall6(SYS_rt_tgsigqueueinfo, wt_pid, m->ostid, sig, (long)&si, 0, 0);
	}
}
