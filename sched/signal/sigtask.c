/*
 * sigtask.c — signals per task: masks, thread-directed signals, pokes.
 *
 * A task's signal mask (pthread_sigmask, sigprocmask) is a field of the
 * task; the worker thread carries it while the task runs.  m->sigmask is
 * what weft last set on the thread, so a switch between tasks with equal
 * masks costs two compares and no system call.  Ordering (core/proc.c):
 *   1. before the switch, the switching side blocks on the thread what the
 *      next task blocks more (wt_sig_preswitch): the mask only grows;
 *   2. the switch; m->after releases the previous task's locks;
 *   3. on the next task, its exact mask is set and the signals queued for
 *      it are raised (wt_sig_switchin), so their handlers run on it.
 * g0 keeps the mask of the task that ran last, and before it sleeps
 * unblocks every signal the program handles (wt_sig_idle): a
 * process-directed signal that comes to g0 is pending for the process until
 * a task that takes it does (sighandler.c), never handled there.  Every
 * point that looks at a task's own queue (switch-in, park, mask change,
 * poke, sigwait) also takes what is pending for the process and the task
 * does not block (deliver).
 * SIGSEGV and SIGBUS (crash.c; trap-mode TLS repair) and SIGURG (pokes, and
 * preemption) are never blocked at the thread level: wt_sig_eff removes
 * them, and the task's own field keeps what the program asked for.
 *
 * pthread_kill(task, sig) — wt_sig_send:
 *   sender: sigpend |= bit (an atomic RMW), then a full fence, then
 *           reads the task's state, mask, sigwait set and wait address:
 *           - a queued waiter is taken out of its wait (wt_park_interrupt);
 *           - a task running on a worker gets a poke: SIGURG queued to that
 *             thread with a marker (SI_QUEUE, sival WT_POKE, our pid).
 *   task:   every switch-in, mask change (wt_sig_setmask) and park (core/park.c,
 *           under the bucket lock) reads sigpend after its own writes and
 *           a full fence.
 * A task switched back into a park (t->sig_hold) raises nothing until the
 * park has finished with t->waiter and t->timer (core/park.c raises then): a
 * handler that sleeps or waits reuses both.
 * The pairs are store-buffer (Dekker) pairs, a fence on each side: either
 * the task's load sees the bit or the sender sees the task's store
 * (RUNNING, the new mask, the waiter's address).  Bits are claimed with an
 * atomic AND, so the poke handler and the task's own checks never both
 * raise one.  A poke handler runs on whatever task the worker runs by then;
 * it raises only that task's signals (tgkill to its own thread, delivered
 * as the handler returns, on that task).  A poke that lands on another task
 * is harmless, except that it may end that task's non-restartable system
 * call with EINTR (as Go's preemption signal can).
 *
 * Blocked signals stay in sigpend (sigpending reports them) until the task
 * unblocks them, or waits for them in sigwait*: then sigwait publishes its
 * set in t->sigwait and pending bits of it are raised on the thread, where
 * the thread mask keeps them pending for rt_sigtimedwait to take, with the
 * kernel's own siginfo.  What was raised and not taken is drained back into
 * sigpend before the task can leave the thread (wt_sig_wait_end).
 *
 * Rejected: membarrier(PRIVATE_EXPEDITED) on the sender's side, which
 * spared the task's fence (a few ns a switch-in) at the price of an IPI to
 * every CPU running a worker, waited for, at each pthread_kill: a garbage
 * collector stopping 200 threads 50 times spent a fifth of its time in
 * them, 0.86 s against 0.51 s with fences.
 * A signal for a task that runs reaches it at once: the poke is sent in
 * pthread_kill, and its handler raises the signal, whose handler runs as
 * the poke's returns, on that task (two signal deliveries, about 5 µs
 * more than natively).  One sent while the task runs a handler that
 * blocks it needs no poke at all: the handler's end raises it
 * (wt_sig_handler_leave), which is the common case of a sender that waits
 * for the handler's post.  What made such a signal late was elsewhere,
 * measured with bench/signal_rate (modes 3-5, a sender that pthread_kills
 * a busy thread and waits for its handler's sem_post): the task the
 * handler readied waited about 1 ms in runnext behind the task that ran
 * on (core/proc.c: wt_ready_m now wakes a worker for it), and a signal that
 * landed inside weft (a loop of pthread_getschedparam) waited for
 * sysmon's pokes, which mostly landed inside weft again (shim/sched.c now
 * runs it as the call returns).  Medians of 5 runs of 1 s, natively /
 * before / after, handlers a second: a spinning target 30,259 / 1,795 /
 * 10,936; one looping on get/setschedparam 41,144 / 621 / 8,270; on
 * pthread_create+join 59,258 / 8,867 / 8,064 (a machine at load 12 on 2
 * CPUs: the rest is the sender's own wake-up, a worker woken to take it).
 * Rejected: tgkill with the program's signal straight to the worker the
 * task runs on, which would save one delivery — delivery is asynchronous
 * (an IPI), so the task may have switched out by then, and the handler
 * would run on the wrong task unless the trampoline recognised a marked
 * siginfo and handed it back; but the task's own points raise the same
 * signal for themselves (a switch-in, a mask change), the kernel keeps one
 * instance of a standard signal pending per thread, and so an instance
 * that arrives after the bit was claimed cannot be told from the one the
 * claim raised (run twice, or dropped).  Program handlers do run through
 * a trampoline (sighandler.c), which passes the kernel's siginfo and
 * ucontext on unchanged; it only decides when: not while the thread is
 * inside weft or holds a weft lock.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/runtime.h"
#include "sighandler.h"
#include "core/park.h"
#include "sigtask.h"
#include "io/syscall.h"
#include "core/task.h"
#include "core/text.h"
#include "core/worker.h"

#define WT_POKE 0x77656674 /* "weft" */

int wt_pid;
/* The process's real user id, for the siginfo of a signal weft sends:
 * read at start and again after each change of ids (process/setxid.c), so a kill
 * costs no getuid.  [relaxed atomic; written at start and by a change] */
static int uid;

int wt_sig_uid(void)
{
	return __atomic_load_n(&uid, __ATOMIC_RELAXED);
}

void wt_sig_info_self(siginfo_t *si, int sig, int code)
{
	memset(si, 0, sizeof *si);
	si->si_signo = sig;
	si->si_code = code;
	si->si_pid = wt_pid;
	si->si_uid = (uid_t)wt_sig_uid();
}

void wt_sig_uid_refresh(void)
{
	__atomic_store_n(&uid, (int)wt_syscall6(SYS_getuid, 0, 0, 0, 0, 0, 0), __ATOMIC_RELAXED);
}


static long sigmask_set(int how, uint64_t set, uint64_t *old)
{
	return wt_syscall6(SYS_rt_sigprocmask, how, (long)&set, (long)old, 8, 0, 0);
}

/* Where handlers of what it unblocks are meant to run: a task holding no
 * weft lock (sighandler.c defers handlers that interrupt weft elsewhere). */
static void sigmask_set_deliver(uint64_t set)
{
	wt_syscall6_sigok(SYS_rt_sigprocmask, SIG_SETMASK, (long)&set, 0, 8, 0, 0);
}

static int self_tid(void)
{
	return (int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
}

static void raise_self(struct wt_task *t, int sig)
{
	wt_sig_raise(t->m, t, sig, NULL, true);
}

void wt_sig_block_more(struct wt_m *m, uint64_t more)
{
	sigmask_set(SIG_BLOCK, more, NULL);
	m->sigmask |= more;
}

/* Makes the thread's mask t's, so a signal deliver raises is delivered at
 * once, to t.  Raised while the thread blocks it, it stays pending on the
 * worker: right where a sigreturn to t is what unblocks it next (a poke's
 * handler), wrong where t then parks (sigsuspend's wait, whose mask is
 * t's alone until then; inside a handler the thread also still blocks the
 * handler's sa_mask): the next task switched in on that worker would take
 * it, and t would never see it.  Context: t, not in weft's SIGURG
 * handler. */
static void mask_sync(struct wt_task *t)
{
	struct wt_m *m = t->m;
	uint64_t eff = wt_sig_eff(t->sigmask);
	if (m->sigmask != eff) {
		sigmask_set_deliver(eff);
		m->sigmask = eff;
	}
}

/* Claims the signals t may take now (not blocked, or waited for) one at a
 * time and raises each on this thread.  Context: t, on its worker (task code
 * or a handler on it).  Returns whether a not-blocked one was raised. */
static bool deliver(struct wt_task *t)
{
	bool any = false;
	for (;;) {
		uint64_t pend = atomic_load_explicit(&t->sigpend, memory_order_relaxed);
		uint64_t take = pend & (~t->sigmask | __atomic_load_n(&t->sigwait, __ATOMIC_RELAXED));
		if (!take)
			break;
		uint64_t bit = take & -take;
		if (!(atomic_fetch_and(&t->sigpend, ~bit) & bit))
			continue;
		if (t->sigmask & bit)
			__atomic_fetch_or(&t->sigraised, bit, __ATOMIC_RELAXED);
		else
			any = true;
		/* Raised one by one: a handler that longjmps leaves the rest
		 * queued for the next switch-in.  A signal handed to t by
		 * another thread (sighandler.c) keeps its siginfo: the kernel
		 * takes any si_code a thread queues for itself. */
		int sig = __builtin_ctzll(bit) + 1;
		siginfo_t info;
		if (wt_sig_handed_info(t, sig, &info))
			wt_sig_raise(t->m, t, sig, &info, true);
		else
			raise_self(t, sig);
	}
	/* Those pending for the process that t takes (sighandler.c). */
	uint64_t want = ~t->sigmask | __atomic_load_n(&t->sigwait, __ATOMIC_RELAXED);
	if (unlikely(wt_sig_proc_pending() & want)) {
		uint64_t took = wt_sig_proc_take(t, want);
		__atomic_fetch_or(&t->sigraised, took & t->sigmask, __ATOMIC_RELAXED);
		any |= (took & ~t->sigmask) != 0;
	}
	return any;
}

void wt_sig_deliver(struct wt_task *t)
{
	deliver(t);
}

void wt_sig_switchin_slow(struct wt_task *t)
{
	struct wt_m *m = t->m;
	uint64_t eff = wt_sig_eff(t->sigmask);
	if (eff != m->sigmask) {
		sigmask_set_deliver(eff);
		m->sigmask = eff;
	}
	if ((atomic_load_explicit(&t->sigpend, memory_order_relaxed) || wt_sig_proc_for(t)) &&
	    !t->sig_hold)
		deliver(t); /* held: core/park.c delivers once the park is over */
	/* Signals that interrupted weft on this worker (sighandler.c). */
	wt_sig_defer_check(t->m);
}

/* A worker about to sleep takes every signal the program handles, so one
 * sent to the process while each running task blocks it still finds a
 * thread, and its trampoline hands it to a task that takes it (a waiting
 * one, too).  Signals left to their default action stay blocked as the last
 * task had them: a thread that takes one ends the process.  What becomes
 * deliverable runs its trampoline in this call.  Context: m's g0, holding
 * no weft lock, before it sleeps. */
void wt_sig_idle(struct wt_m *m)
{
	uint64_t h = wt_sig_eff(wt_sig_handled());
	if (m->sigmask != WT_SIGMASK_UNKNOWN && !(m->sigmask & h))
		return;
	uint64_t old = 0;
	wt_syscall6_sigok(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&h, (long)&old, 8, 0, 0);
	m->sigmask = wt_sig_eff(old) & ~h;
}

/* Context: t itself (pthread_sigmask).  Always a system call, as natively:
 * inside a handler the thread mask is not m->sigmask. */
void wt_sig_setmask(struct wt_task *t, uint64_t mask)
{
	/* The kernel ignores SIGKILL/SIGSTOP; glibc strips its internal
	 * SIGCANCEL (32) and SIGSETXID (33). */
	mask &= ~(WT_SIGBIT(SIGKILL) | WT_SIGBIT(SIGSTOP) | WT_SIGBIT(32) | WT_SIGBIT(33));
	uint64_t more = mask & ~t->sigmask;
	__atomic_store_n(&t->sigmask, mask, __ATOMIC_RELAXED);
	uint64_t eff = wt_sig_eff(mask);
	sigmask_set_deliver(eff);
	t->m->sigmask = eff;
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&t->sigpend, memory_order_relaxed) & ~mask)
		deliver(t);
	if (unlikely(wt_sig_proc_pending() & ~mask))
		wt_sig_proc_take(t, ~mask);
	/* Signals pending for the process that a router may have asked t to
	 * take before it saw the new mask; the main task's handed ones. */
	if (unlikely(more & (wt_sig_proc_pending() | t->sigpend)))
		wt_sig_proc_retarget(t, more);
}

/* The kernel blocks the handler's mask on the thread while the handler
 * runs, and so must t's own record, which pthread_sigmask reads back and
 * senders and deliver go by: a signal of that mask sent to t meanwhile
 * waits in t's queue, as natively, instead of being raised on a thread
 * that blocks it (where it would stay pending for whichever task the
 * worker runs next).  No system call: the thread has that mask already.
 * Context: the trampoline, on t. */
uint64_t wt_sig_handler_enter(struct wt_task *t, uint64_t block)
{
	uint64_t old = t->sigmask;
	block &= ~(WT_SIGBIT(SIGKILL) | WT_SIGBIT(SIGSTOP) | WT_SIGBIT(32) | WT_SIGBIT(33));
	__atomic_store_n(&t->sigmask, old | block, __ATOMIC_RELAXED);
	return old;
}

/* The handler returned: t's mask as sigreturn makes the thread's (a change
 * the handler made is undone, as natively).  What t may now take is raised
 * here, still inside the kernel's handler frame: the thread blocks it
 * until the sigreturn, which returns to t's code, where it runs.  Context:
 * the trampoline, on t. */
void wt_sig_handler_leave(struct wt_task *t, uint64_t old)
{
	__atomic_store_n(&t->sigmask, old, __ATOMIC_RELAXED);
	atomic_thread_fence(memory_order_seq_cst);
	if ((atomic_load_explicit(&t->sigpend, memory_order_relaxed) | wt_sig_proc_pending()) & ~old)
		deliver(t);
}

/* Context: t, exiting (core/task.c), after its destructors: what t may still
 * take runs now, as natively the thread takes a signal the kernel chose it
 * for at its next return from the kernel; then t blocks every signal, so
 * routers pass it by, and what is pending for the process goes to other
 * takers.  The block is weft's record only: t runs no program code again,
 * and a signal that lands on its worker in the rest of the exit is one
 * that interrupted weft (sighandler.c defers it, or passes a process one
 * back since t blocks it).  The worker keeps its mask, which the next task
 * most often shares: an exit costs no sigprocmask, nor the next switch-in. */
void wt_sig_task_exit(struct wt_task *t)
{
	if (atomic_load_explicit(&t->sigpend, memory_order_relaxed) || wt_sig_proc_for(t))
		deliver(t);
	wt_sig_defer_check(t->m);
	uint64_t all = ~(WT_SIGBIT(SIGKILL) | WT_SIGBIT(SIGSTOP) | WT_SIGBIT(32) | WT_SIGBIT(33));
	uint64_t more = all & ~t->sigmask;
	__atomic_store_n(&t->sigmask, all, __ATOMIC_RELAXED);
	/* Pairs with a router's fence between its pending record and its
	 * read of t's mask (the same order wt_sig_setmask keeps). */
	atomic_thread_fence(memory_order_seq_cst);
	if (unlikely(more & (wt_sig_proc_pending() | t->sigpend)))
		wt_sig_proc_retarget(t, more);
}

/* ---- sigwait, sigwaitinfo, sigtimedwait on a task ----
 * The wait is a system call of the task's (wt_entersyscall ... exit): its
 * set is published in t->sigwait, the queued signals of the set are raised
 * on this thread (its mask keeps them pending), and the caller waits in the
 * kernel.  A pthread_kill during the wait pokes this thread; the poke
 * raises the signal, which the wait then takes.  Before exitsyscall (which
 * may move the task to another thread), what was raised and not taken goes
 * back to the task's queue. */

unsigned wt_sig_wait_begin(struct wt_task *t, uint64_t set)
{
	wt_entersyscall();
	__atomic_store_n(&t->sigwait, set & ~(WT_SIGBIT(32) | WT_SIGBIT(33)), __ATOMIC_RELAXED);
	atomic_signal_fence(memory_order_seq_cst);
	unsigned intr = wt_sig_handler_runs(t);
	deliver(t);
	if (unlikely(wt_sig_proc_pending() & set))
		__atomic_fetch_or(&t->sigraised, wt_sig_proc_take(t, set) & t->sigmask,
				  __ATOMIC_RELAXED);
	return intr;
}

/* Takes back from the thread what deliver raised for the wait and the
 * wait did not take. */
static void drain(struct wt_task *t)
{
	uint64_t left = __atomic_exchange_n(&t->sigraised, 0, __ATOMIC_RELAXED);
	while (left) {
		uint64_t bit = left & -left;
		left &= ~bit;
		uint64_t one = bit;
		struct timespec zero = { 0, 0 };
		siginfo_t si;
		if (wt_syscall6(SYS_rt_sigtimedwait, (long)&one, (long)&si, (long)&zero, 8, 0, 0) > 0)
			atomic_fetch_or(&t->sigpend, bit);
	}
}

bool wt_sig_wait_end(struct wt_task *t, int r, int err, unsigned intr)
{
	__atomic_store_n(&t->sigwait, 0, __ATOMIC_RELAXED);
	atomic_signal_fence(memory_order_seq_cst);
	if (r > 0 && r < 65)
		__atomic_fetch_and(&t->sigraised, ~WT_SIGBIT(r), __ATOMIC_RELAXED);
	drain(t);
	/* EINTR with no program handler run since the wait began came from a
	 * SIGURG of weft's: a poke whose signal the wait took or that raised
	 * nothing, a preemption request or a carrier sent before the wait
	 * was seen (counting pokes alone let those end sigwaitinfo with
	 * EINTR: eintr_calls, 1 run in 250 under load). */
	bool again = r < 0 && err == EINTR && wt_sig_handler_runs(t) == intr;
	wt_exitsyscall();
	return again;
}

/* ---- sigsuspend and pause on a task ----
 * The task's mask becomes the call's for the wait (so senders see what it
 * takes), and the task parks on its own handler count: a signal it takes
 * interrupts the park (core/park.c: wt_park_interrupt, and the look at sigpend
 * before it queues), and its handler runs as the task resumes.  The call
 * returns once a program handler ran on the task (t->sighandled moved), so
 * a wake-up that ran none is waited through, or a cancel of a call marked
 * a cancellation point arrived; then the task's mask gets its old value
 * back.  Parked, the task holds no thread: a collector that stops 200
 * threads in sigsuspend (inside their suspend handlers, as Boehm's does)
 * needs no OS thread for each.  Inside a blocking call of a handler's
 * (m->insyscall: the proc may be another worker's), the worker waits in
 * rt_sigsuspend with that mask instead, SIGURG open: a pthread_kill
 * pokes the thread, the poke raises the signal, and its handler runs as
 * the poke returns; the kernel restores the thread mask as rt_sigsuspend
 * returns.  Context: t (task code or a handler on it).  Returns -EINTR,
 * as sigsuspend always does. */
static int suspend_parked(struct wt_task *t, uint64_t mask)
{
	unsigned before = t->sighandled;
	uint64_t old = t->sigmask;
	__atomic_store_n(&t->sigmask, mask, __ATOMIC_RELAXED);
	atomic_thread_fence(memory_order_seq_cst);
	mask_sync(t);
	deliver(t);
	while (t->sighandled == before &&
	       !(atomic_load(&t->cancel_call) && wt_cancel_pending(t))) {
		wt_wait_reason("sigsuspend");
		if (wt_park(&t->sighandled, wt_seq_unchanged, before, -1,
			    atomic_load(&t->cancel_call) != 0) == WT_PARK_CANCELED)
			break;
	}
	__atomic_store_n(&t->sigmask, old, __ATOMIC_RELAXED);
	atomic_thread_fence(memory_order_seq_cst);
	mask_sync(t); /* the thread took the wait's mask */
	if (atomic_load_explicit(&t->sigpend, memory_order_relaxed) & ~old)
		deliver(t);
	return -EINTR;
}

int wt_sig_suspend(struct wt_task *t, uint64_t mask)
{
	mask &= ~(WT_SIGBIT(SIGKILL) | WT_SIGBIT(SIGSTOP) | WT_SIGBIT(32) | WT_SIGBIT(33));
	if (!t->m->insyscall)
		return suspend_parked(t, mask);
	unsigned before = t->sighandled;
	uint64_t old = t->sigmask;
	wt_entersyscall();
	__atomic_store_n(&t->sigmask, mask, __ATOMIC_RELAXED);
	atomic_thread_fence(memory_order_seq_cst);
	deliver(t);
	uint64_t eff = wt_sig_eff(mask);
	/* A cancel requested while the caller marked the call a cancellation
	 * point (shim/signal.c) signals this worker, and ends the wait. */
	while (t->sighandled == before &&
	       !(atomic_load(&t->cancel_call) && wt_cancel_pending(t)))
		wt_syscall6_sigok(SYS_rt_sigsuspend, (long)&eff, 8, 0, 0, 0, 0);
	__atomic_store_n(&t->sigmask, old, __ATOMIC_RELAXED);
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&t->sigpend, memory_order_relaxed) & ~old)
		deliver(t);
	wt_exitsyscall();
	return -EINTR;
}

/* The sender's half of the Dekker pairs above (and of sighandler.c's
 * process-pending ones). */
void wt_sig_barrier(void)
{
	atomic_thread_fence(memory_order_seq_cst);
}

/* Weft's own SIGURG to thread tid of this process, marked as ours: queued
 * (SI_QUEUE) by our pid with value v, which the receiving handler
 * recognises (a poke, a preemption request, a change of ids).  Context:
 * any, signal handlers included. */
void wt_sig_urg_send(int tid, union sigval v)
{
	siginfo_t si;
	memset(&si, 0, sizeof si);
	si.si_signo = SIGURG;
	si.si_code = SI_QUEUE;
	si.si_pid = wt_pid;
	si.si_uid = wt_sig_uid();
	si.si_value = v;
	wt_syscall6(SYS_rt_tgsigqueueinfo, wt_pid, tid, SIGURG, (long)&si, 0, 0);
}

void wt_sig_poke(struct wt_m *m)
{
	wt_sig_urg_send(m->ostid, (union sigval){ .sival_int = WT_POKE });
}

/* ---- a program's signal raised on its own thread ----
 * Every program signal weft moves (to a task, back from a deferral, to a
 * taker of one pending for the process) is raised again on the thread that
 * is to run its handler, with its siginfo.  SIGURG is weft's signal too,
 * and the kernel keeps one instance of a standard signal pending per
 * thread: a program's SIGURG raised while a preemption request or a poke
 * of weft's is pending there (queued by sysmon or another thread, held
 * back while this thread runs weft's own SIGURG handler) is merged into
 * it, and that one's handler did only weft's part.  Measured with
 * tests/preload/sigurg_storm (200 kills and 200 sigqueues of SIGURG to
 * the process by the main task, one at a time, four threads looping on
 * pthread_setschedparam; 12 runs at a time, GOMAXPROCS=2): 5 runs in 120
 * had a kill whose handler had not run when kill returned (its SIGURG had
 * merged into a preemption request); none in 168 with the slot below.
 * So a program's SIGURG does not travel as a signal: it is kept on the
 * thread's worker (m->urg_*, one slot: a second one while it waits
 * coalesces, as the kernel's pending one would), and a marked SIGURG of
 * weft's (the carrier) is raised; whichever SIGURG the thread takes next,
 * carrier or request, its handler runs the kept one (wt_sig_urg_owed,
 * core/preempt.c).  A carrier merged into a request is harmless; one that finds
 * the slot emptied does a poke's work (it may have absorbed one), outside
 * weft only (wt_sig_urg).  A SIGURG the task blocks is raised as a signal,
 * for its sigwait, whose rt_sigtimedwait takes it from the kernel. */
#define WT_URG_CARRY 0x75726721 /* "urg!" */

void wt_sig_raise(struct wt_m *m, struct wt_task *t, int sig, const siginfo_t *si, bool sigok)
{
	int tid = self_tid();
	/* One t blocks is raised for t's sigwait, whose rt_sigtimedwait on
	 * this thread takes it from the kernel, siginfo and all: as raised. */
	if (sig != SIGURG || !m || (t && (__atomic_load_n(&t->sigmask, __ATOMIC_RELAXED) &
					  WT_SIGBIT(SIGURG)))) {
		long nr = si ? SYS_rt_tgsigqueueinfo : SYS_tgkill;
		if (sigok)
			wt_syscall6_sigok(nr, wt_pid, tid, sig, (long)si, 0, 0);
		else
			wt_syscall6(nr, wt_pid, tid, sig, (long)si, 0, 0);
		return;
	}
	/* A handler that interrupts the writes below on this thread finds
	 * the slot claimed and not ready: its raise coalesces, its
	 * wt_sig_urg_owed leaves the slot to this raise's carrier. */
	if (atomic_exchange_explicit(&m->urg_claim, 1, memory_order_relaxed))
		return;
	atomic_signal_fence(memory_order_seq_cst);
	m->urg_task = t;
	if (si) {
		m->urg_info = *si;
	} else {
		wt_sig_info_self(&m->urg_info, SIGURG, SI_TKILL);
	}
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&m->urg_ready, 1, memory_order_relaxed);
	siginfo_t c;
	wt_sig_info_self(&c, SIGURG, SI_QUEUE);
	c.si_value.sival_int = WT_URG_CARRY;
	if (sigok)
		wt_syscall6_sigok(SYS_rt_tgsigqueueinfo, wt_pid, tid, SIGURG, (long)&c, 0, 0);
	else
		wt_syscall6(SYS_rt_tgsigqueueinfo, wt_pid, tid, SIGURG, (long)&c, 0, 0);
}

bool wt_sig_urg_owed(siginfo_t *si)
{
	struct wt_task *t = wt_cur();
	struct wt_m *m = t ? t->m : wt_m_of_tid(self_tid());
	if (!m || !atomic_load_explicit(&m->urg_ready, memory_order_relaxed))
		return false;
	atomic_signal_fence(memory_order_seq_cst);
	struct wt_task *owner = m->urg_task;
	*si = m->urg_info;
	atomic_store_explicit(&m->urg_ready, 0, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&m->urg_claim, 0, memory_order_relaxed);
	if (owner && owner != t) {
		/* Raised for a task this thread no longer runs: its own again,
		 * raised at its next point (its siginfo is not kept). */
		atomic_fetch_or(&owner->sigpend, WT_SIGBIT(SIGURG));
		return false;
	}
	if (t && (t->sigmask & WT_SIGBIT(SIGURG))) {
		atomic_fetch_or(&t->sigpend, WT_SIGBIT(SIGURG));
		return false;
	}
	return true;
}

/* pthread_kill to a task.  Context: any.  Returns 0 (queuing cannot fail)
 * or -errno. */
int wt_sig_send(struct wt_task *t, int sig)
{
	uint64_t bit = WT_SIGBIT(sig);
	struct wt_task *cur = wt_cur();
	if (t == cur) {
		if (t->sigmask & bit)
			atomic_fetch_or(&t->sigpend, bit);
		else /* delivered as the system call returns, on this task */
			raise_self(t, sig);
		return 0;
	}
	atomic_fetch_or(&t->sigpend, bit);
	wt_sig_barrier();
	bool blocked = __atomic_load_n(&t->sigmask, __ATOMIC_RELAXED) & bit;
	bool waited = __atomic_load_n(&t->sigwait, __ATOMIC_RELAXED) & bit;
	if (blocked && !waited)
		return 0; /* stays pending until t unblocks it */
	if (!blocked)
		wt_park_interrupt(t);
	if (atomic_load_explicit(&t->state, memory_order_relaxed) == WT_RUNNING) {
		struct wt_m *m = __atomic_load_n(&t->m, __ATOMIC_RELAXED);
		if (m)
			wt_sig_poke(m);
	}
	return 0;
}

/* Whether a system call at the pc a signal interrupted on t is the call of
 * an entersyscall bracket (shim.h: BRACKETED, a libc call that may block),
 * or an implicit call (io/syscall.c: a call inside libc weft was not told of,
 * stdio's read), so that ending it with EINTR is what a native handler
 * would do.  Not an implicit call inside fork's window: the task runs on
 * through glibc's fork, whose clone the kernel only ever restarts (ended
 * with EINTR, fork failed).  Not when the
 * bracket belongs to a call that a program handler running on t
 * interrupted (its record's callbase, sighandler.c): the pc is then the
 * handler's own, maybe a system call the kernel has not entered yet (a
 * write to a pipe, which natively never ends with EINTR), and stepping
 * over it loses it.  (Its way back, the restorer's rt_sigreturn, lies in
 * libweft: sighandler.c.)  Context: t, or its worker's handler. */
bool wt_sig_call_is_own(const struct wt_task *t)
{
	struct wt_m *m = t->m;
	if (!m)
		return false;
	const struct wt_sigframe *f = __atomic_load_n(&t->sigframe, __ATOMIC_RELAXED);
	return wt_sig_call_depth(m) > (f ? f->callbase : 0);
}

/* m's depth of system-call brackets a signal may end with EINTR: all but
 * an implicit one inside a fork (wt_sig_call_is_own).  Context: m's
 * thread. */
int wt_sig_call_depth(const struct wt_m *m)
{
	const struct wt_task *c = m->curg;
	return m->insyscall -
	       (atomic_load_explicit(&m->implicit, memory_order_relaxed) && c && c->in_fork ? 1 : 0);
}

/* Is sig's program handler one without SA_RESTART?  Context: any. */
static bool no_restart(int sig)
{
	struct sigaction u;
	return wt_sig_handler_get(sig, &u) && u.sa_handler != SIG_DFL && u.sa_handler != SIG_IGN &&
	       !(u.sa_flags & SA_RESTART);
}

/* Any SIGURG of weft's: one SIGURG pending on a thread absorbs the next
 * (the kernel queues one of a standard signal), so every one does a
 * poke's work: the signals deferred on this thread, and the task's own. */
void wt_sig_poked(void *uc)
{
	struct wt_task *t = wt_cur();
	wt_sig_redeliver(uc);
	/* A task finishing a park (t->sig_hold) takes its signals as the
	 * park returns (core/park.c). */
	if (!t || t->sig_hold)
		return;
	uint64_t pend = (atomic_load_explicit(&t->sigpend, memory_order_relaxed) |
			 wt_sig_proc_pending()) & ~t->sigmask;
	if (!deliver(t))
		return;
	if (wt_sig_call_is_own(t) && wt_arch_uc_in_syscall(uc) && !wt_pc_in_weft(wt_arch_uc_pc(uc))) {
		/* The SIGURG cut a libc call short (sem_wait, read) and the
		 * kernel restarts it for SIGURG's SA_RESTART; the signal raised
		 * now runs its handler after that decision.  Natively that
		 * handler would have ended the call: so it ends with EINTR
		 * unless it has SA_RESTART. */
		bool norestart = false;
		for (uint64_t b = pend; b && !norestart; b &= b - 1)
			norestart = no_restart(__builtin_ctzll(b) + 1);
		if (norestart)
			wt_arch_uc_syscall_eintr(uc);
	}
}

/* SIGURG that is not a preemption request (core/preempt.c's handler asks here
 * first): a poke, or one for a task that blocks SIGURG.  true: handled;
 * false: the program's own, to chain. */
bool wt_sig_urg(siginfo_t *si, void *uc)
{
	struct wt_task *t = wt_cur();
	if (si->si_code == SI_QUEUE && si->si_pid == wt_pid && si->si_value.sival_int == WT_POKE) {
		wt_sig_poked(uc);
		return true;
	}
	/* A carrier (wt_sig_raise): the caller runs what it carries.  It may
	 * have absorbed a poke sent meanwhile: the poke's work too, outside
	 * weft.  Inside, the signals it would raise are held back into the
	 * task's queue again, among them a SIGURG, whose carrier came back
	 * at the same pc: a carrier that raised the task's signals there
	 * raised the next one, for ever (the main task spun in its join's
	 * park, 2 runs in 72 of sigurg_storm). */
	if (si->si_code == SI_QUEUE && si->si_pid == wt_pid && si->si_value.sival_int == WT_URG_CARRY) {
		if (!wt_sig_in_weft(uc))
			wt_sig_poked(uc);
		return true;
	}
	if (t && (t->sigmask & WT_SIGBIT(SIGURG))) {
		/* The task blocks it: keep it for the task, as its thread would. */
		atomic_fetch_or(&t->sigpend, WT_SIGBIT(SIGURG));
		return true;
	}
	return false;
}

/* Context: a worker thread, first thing (worker 0 at start).  Returns the
 * mask the thread had. */
uint64_t wt_sig_thread_init(struct wt_m *m)
{
	uint64_t cur = 0;
	sigmask_set(SIG_UNBLOCK, WT_SIG_KEEP, &cur);
	m->sigmask = wt_sig_eff(cur);
	return cur;
}

/* Context: start, on the initial thread of a process whose main began
 * before weft started (core/start.c): from the read of the program's alternate
 * stack and handlers to the main task's record of both, the kernel's are
 * weft's or the program's and the task's not set yet; a program handler
 * run there ran on weft's signal stack, not the one the program gave
 * (tests/preload/lone_task's itimer, 1 run in about 100 under load).
 * Program signals wait in the kernel meanwhile. */
uint64_t wt_sig_start_hold(void)
{
	uint64_t old = 0;
	sigmask_set(SIG_SETMASK, ~(WT_SIGBIT(SIGSEGV) | WT_SIGBIT(SIGBUS)), &old);
	return old;
}

/* Context: as wt_sig_start_hold, once the main task holds the program's
 * handlers and alternate stack; mask is the main task's.  What waited
 * comes now, inside weft's code: the trampoline holds it back to the
 * task's next point outside weft (sighandler.c), after the start. */
void wt_sig_start_release(struct wt_m *m, uint64_t mask)
{
	m->sigmask = wt_sig_eff(mask);
	sigmask_set(SIG_SETMASK, m->sigmask, NULL);
}

/* Context: sysmon, first thing: it runs no program code, so it takes no
 * program signal (a process-directed one every task blocks stays pending
 * for sigwait, as natively). */
void wt_sig_block_all(void)
{
	sigmask_set(SIG_SETMASK, ~(WT_SIGBIT(SIGSEGV) | WT_SIGBIT(SIGBUS)), NULL);
}

/* Context: a thread of weft's that runs no program code and takes no
 * program signal, but makes a change of ids (process/setxid.c), first thing. */
void wt_sig_block_program(void)
{
	sigmask_set(SIG_SETMASK, ~(WT_SIGBIT(SIGSEGV) | WT_SIGBIT(SIGBUS) | WT_SIGBIT(SIGURG)), NULL);
}

/* Context: start, on the initial thread (worker 0, main task), after the
 * fault handlers; in a fork child again. */
void wt_sig_init(void)
{
	wt_pid = (int)wt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	wt_sig_uid_refresh();
	/* The SIGURG handler is core/preempt.c's; it hands pokes to wt_sig_urg. */
}
