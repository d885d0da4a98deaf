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

#include "../sched/runtime.h"
#include "../sched/pshared.h"
#include "../sched/real.h"
#include "../sched/start.h"
#include "../sched/syscall.h"
#include "../sched/timer.h"
#include "../sched/tls.h"

#define WT_EXPORT __attribute__((visibility("default")))

/* BRACKETED(call): the value of call, a libc call that may block, made
 * between wt_entersyscall and wt_exitsyscall (sched/syscall.c), so that
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
			wt_entersyscall();                \
			r_ = (call);                      \
			wt_exitsyscall();                 \
		}                                         \
		r_;                                       \
	})

/* PSHARED(call): the value of call, glibc's function on a process-shared
 * mutex, condition variable or rwlock, made with the task's process-shared
 * owner id in its TCB (sched/pshared.c), since glibc records owners by that
 * field.  PSHARED(BRACKETED(call)) for one that may block.
 * Context: any caller. */
#define PSHARED(call)                                     \
	({                                                \
		int tid_ = wt_pshared_enter();            \
		__typeof__(call) rp_ = (call);            \
		wt_pshared_leave(tid_);                   \
		rp_;                                      \
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

/* The caller's owner id, as glibc writes it in __owner: the tid field of the
 * caller's TCB (a task's unique fake tid, or a real thread's tid). */
static inline int wt_self_tid(void)
{
	return wt_arch_self_tid_at(wt_off_tid);
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

/* Internal mutex entry points (cond waits re-lock without the export). */
int wt_mutex_lock(pthread_mutex_t *m, int64_t deadline);
int wt_mutex_unlock(pthread_mutex_t *m);

#endif
