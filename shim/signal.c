/*
 * signal.c — keeping SIGSEGV and SIGBUS for weft (sched/crash.c), and
 * SIGURG for preemption (sched/preempt.c).
 *
 * The program's handlers for them are recorded and chained from weft's
 * handlers; masks never block them at the OS level, because a blocked
 * synchronous SIGSEGV kills the process, weft's trap-mode TLS repair
 * (sched/tls.c) arrives as one, and a blocked SIGURG would stop
 * preemption.  So a program that blocks SIGURG still has its handler run
 * for a SIGURG sent meanwhile (README, known limits).  Per-task signal masks and pthread_kill to
 * a parked task are issue 3's; here the mask applies to the worker thread.
 */
#include <signal.h>
#include <string.h>

#include "shim.h"

extern struct sigaction wt_user_sa[65];
extern bool wt_user_sa_set[65];

static bool owned(int sig)
{
	return (sig == SIGSEGV || sig == SIGBUS || sig == SIGURG) && wt_runtime_on();
}

WT_EXPORT int sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
	wt_real_init();
	if (!owned(sig))
		return real.sigaction(sig, sa, old);
	struct sigaction prev = wt_user_sa[sig];
	if (!wt_user_sa_set[sig]) {
		memset(&prev, 0, sizeof prev);
		prev.sa_handler = SIG_DFL;
	}
	if (sa) {
		wt_user_sa[sig] = *sa;
		wt_user_sa_set[sig] = sa->sa_handler != SIG_DFL;
	}
	if (old)
		*old = prev;
	return 0;
}

WT_EXPORT __sighandler_t signal(int sig, __sighandler_t h)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = h;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
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

WT_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t buf;
	wt_real_init();
	return real.pthread_sigmask(how, strip(set, &buf), old);
}

WT_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t buf;
	wt_real_init();
	int r = real.pthread_sigmask(how, strip(set, &buf), old);
	if (r) {
		errno = r;
		return -1;
	}
	return 0;
}

WT_EXPORT int pthread_kill(pthread_t th, int sig)
{
	struct wt_task *t = wt_task_from_pthread(th);
	wt_real_init();
	if (!t)
		return real.pthread_kill(th, sig);
	if (sig < 0 || sig >= 65)
		return EINVAL;
	if (atomic_load(&t->state) == WT_DEAD)
		return ESRCH;
	if (sig == 0)
		return 0;
	/* To itself: this worker thread runs the handler on the task's stack.
	 * To another task: the worker it last ran on (issue 3 makes this exact). */
	struct wt_m *m = t == wt_cur() ? t->m : t->m;
	long pid = wt_syscall6(39 /* getpid */, 0, 0, 0, 0, 0, 0);
	long r = wt_syscall6(234 /* tgkill */, pid, m ? m->ostid : pid, sig, 0, 0, 0);
	return r < 0 ? (int)-r : 0;
}
