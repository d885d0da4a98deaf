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
#include "../sched/real.h"
#include "../sched/start.h"
#include "../sched/syscall.h"
#include "../sched/timer.h"
#include "../sched/tls.h"

#define WT_EXPORT __attribute__((visibility("default")))

/* BLOCKING(ret, name, params, args) defines the interposed `name`: libc's
 * own function called between wt_entersyscall and wt_exitsyscall, errno and
 * return value kept as libc left them (sched/syscall.c).  Used by
 * shim/blocking.c and shim/fallback.c; tools/gen-exports.sh reads lines that
 * start with "BLOCKING(".  blocking.c may still carry its own copy: keep the
 * two texts identical (an identical redefinition is allowed). */
#define BLOCKING(ret, name, params, args)                                   \
	WT_EXPORT ret name params                                           \
	{                                                                   \
		wt_real_init();                                             \
		if (!wt_cur())                                              \
			return real.name args;                              \
		wt_entersyscall();                                          \
		ret r_ = real.name args;                                    \
		int e_ = errno;                                             \
		wt_exitsyscall();                                           \
		errno = e_;                                                 \
		return r_;                                                  \
	}

/* The caller's owner id, as glibc writes it in __owner: the tid field of the
 * caller's TCB (a task's unique fake tid, or a real thread's tid). */
static inline int wt_self_tid(void)
{
	int tid;
	__asm__ volatile("movl %%fs:(%1), %0" : "=r"(tid) : "r"(wt_off_tid));
	return tid;
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
