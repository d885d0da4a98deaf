/*
 * sigstack.c — alternate signal stacks per task.
 *
 * The kernel keeps one alternate signal stack per thread, and a worker's is
 * weft's own (m->sigstk: the fault handler and the SIGURG handler run
 * there).  A program's sigaltstack on a task sets the task's field instead
 * (t->sigstk; none for a new task, as for a new thread), and reads back
 * what that task set.  The program's handlers are registered with the
 * kernel without SA_ONSTACK (sighandler.c), so the trampoline runs on the
 * interrupted stack, the task's own; for a handler with SA_ONSTACK on a
 * task that has an alternate stack and is not on it already, the
 * trampoline (or crash.c, for a fault that chains to the program's
 * handler, whose handler runs on the worker's stack) calls the handler on
 * top of the task's stack (wt_call_on_stack, whose frame unwinders walk
 * through, so a handler may siglongjmp out or pthread_exit).  SS_ONSTACK
 * is reported while the caller's stack pointer is inside it;
 * SS_AUTODISARM disables it while the handler runs.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>

#include "core/runtime.h"
#include "sigstack.h"

#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1u << 31) /* the kernel's; glibc's headers may lack it */
#endif
#define KERNEL_MINSIGSTKSZ 2048  /* the kernel's check (glibc's MINSIGSTKSZ may be sysconf) */

static bool on(const struct wt_task *t, uintptr_t sp)
{
	uintptr_t lo = (uintptr_t)t->sigstk.ss_sp;
	return t->sigstk.ss_size && sp - lo < t->sigstk.ss_size;
}

static void view(const struct wt_task *t, uintptr_t sp, stack_t *out)
{
	if (!t->sigstk.ss_size) {
		memset(out, 0, sizeof *out);
		out->ss_flags = SS_DISABLE;
		return;
	}
	*out = t->sigstk;
	out->ss_flags = (t->sigstk.ss_flags & SS_AUTODISARM) | (on(t, sp) ? SS_ONSTACK : 0);
}

int wt_sigstack_set(struct wt_task *t, const stack_t *ss, stack_t *old, uintptr_t sp)
{
	stack_t prev;
	view(t, sp, &prev);
	if (ss) {
		if (on(t, sp))
			return -EPERM;
		int mode = ss->ss_flags & ~(int)SS_AUTODISARM;
		if (mode != 0 && mode != SS_DISABLE && mode != SS_ONSTACK)
			return -EINVAL;
		if (mode == SS_DISABLE) {
			memset(&t->sigstk, 0, sizeof t->sigstk);
		} else {
			if (ss->ss_size < KERNEL_MINSIGSTKSZ)
				return -ENOMEM;
			t->sigstk.ss_sp = ss->ss_sp;
			t->sigstk.ss_size = ss->ss_size;
			t->sigstk.ss_flags = ss->ss_flags & SS_AUTODISARM;
		}
	}
	if (old)
		*old = prev;
	return 0;
}

struct call {
	const struct sigaction *u;
	int sig;
	siginfo_t *si;
	void *uc;
};

static void call(void *arg)
{
	struct call *c = arg;
	if (c->u->sa_flags & SA_SIGINFO)
		c->u->sa_sigaction(c->sig, c->si, c->uc);
	else
		c->u->sa_handler(c->sig);
}

bool wt_sigstack_alt(const struct wt_task *t, const struct sigaction *u, uintptr_t sp)
{
	return (u->sa_flags & SA_ONSTACK) && t->sigstk.ss_size && !on(t, sp);
}

void wt_sigstack_call(struct wt_task *t, const struct sigaction *u, int sig, siginfo_t *si,
		      void *ucv, uintptr_t sp)
{
	struct call c = { u, sig, si, ucv };
	if (!t) {
		call(&c);
		return;
	}
	ucontext_t *uc = ucv;
	stack_t kernel = uc->uc_stack, saved = t->sigstk;
	bool alt = wt_sigstack_alt(t, u, sp);
	view(t, alt ? (uintptr_t)t->sigstk.ss_sp : sp, &uc->uc_stack);
	if (!alt) {
		call(&c);
	} else {
		uintptr_t top = ((uintptr_t)t->sigstk.ss_sp + t->sigstk.ss_size) & ~(uintptr_t)15;
		if (t->sigstk.ss_flags & SS_AUTODISARM)
			memset(&t->sigstk, 0, sizeof t->sigstk);
		wt_call_on_stack((void *)top, call, &c);
		if (saved.ss_flags & SS_AUTODISARM)
			t->sigstk = saved;
	}
	/* sigreturn restores the thread's alternate stack from the frame:
	 * weft's own, as the kernel recorded it. */
	uc->uc_stack = kernel;
}
