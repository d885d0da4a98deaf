/*
 * shim.h — what every interposed entry point shares.
 *
 * WT_EXPORT marks an interposed name; shim/exports.map lists the same names
 * (an anonymous version node: a named one makes the dynamic linker bind the
 * program's pthread_*@GLIBC_2.x references to glibc, silently).
 */
#ifndef WEFT_SHIM_H
#define WEFT_SHIM_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "core/runtime.h"
#include "observe/pprof.h"
#include "core/preempt.h"
#include "process/prio.h"
#include "process/pshared.h"
#include "signal/sigtask.h"
#include "base/real.h"
#include "core/start.h"
#include "io/syscall.h"
#include "core/task.h"
#include "core/timer.h"
#include "stack/tls.h"

#define WT_EXPORT __attribute__((visibility("default")))

/* WT_OWN(name): wt_own_name, a hidden alias of the interposed name, for
 * another shim file to call weft's own definition (shim/c11threads.c): a
 * call to the exported name would go through the PLT, to whichever
 * definition the process binds first.  Written after the definition, in
 * its file; WT_OWN_DECL(name) declares it where it is called.  Both carry
 * libc's declared attributes (noreturn, nothrow...). */
#define WT_OWN(name)                                                       \
	extern __typeof__(name) wt_own_##name                              \
		__attribute__((alias(#name), copy(name), visibility("hidden")))
#define WT_OWN_DECL(name) \
	extern __typeof__(name) wt_own_##name __attribute__((copy(name), visibility("hidden")))

/* RETURN_POINT(): an interposed call that did not switch returns to the
 * program now; a preemption that found no safe point in weft's or libc's
 * code on the way is done here (sched/core/preempt.h).  A macro: it names the
 * return address of the exported function it is written in. */
#define RETURN_POINT() wt_preempt_return_point((uintptr_t)__builtin_return_address(0))

/* BRACKETED(call): the value of call, a libc call that may block, made
 * between wt_entersyscall and wt_exitsyscall (sched/io/syscall.c), so that
 * the proc goes to other tasks while it blocks.  The value and errno are
 * as the call left them (the runtime never touches errno, and wt_exitsyscall
 * may switch the task to another worker, but its TLS goes with it).  A
 * thread weft did not create (wt_cur() == NULL) makes the call plainly.  call must have a value: (f(), 0) for a void f.
 * Context: any caller; may block the worker, never parks. */
#define BRACKETED(call)                                   \
	({                                                \
		__typeof__(call) r_;                      \
		if (!wt_cur()) {                          \
			r_ = (call);                      \
		} else {                                  \
			int64_t b0_ = wt_bprof_begin();   \
			wt_entersyscall();                \
			r_ = (call);                      \
			wt_exitsyscall();                 \
			if (unlikely(b0_))                \
				wt_bprof_waited(b0_);     \
		}                                         \
		r_;                                       \
	})

/* CANCELABLE(call): BRACKETED(call) for a libc call that is a
 * cancellation point, as glibc's own is: a cancel pending when it starts
 * is acted on instead, and one that arrives while it blocks ends it with
 * EINTR (its worker is signalled: sched/core/preempt.c) and is then acted on
 * (glibc 2.36 acts on it whenever it arrives during the call; a call that
 * completed keeps its result here, and the next cancellation point acts).
 * Context: as BRACKETED; may unwind the task (cleanup handlers run). */
#define CANCELABLE(call)                                          \
	({                                                        \
		__typeof__(call) r_;                              \
		struct wt_task *t_ = wt_cur();                    \
		if (!t_) {                                        \
			r_ = (call);                              \
		} else {                                          \
			wt_testcancel();                          \
			int64_t b0_ = wt_bprof_begin();           \
			wt_entersyscall();                        \
			if (wt_cancel_call_begin(t_)) {           \
				wt_cancel_call_end(t_);           \
				wt_exitsyscall();                 \
				wt_cancel_act();                  \
			}                                         \
			r_ = (call);                              \
			int e_ = errno;                           \
			wt_cancel_call_end(t_);                   \
			wt_exitsyscall();                         \
			if (unlikely(b0_))                        \
				wt_bprof_waited(b0_);             \
			if (r_ < 0 && e_ == EINTR) /* -1 or -EINTR */ \
				wt_testcancel();                  \
		}                                                 \
		r_;                                               \
	})

/* CANCELABLE_RETRY(call): CANCELABLE(call), made again while it fails
 * with EINTR that no handler of the program's caused.  The kernel never
 * restarts poll, select, epoll_wait and their masked forms: they end with
 * EINTR at any handled signal, weft's own SIGURG included (sysmon's
 * preemption request, or a poke, that lands as the call begins: sysmon
 * signals no worker it sees blocked, but may have decided just before).
 * Natively there is no such signal, so the call is made again; one that a
 * program handler interrupted (wt_sig_handler_runs moved) fails, as natively.
 * call is evaluated afresh each time, so it can compute what is left of
 * its timeout.  Context: as CANCELABLE. */
#define CANCELABLE_RETRY(call)                                                          \
	({                                                                              \
		__typeof__(call) a_;                                                    \
		struct wt_task *at_ = wt_cur();                                         \
		for (;;) {                                                              \
			unsigned h_ = at_ ? wt_sig_handler_runs(at_) : 0;                    \
			a_ = CANCELABLE(call);                                          \
			if (!at_ || !(a_ < 0 && errno == EINTR) || wt_sig_handler_runs(at_) != h_) \
				break;                                                  \
		}                                                                       \
		a_;                                                                     \
	})

/* PSHARED(call): the value of call, glibc's function on a process-shared
 * mutex, condition variable or rwlock, made with the task's process-shared
 * owner id in its TCB (sched/process/pshared.c), since glibc records owners by that
 * field.  PSHARED(BRACKETED(call)) for one that may block.
 * Context: any caller. */
#define PSHARED(call)                                     \
	({                                                \
		int tid_ = wt_pshared_enter();            \
		__typeof__(call) rp_ = (call);            \
		wt_pshared_leave(tid_);                   \
		rp_;                                      \
	})

/* KPRIO(call): the value of call, a wait in the kernel on a futex other
 * processes may share, made with the worker thread at the calling task's
 * real-time policy and priority (sched/process/prio.c: wt_prio_kernel_lend), so
 * the kernel wakes its waiters highest priority first across processes.
 * Inside BRACKETED or CANCELABLE.  Context: any caller. */
#define KPRIO(call)                                             \
	({                                                      \
		struct wt_kprio k_ = wt_prio_kernel_lend();     \
		__typeof__(call) rk_ = (call);                  \
		wt_prio_kernel_restore(k_);                     \
		rk_;                                            \
	})

/* What KWAIT changed around a wait, put back by its cleanup when a cancel
 * unwinds the task from inside the wait. */
struct wt_kwait {
	struct wt_task *t;
	bool pshared;       /* the owner id was put in the TCB */
	int tid;            /* wt_pshared_enter's value to restore */
	struct wt_kprio k;  /* the worker's kernel policy to restore */
};

static inline void wt_kwait_unwound(void *arg)
{
	struct wt_kwait *w = arg;
	wt_prio_kernel_restore(w->k);
	wt_cancel_wait_unwound(w->t);
	if (w->pshared)
		wt_pshared_leave(w->tid);
	wt_exitsyscall();
}

/* KWAIT(ps, call): BRACKETED(KPRIO(call)), inside PSHARED when ps, for a
 * wait in the kernel that is no cancellation point: glibc's lock of a
 * process-shared mutex or rwlock, its shared barrier's wait, a shared
 * futex wait of weft's own protocol made through libc's syscall().  A
 * task with asynchronous cancellation enabled is cancelled during the
 * wait, as glibc's cancellation signal acts anywhere natively: its worker
 * is signalled and the task unwinds from inside the system call
 * (WT_CALL_ASYNC, sched/core/preempt.c), this frame's cleanup putting back what
 * it changed.  Otherwise the wait goes on (deferred cancellation never
 * acts in a lock).  Context: any caller; may unwind the task. */
#define KWAIT(ps, call)                                                       \
	({                                                                    \
		__typeof__(call) r_;                                          \
		struct wt_task *t_ = wt_cur();                                \
		if (!t_ || !wt_cancel_async_on(t_)) {                         \
			if (ps)                                               \
				r_ = PSHARED(BRACKETED(KPRIO(call)));         \
			else                                                  \
				r_ = BRACKETED(KPRIO(call));                  \
		} else {                                                      \
			struct wt_kwait w_ = { t_, (ps), 0, { -1, 0 } };      \
			pthread_cleanup_push(wt_kwait_unwound, &w_);          \
			if (w_.pshared)                                       \
				w_.tid = wt_pshared_enter();                  \
			wt_entersyscall();                                    \
			wt_cancel_async_wait_begin(t_);                       \
			w_.k = wt_prio_kernel_lend();                         \
			r_ = (call);                                          \
			wt_prio_kernel_restore(w_.k);                         \
			w_.k = (struct wt_kprio){ -1, 0 };                    \
			wt_cancel_call_end(t_);                               \
			wt_exitsyscall();                                     \
			if (w_.pshared)                                       \
				wt_pshared_leave(w_.tid);                     \
			pthread_cleanup_pop(0);                               \
		}                                                             \
		r_;                                                           \
	})

/* BLOCKING(ret, name, params, args) defines the interposed `name`: libc's
 * own function, BRACKETED.  Used by shim/blocking.c and shim/fallback.c;
 * tools/gen-exports.sh reads lines that start with "BLOCKING(". */
#define BLOCKING(ret, name, params, args)             \
	WT_EXPORT ret name params                     \
	{                                             \
		wt_real_init();                       \
		return BRACKETED(real.name args);     \
	}

/* CANCEL_POINT(ret, name, params, args): as BLOCKING, for a cancellation
 * point (CANCELABLE).  tools/gen-exports.sh reads these lines too. */
#define CANCEL_POINT(ret, name, params, args)         \
	WT_EXPORT ret name params                     \
	{                                             \
		wt_real_init();                       \
		return CANCELABLE(real.name args);    \
	}

/* The caller's owner id, as glibc writes it in __owner: the tid field of the
 * caller's TCB (a task's unique fake tid, or a real thread's tid).  The
 * initial thread of a dormant process (sched/core/start.c) gives the main
 * task's, which its TCB holds once the runtime starts: a mutex main locks
 * before the start is still its own after it. */
/* The caller is a dormant process's initial thread (sched/core/start.c). */
static inline bool wt_dormant_self(void)
{
	uintptr_t d = atomic_load_explicit(&wt_dormant_tcb, memory_order_relaxed);
	return d && d == wt_arch_tcb_self();
}

static inline int wt_self_tid(void)
{
	uintptr_t d = atomic_load_explicit(&wt_dormant_tcb, memory_order_relaxed);
	if (unlikely(d) && d == wt_arch_tcb_self())
		return WT_MAIN_TID;
	return wt_arch_self_tid_at(wt_off_tid);
}

/* The mask a task's ppoll, pselect or epoll_pwait puts on its worker's
 * thread while it waits: the program's, less the signals weft must always
 * take (SIGSEGV and SIGBUS: its fault handler, which in trap mode repairs
 * the thread pointer a handler run during the wait may find reverted;
 * SIGURG: preemption and pokes), as pthread_sigmask keeps them open. */
static inline const sigset_t *wt_wait_mask(const sigset_t *m, sigset_t *buf)
{
	if (!m || !wt_runtime_on())
		return m;
	*buf = *m;
	sigdelset(buf, SIGSEGV);
	sigdelset(buf, SIGBUS);
	sigdelset(buf, SIGURG);
	return buf;
}

static inline bool wt_ts_valid(const struct timespec *ts)
{
	return ts && ts->tv_nsec >= 0 && ts->tv_nsec < 1000000000;
}

/* Deadline in mono ns from an absolute time on clk. */
static inline int64_t wt_deadline(clockid_t clk, const struct timespec *abs)
{
	return wt_abs_to_mono(clk, abs);
}

/* syscall(SYS_gettid / SYS_tgkill / SYS_tkill) for a task's ids (clock.c). */
long wt_shim_id_syscall(long nr, long a, long b, long c);
/* The system calls through syscall() that take or give a thread id
 * (tid.c; args a[0..5]): the value syscall() returns, -1 and errno. */
long wt_shim_tid_syscall(long nr, const long *a);
/* The scheduling ones among them (sched.c): the kernel's form of the
 * answer, for a task's values. */
long wt_shim_sched_syscall(long nr, const long *a);
/* The task an id names (sched.c): 0 the caller, the id in its TCB, the id
 * gettid() gives, the process id (main), or a worker's id (the task it
 * runs now, or &wt_shim_no_task when none: ESRCH); NULL for any other id
 * or a caller weft did not create (the kernel's to answer). */
struct wt_task *wt_shim_task_of_id(pid_t id);
extern struct wt_task wt_shim_no_task;

/* The CPU mask pthread_getattr_np puts in its attribute (sched.c): t's,
 * or the caller's for a thread that exited (NULL), as glibc asks for it:
 * 32 bytes, doubled while the kernel's mask needs more.  The bytes filled,
 * 0 when none fit in size.  Context: inside t's lookup section. */
size_t wt_shim_attr_aff(struct wt_task *t, cpu_set_t *set, size_t size);

/* Internal mutex entry points (cond waits re-lock without the export). */
int wt_mutex_lock(pthread_mutex_t *m, int64_t deadline);
int wt_mutex_unlock(pthread_mutex_t *m);
int wt_mutex_releasable(pthread_mutex_t *m);
void wt_mutex_release(struct wt_m *w, void *m);

#endif
