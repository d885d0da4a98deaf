/*
 * signal.c — signal masks, thread-directed signals and waits, per task.
 *
 * weft keeps SIGSEGV, SIGBUS (sched/signal/crash.c) and SIGURG (sched/signal/sigtask.c:
 * pokes; preemption): the program's handlers for them are recorded and
 * chained from weft's, and thread masks never block them, because a
 * blocked synchronous SIGSEGV kills the process and trap-mode TLS repair
 * (sched/stack/tls.c) arrives as one.  The program's other handlers run through
 * a trampoline; sched/signal/sighandler.c decides all that (wt_sig_action).
 *
 * On a task, pthread_sigmask/sigprocmask read and write the task's own
 * mask (the worker thread follows it, sched/signal/sigtask.c), pthread_kill queues
 * the signal on the task, sigpending adds the task's queued ones, and the
 * sigwait family takes them.  Threads weft did not create use libc's.
 */
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim.h"
#include "process/vfork.h"
#include "observe/dump.h"
#include "signal/sighandler.h"
#include "signal/sigstack.h"
#include "signal/sigtask.h"
#include "core/task.h"


static uint64_t bits_of(const sigset_t *set)
{
	uint64_t b;
	memcpy(&b, set, sizeof b);
	return b;
}

static void set_bits(sigset_t *set, uint64_t b)
{
	memset(set, 0, sizeof *set);
	memcpy(set, &b, sizeof b);
}

WT_EXPORT int sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
	wt_real_init();
	/* A vfork child's dispositions are its own, and the kernel holds the
	 * program's (sched/process/vfork.c): weft's records are the parent's. */
	if (wt_vfork_child())
		return real.sigaction(sig, sa, old);
	if (sig == SIGQUIT) {
		/* The program's handler replaces weft's task dump (sched/observe/dump.c),
		 * which it never installed and so never sees. */
		int r = real.sigaction(sig, sa, old);
		if (r == 0 && old)
			wt_dump_hide(old);
		return r;
	}
	if (!wt_sig_takes(sig))
		return real.sigaction(sig, sa, old);
	int r = wt_sig_action(sig, sa, old);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return 0;
}

static __sighandler_t install(int sig, __sighandler_t h, int flags)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = h;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

/* Every libc way of setting a handler goes through sigaction above, or a
 * program's SIGSEGV/SIGBUS/SIGURG handler would replace weft's (zstd sets
 * its handlers with __sysv_signal). */
WT_EXPORT __sighandler_t signal(int sig, __sighandler_t h)
{
	return install(sig, h, SA_RESTART); /* BSD semantics, as glibc's */
}

WT_EXPORT __sighandler_t bsd_signal(int sig, __sighandler_t h)
{
	return install(sig, h, SA_RESTART);
}

WT_EXPORT __sighandler_t ssignal(int sig, __sighandler_t h)
{
	return install(sig, h, SA_RESTART);
}

/* System V semantics: one-shot, not blocked in its own handler. */
WT_EXPORT __sighandler_t __sysv_signal(int sig, __sighandler_t h)
{
	return install(sig, h, SA_RESETHAND | SA_NODEFER);
}

WT_EXPORT __sighandler_t sysv_signal(int sig, __sighandler_t h)
{
	return install(sig, h, SA_RESETHAND | SA_NODEFER);
}

/* export: sigset */
__sighandler_t sigset(int sig, __sighandler_t h) __attribute__((visibility("default")));
__sighandler_t sigset(int sig, __sighandler_t h)
{
	sigset_t one, old;
	sigemptyset(&one);
	if (sigaddset(&one, sig) < 0)
		return SIG_ERR;
	if (sigprocmask(SIG_BLOCK, NULL, &old) < 0)
		return SIG_ERR;
	bool held = sigismember(&old, sig);
	if (h == SIG_HOLD) {
		struct sigaction cur;
		if (sigaction(sig, NULL, &cur) < 0 || sigprocmask(SIG_BLOCK, &one, NULL) < 0)
			return SIG_ERR;
		return held ? SIG_HOLD : cur.sa_handler;
	}
	__sighandler_t prev = install(sig, h, 0);
	if (prev == SIG_ERR || sigprocmask(SIG_UNBLOCK, &one, NULL) < 0)
		return SIG_ERR;
	return held ? SIG_HOLD : prev;
}

static struct wt_task *task(void)
{
	return wt_runtime_on() ? wt_cur() : NULL;
}

static const sigset_t *strip(const sigset_t *set, sigset_t *buf)
{
	if (!set || !wt_runtime_on())
		return set;
	*buf = *set;
	sigdelset(buf, SIGSEGV);
	sigdelset(buf, SIGBUS);
	sigdelset(buf, SIGURG);
	return buf;
}

/* Returns 0 or a positive errno. */
static int task_sigmask(struct wt_task *t, int how, const sigset_t *set, sigset_t *old)
{
	uint64_t cur = t->sigmask;
	if (set) {
		uint64_t b = bits_of(set), nm;
		switch (how) {
		case SIG_BLOCK: nm = cur | b; break;
		case SIG_UNBLOCK: nm = cur & ~b; break;
		case SIG_SETMASK: nm = b; break;
		default: return EINVAL;
		}
		wt_sig_setmask(t, nm);
	}
	if (old)
		set_bits(old, cur);
	return 0;
}

WT_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t buf;
	wt_real_init();
	struct wt_task *t = task();
	if (t)
		return task_sigmask(t, how, set, old);
	return real.pthread_sigmask(how, strip(set, &buf), old);
}

WT_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int r = pthread_sigmask(how, set, old);
	if (r) {
		errno = r;
		return -1;
	}
	return 0;
}

WT_EXPORT int sigpending(sigset_t *set)
{
	uint64_t k = 0;
	long r = wt_syscall6(SYS_rt_sigpending, (long)&k, 8, 0, 0, 0, 0);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	struct wt_task *t = task();
	if (t)
		k |= wt_sig_pending(t) | wt_sig_proc_pending();
	set_bits(set, k);
	return 0;
}

static int kill_task(struct wt_task *t, int sig)
{
	if (wt_task_dead(t))
		return 0;
	if (sig < 0 || sig >= 65)
		return EINVAL;
	if (sig == 0)
		return 0;
	return -wt_sig_send(t, sig);
}

WT_EXPORT int pthread_kill(pthread_t th, int sig)
{
	wt_real_init();
	/* glibc refuses its internal signals first, then sends nothing to a
	 * thread that has exited, joined or not, and returns 0. */
	if (sig == 32 || sig == 33)
		return EINVAL;
	if (!wt_runtime_on())
		return real.pthread_kill(th, sig);
	wt_task_lookup_begin();
	struct wt_task *t = wt_task_from_pthread(th);
	if (t && t == wt_cur()) {
		/* Its own record needs no section, and a handler may run now. */
		wt_task_lookup_end();
		return kill_task(t, sig);
	}
	int r = t ? kill_task(t, sig) : 0;
	wt_task_lookup_end();
	if (!t && wt_task_ended(th) < 0)
		return real.pthread_kill(th, sig);
	return r;
}

/* kill and sigqueue to this process from a task, for a signal with a
 * program handler: queued for the process and its taker chosen within the
 * call, as the kernel does (sched/signal/sighandler.c); anything else is the
 * kernel's. */
WT_EXPORT int kill(pid_t pid, int sig)
{
	wt_real_init();
	if (wt_runtime_on() && pid == wt_pid && wt_cur() &&
	    wt_sig_send_process(sig, SI_USER, (union sigval){ 0 }) == 0)
		return 0;
	return real.kill(pid, sig);
}

WT_EXPORT int sigqueue(pid_t pid, int sig, const union sigval val)
{
	wt_real_init();
	if (wt_runtime_on() && pid == wt_pid && wt_cur() &&
	    wt_sig_send_process(sig, SI_QUEUE, val) == 0)
		return 0;
	return real.sigqueue(pid, sig, val);
}

/* Inside pthread_sigqueue's lookup section; t NULL: ESRCH (an ended task's,
 * or none of weft's: the caller decides). */
static int sigqueue_task(struct wt_task *t, int sig, const union sigval val)
{
	if (!t || wt_task_dead(t))
		return ESRCH;
	if (sig < 0 || sig >= 65 || sig == 32 || sig == 33)
		return EINVAL; /* 32, 33: glibc's own */
	if (sig == 0)
		return 0;
	siginfo_t si;
	memset(&si, 0, sizeof si);
	si.si_signo = sig;
	si.si_code = SI_QUEUE;
	si.si_pid = wt_pid;
	si.si_uid = getuid();
	si.si_value = val;
	wt_sig_send_info(t, sig, &si);
	return 0;
}

/* pthread_sigqueue to a task: queued to it with glibc's siginfo (SI_QUEUE,
 * our pid and uid, the value), as rt_tgsigqueueinfo through syscall() is
 * (the kernel refuses a task's id).  An exited task's pthread_t may lie in
 * memory another task's stack uses now (stack/stack.c: wt_stack_exit_release),
 * so that is not read for it: ESRCH, as glibc says once the kernel cleared
 * an exited thread's tid. */
WT_EXPORT int pthread_sigqueue(pthread_t th, int sig, const union sigval val)
{
	wt_real_init();
	if (!wt_runtime_on())
		return real.pthread_sigqueue(th, sig, val);
	wt_task_lookup_begin();
	struct wt_task *t = wt_task_from_pthread(th);
	if (t && t == wt_cur()) {
		/* Its own record needs no section, and a handler may run now. */
		wt_task_lookup_end();
		return sigqueue_task(t, sig, val);
	}
	int r = sigqueue_task(t, sig, val);
	wt_task_lookup_end();
	if (!t && wt_task_ended(th) < 0)
		return real.pthread_sigqueue(th, sig, val);
	return r;
}

/* raise: the signal is the calling task's, as pthread_kill(pthread_self())
 * makes it (libc's would queue a blocked one on the worker thread, where
 * the next task run there would find it pending).  Delivered before it
 * returns when not blocked. */
WT_EXPORT int raise(int sig)
{
	struct wt_task *t = task();
	wt_real_init();
	if (!t || sig == 32 || sig == 33)
		return real.raise(sig);
	if (sig < 0 || sig >= 65) {
		errno = EINVAL;
		return -1;
	}
	if (sig == 0)
		return 0;
	int r = wt_sig_send(t, sig);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return 0;
}

WT_EXPORT int gsignal(int sig)
{
	return raise(sig);
}

/* sigaltstack: on a task, the task's own alternate stack (sched/signal/sigstack.c);
 * the thread's is weft's.  Threads weft did not create use the kernel's. */
WT_EXPORT int sigaltstack(const stack_t *ss, stack_t *old)
{
	struct wt_task *t = task();
	long r = t ? wt_sigstack_set(t, ss, old, (uintptr_t)__builtin_frame_address(0))
		   : wt_syscall6(SYS_sigaltstack, (long)ss, (long)old, 0, 0, 0, 0);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return 0;
}

/* ---- sigsuspend, pause ----
 * On a task: sched/signal/sigtask.c's wait, with the task's mask replaced by the
 * call's for its duration; it returns once a handler ran on the task.  A
 * thread weft did not create calls libc.  Cancellation points. */

/* A cancellation point: pthread_cancel signals the worker while the call
 * is marked (wt_cancel_call_begin), which ends the wait (signal/sigtask.c). */
static int suspend(struct wt_task *t, uint64_t mask)
{
	wt_testcancel();
	if (wt_cancel_call_begin(t)) {
		wt_cancel_call_end(t);
		wt_cancel_act();
	}
	int r = wt_sig_suspend(t, mask);
	wt_cancel_call_end(t);
	wt_testcancel();
	return r;
}

WT_EXPORT int sigsuspend(const sigset_t *mask)
{
	struct wt_task *t = task();
	wt_real_init();
	if (!t)
		return real.sigsuspend(mask);
	errno = -suspend(t, bits_of(mask));
	return -1;
}

WT_EXPORT int pause(void)
{
	struct wt_task *t = task();
	wt_real_init();
	if (!t)
		return real.pause();
	errno = -suspend(t, t->sigmask);
	return -1;
}

/* ---- sigwait, sigwaitinfo, sigtimedwait ----
 * On a task: libc's sigtimedwait, inside the runtime's bracket for it
 * (sched/signal/sigtask.c: wt_sig_wait_begin/end), which hands it the task's
 * queued signals of the set. */


static int task_sigtimedwait(struct wt_task *t, const sigset_t *set, siginfo_t *info,
			     const struct timespec *ts)
{
	uint64_t want = bits_of(set);
	int64_t deadline = -1;
	if (ts) {
		if (!wt_ts_valid(ts) || ts->tv_sec < 0) {
			errno = EINVAL;
			return -1;
		}
		deadline = wt_nanotime() + (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
	}
	for (;;) {
		struct timespec left, *lp = NULL;
		if (deadline >= 0) {
			int64_t l = deadline - wt_nanotime();
			if (l < 0)
				l = 0;
			left.tv_sec = l / 1000000000;
			left.tv_nsec = l % 1000000000;
			lp = &left;
		}
		unsigned intr = wt_sig_wait_begin(t, want);
		if (wt_cancel_call_begin(t)) { /* a cancellation point */
			wt_cancel_call_end(t);
			wt_sig_wait_end(t, -1, EINTR, intr);
			wt_cancel_act();
		}
		int r = real.sigtimedwait(set, info, lp);
		int e = errno;
		wt_cancel_call_end(t);
		bool again = wt_sig_wait_end(t, r, e, intr);
		if (r < 0 && e == EINTR)
			wt_testcancel(); /* pthread_cancel ended the wait */
		if (!again)
			return r; /* errno as the call left it: the runtime leaves it alone */
		/* Interrupted by a poke, not by a handler: wait on. */
	}
}

WT_EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *ts)
{
	struct wt_task *t = task();
	wt_real_init();
	if (!t)
		return real.sigtimedwait(set, info, ts);
	wt_testcancel();
	return task_sigtimedwait(t, set, info, ts);
}

WT_EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	return sigtimedwait(set, info, NULL);
}

WT_EXPORT int sigwait(const sigset_t *set, int *sig)
{
	int r;
	do
		r = sigtimedwait(set, NULL, NULL);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno;
	*sig = r;
	return 0;
}
