/*
 * sighandler.h — the program's signal handlers run through weft's
 * trampoline, which defers those that interrupt weft's own code
 * (sighandler.c).
 */
#ifndef WEFT_SIGHANDLER_H
#define WEFT_SIGHANDLER_H

#include <signal.h>

#include "core/runtime.h"

/* sigaction for a signal weft takes (wt_sig_takes): the kernel keeps
 * weft's handler (SIGSEGV, SIGBUS, SIGURG) or gets the trampoline, and the
 * program's handler is recorded.  0 or -errno, as libc's sigaction fails.
 * Context: any (async-signal-safe). */
bool wt_sig_takes(int sig);
int wt_sig_action(int sig, const struct sigaction *sa, struct sigaction *old);

/* Installs one of weft's own handlers (the fault handler, SIGURG's, the
 * SIGQUIT dump's) with weft's sigreturn path (arch: wt_arch_sigaction_restorer) as
 * its SA_RESTORER, so a signal that lands on the handler's way back to a
 * context inside weft is deferred as one inside weft is: libc's path is
 * outside libweft.  0 or -errno; *old (may be NULL) as sigaction's.
 * Context: any. */
int wt_sig_install_own(int sig, const struct sigaction *sa, struct sigaction *old);

/* The program's handlers for the signals weft takes, one record each
 * (sighandler.c: written on any thread, read by handlers on any thread;
 * a reader sees a record whole and never waits).  Context: any, a signal
 * handler included; sig in 1..64. */
/* The recorded handler in *out (out may be NULL); false: none. */
bool wt_sig_handler_get(int sig, struct sigaction *out);
/* Records sa (NULL: forgets); the previous one in *old (old may be NULL),
 * returning whether there was one. */
bool wt_sig_handler_set(int sig, const struct sigaction *sa, struct sigaction *old);
/* As get, for a delivery: a one-shot handler (SA_RESETHAND) is forgotten. */
bool wt_sig_handler_take(int sig, struct sigaction *out);
/* The signals with a handler recorded (bit sig-1). */
uint64_t wt_sig_handled(void);
void wt_sig_handlers_fork_reset(void);      /* fork child */
/* A start after the program ran without the runtime (core/start.c: dormant):
 * read reads the kernel's dispositions, before weft installs its own
 * handlers; adopt then records and installs them as sigaction would have
 * (the trampoline for a handler).  Context: the start, initial thread. */
void wt_sig_adopt_read(void);
void wt_sig_adopt(void);
void wt_sig_vfork_child(void);             /* vfork child: the program's dispositions */

void wt_sig_trampoline(int sig, siginfo_t *si, void *uc);

/* A program handler running on a task (t->sigframe): the trampoline's
 * record of it, on the trampoline's own stack.  [owner m; handler] */
struct wt_sigframe {
	struct wt_sigframe *prev; /* the handler it interrupted, NULL = none */
	uintptr_t lo, hi;         /* the stack the record lies on, [0, 0) = unknown */
	uintptr_t run_lo, run_hi; /* the stack the handler runs on, as lo and hi */
	int callbase;             /* wt_sig_call_depth of the worker at its start */
	int insyscall;            /* the worker's bracket depth at its start */
};
/* A longjmp to a point whose stack pointer is sp: the handlers it leaves
 * (those whose record lies below sp on the stack sp is on) are over, as
 * if they had returned: unlinked, and the system-call brackets their
 * interrupted code entered are ended.  mask: the signal mask sigsetjmp
 * saved, which glibc's longjmp gives the thread (NULL: none saved): t's
 * own from now on.  Context: t, program code (a handler's, maybe); may
 * switch (a bracket's end that lost its proc), as a handler's own
 * blocking call may. */
void wt_sig_longjmp(struct wt_task *t, uintptr_t sp, const uint64_t *mask);
bool wt_sig_defer_poke(void);               /* sysmon: poke threads with deferred ones */
void wt_sig_sweep(int64_t now);             /* sysmon: handled ones stuck in the kernel */
void wt_sig_redeliver(void *uc);            /* a poke on this thread: raise them again */
/* Would the trampoline hold back a handler that interrupted uc (weft's
 * code or locks)?  Context: a signal handler. */
bool wt_sig_in_weft(const void *uc);
void wt_sig_defer_run(struct wt_m *m);      /* m, outside weft's locks: run or hand them on */
/* Context: a task or g0 on m, outside weft's locks and switches. */
static inline void wt_sig_defer_check(struct wt_m *m)
{
	if (unlikely(atomic_load_explicit(&m->defer_ready, memory_order_relaxed)))
		wt_sig_defer_run(m);
}
/* A task at a point outside weft's locks and switches (it released a lock
 * of the program's, or yields): what interrupted weft on its worker runs
 * now, since a loop of such calls may never pass a switch.  Not inside a
 * blocking call of a handler's.  Context: any thread. */
static inline void wt_sig_unlocked(void)
{
	struct wt_task *t = wt_cur();
	if (t && unlikely((atomic_load_explicit(&t->sigpend, memory_order_relaxed) & ~t->sigmask) |
			  atomic_load_explicit(&t->m->defer_ready, memory_order_relaxed)) &&
	    !t->m->insyscall)
		wt_sig_defer_run(t->m);
}
/* sig queued to task t with siginfo si (rt_tgsigqueueinfo, pthread_sigqueue):
 * t's handler gets si; while one of its kind is on its way to a task with
 * a siginfo, t gets it as pthread_kill sends it.  Context: any thread,
 * holding no weft lock. */
void wt_sig_send_info(struct wt_task *t, int sig, const siginfo_t *si);
/* The siginfo of sig handed to t by another thread (to_main, route). */
bool wt_sig_handed_info(struct wt_task *t, int sig, siginfo_t *out);
/* Pending for the process, handed to no task yet (sigpending's process
 * part; sighandler.c).  [atomic] */
extern _Atomic uint64_t wt_sig_procpend;
uint64_t wt_sig_proc_pending(void);
/* t does not block or waits for `want`: raises on its thread those pending
 * for the process, and returns them. */
uint64_t wt_sig_proc_take(struct wt_task *t, uint64_t want);
/* t stopped taking `bits` (blocked them, or exits): other tasks that take
 * them are asked to look.  Context: t, after storing its mask. */
void wt_sig_proc_retarget(struct wt_task *t, uint64_t bits);
/* kill or sigqueue to this process from a task: 0, or -ENOSYS when the
 * kernel is to send it (no program handler).  Context: a task. */
int wt_sig_send_process(int sig, int code, union sigval v);
/* Pending for the process, not blocked by t.  Context: any. */
static inline uint64_t wt_sig_proc_for(const struct wt_task *t)
{
	return atomic_load_explicit(&wt_sig_procpend, memory_order_relaxed) &
	       ~__atomic_load_n(&t->sigmask, __ATOMIC_RELAXED);
}

#endif
