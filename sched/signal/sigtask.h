/*
 * sigtask.h — per-task signal masks and thread-directed signals (sigtask.c).
 *
 * A task's mask is applied to its worker thread after the switch, on the
 * task (wt_sig_switchin); a switch first blocks what the next task blocks
 * more (wt_sig_preswitch), so a task's code never runs unblocked for a
 * signal it blocks.  SIGSEGV and SIGBUS (crash reports, trap-mode TLS) and
 * SIGURG (pokes, preemption) stay unblocked at the thread level;
 * SIGKILL/SIGSTOP cannot be blocked.
 */
#ifndef WEFT_SIGTASK_H
#define WEFT_SIGTASK_H

#include "core/runtime.h"

#define WT_SIGBIT(s) (1ull << ((s) - 1))
#define WT_SIG_KEEP (WT_SIGBIT(SIGSEGV) | WT_SIGBIT(SIGBUS) | WT_SIGBIT(SIGURG) | \
		     WT_SIGBIT(SIGKILL) | WT_SIGBIT(SIGSTOP))
#define WT_SIGMASK_UNKNOWN (~0ull)
extern int wt_pid;                         /* getpid(), refreshed in a fork child */
extern _Atomic uint64_t wt_sig_procpend;   /* pending for the process (sighandler.c) */
void wt_sig_init(void);                    /* start: pid, uid */
int wt_sig_uid(void);                      /* the real user id, for a siginfo */
void wt_sig_uid_refresh(void);             /* after a change of ids (process/setxid.c) */
/* *si emptied and filled as a signal sig this process sends itself with
 * code (SI_TKILL, SI_QUEUE, ...): sender pid and real uid.  Context: any. */
void wt_sig_info_self(siginfo_t *si, int sig, int code);
uint64_t wt_sig_thread_init(struct wt_m *m); /* a worker thread, first thing */
void wt_sig_block_all(void);               /* sysmon */
/* A dormant start (core/start.c): hold returns the thread's mask and blocks all
 * but the faults; release gives the thread its mask back, as m's. */
uint64_t wt_sig_start_hold(void);
void wt_sig_start_release(struct wt_m *m, uint64_t mask);
void wt_sig_block_program(void);           /* process/pshared.c's holders: all but SIGURG */
void wt_sig_block_more(struct wt_m *m, uint64_t more);
void wt_sig_idle(struct wt_m *m);          /* g0, before it sleeps: takes handled ones */
void wt_sig_switchin_slow(struct wt_task *t);
void wt_sig_deliver(struct wt_task *t);    /* on t: raise what t may take now */
int wt_sig_send(struct wt_task *t, int sig); /* pthread_kill to a task: 0 or -errno */
void wt_sig_setmask(struct wt_task *t, uint64_t mask);
/* A program handler runs on t: t's mask gains what the kernel blocks on the
 * thread meanwhile (the handler's sa_mask, and sig unless SA_NODEFER);
 * returns the mask to give back when the handler returns (sigreturn's). */
uint64_t wt_sig_handler_enter(struct wt_task *t, uint64_t block);
void wt_sig_handler_leave(struct wt_task *t, uint64_t old);
void wt_sig_task_exit(struct wt_task *t);  /* t exiting: run, then block all */
void wt_sig_barrier(void);                 /* a sender's side of the signal Dekker pairs */
void wt_sig_urg_send(int tid, union sigval v); /* weft's SIGURG, value v */
void wt_sig_poke(struct wt_m *m);          /* SIGURG to m's thread */
/* Raises a program's signal sig on this thread, whose worker is m (NULL:
 * a thread weft did not create), for task t (NULL: m's g0), with siginfo
 * si (NULL: tgkill's), its handler to run as the signal is delivered here:
 * through wt_syscall6_sigok when sigok, so the trampoline runs it in the
 * call; else it runs once the caller has left weft.  SIGURG is kept on m
 * and carried by a marked SIGURG of weft's, since one of weft's pending
 * on the thread would absorb it (sigtask.c).  Context: t on m, or m's g0
 * (a handler included). */
void wt_sig_raise(struct wt_m *m, struct wt_task *t, int sig, const siginfo_t *si, bool sigok);
/* The SIGURG handler (core/preempt.c), after its own work, on any SIGURG: the
 * program's SIGURG kept on this thread's worker, if the task it runs
 * takes it (*si its siginfo; then the caller runs the program's handler).
 * Context: the SIGURG handler. */
bool wt_sig_urg_owed(siginfo_t *si);
/* sigwait on t (sigtask.c), around the caller's wait in the kernel for
 * set: begin enters the system call and returns a token for end; end takes
 * the wait's result (r, and its errno err when r < 0), leaves the system
 * call, and returns whether to wait again (weft's SIGURG, not a program
 * handler, ended the wait).  Context: t. */
unsigned wt_sig_wait_begin(struct wt_task *t, uint64_t set);
bool wt_sig_wait_end(struct wt_task *t, int r, int err, unsigned intr);
/* sigsuspend(mask) on t: returns -EINTR once a program handler ran on t.
 * Context: t; blocks its worker (a system call of t's). */
int wt_sig_suspend(struct wt_task *t, uint64_t mask);
/* How many program handlers have run on t.  A call of t's that ends with
 * EINTR while this stood still was ended by weft's own SIGURG (a
 * preemption request, a poke), not by the program's.  Context: t. */
static inline unsigned wt_sig_handler_runs(const struct wt_task *t)
{
	return __atomic_load_n(&t->sighandled, __ATOMIC_RELAXED);
}
/* A wait that the kernel restarts after a handler with SA_RESTART and ends
 * with EINTR after one without (a read or write on a descriptor with no
 * timeout, an untimed FUTEX_WAIT, glibc's untimed sem_wait): arm before
 * parking; after WT_PARK_INTR, restarts says whether every handler that
 * ran meanwhile had SA_RESTART (sighandler.c sets t->sig_norestart), and
 * then the wait goes on, as natively.  Context: t. */
static inline void wt_sig_restart_arm(struct wt_task *t)
{
	if (t)
		t->sig_norestart = false;
}
static inline bool wt_sig_restarts(const struct wt_task *t)
{
	return !(t && t->sig_norestart);
}
/* Sent to t and not yet raised (sigpending). */
static inline uint64_t wt_sig_pending(struct wt_task *t)
{
	return atomic_load(&t->sigpend);
}
bool wt_sig_urg(siginfo_t *si, void *uc);  /* SIGURG handler: a poke of ours? */
void wt_sig_poked(void *uc);               /* SIGURG handler: any of ours */
bool wt_sig_call_is_own(const struct wt_task *t); /* a call at the pc is t's bracketed one */
int wt_sig_call_depth(const struct wt_m *m); /* explicit entersyscall depth */

static inline uint64_t wt_sig_eff(uint64_t mask) { return mask & ~WT_SIG_KEEP; }
/* Context: the switching side (a task or g0), before switching to next. */
static inline void wt_sig_preswitch(struct wt_m *m, struct wt_task *next)
{
	uint64_t more = wt_sig_eff(next->sigmask) & ~m->sigmask;
	if (unlikely(more))
		wt_sig_block_more(m, more);
}
/* Context: t, just switched in (after wt_finish_switch: no lock held). */
static inline void wt_sig_switchin(struct wt_task *t)
{
	atomic_thread_fence(memory_order_seq_cst); /* the pair of wt_sig_send's */
	if (unlikely((wt_sig_eff(t->sigmask) != t->m->sigmask) |
		     (atomic_load_explicit(&t->sigpend, memory_order_relaxed) != 0) |
		     ((atomic_load_explicit(&wt_sig_procpend, memory_order_relaxed) & ~t->sigmask) != 0) |
		     (atomic_load_explicit(&t->m->defer_ready, memory_order_relaxed) != 0)))
		wt_sig_switchin_slow(t);
}

#endif
