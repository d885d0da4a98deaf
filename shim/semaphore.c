/*
 * semaphore.c — unnamed process-private semaphores that park tasks.
 *
 * weft keeps glibc's own sem_t layout (struct new_sem, x86_64, glibc 2.36),
 * so a semaphore initialised by glibc and one initialised here agree:
 *   bytes 0-7    data: the value in the low 32 bits, the number of waiters
 *                (tasks past the fast path, not yet returned) in the high 32;
 *                waiters park on &data;
 *   bytes 8-11   private: glibc writes FUTEX_PRIVATE (0) for pshared == 0
 *                and FUTEX_SHARED (128) for process-shared semaphores and for
 *                every named one (sem_open maps them shared).  Only private
 *                == 0 is weft's; anything else goes to glibc, its waits
 *                BRACKETED (the proc goes to other tasks meanwhile).
 *   bytes 12-15  pad.
 *
 * wait: take a unit by CAS while the value is positive; else count in as a
 * waiter (the high half), and park while the value is 0.  post: add 1 by CAS
 * (EOVERFLOW at SEM_VALUE_MAX), then, if the waiter count was non-zero, wake
 * one.  A post between a waiter's check and its park changes the value, so
 * the park's validate refuses to sleep: no lost wake-up.  A woken waiter
 * may find the unit taken by a fast-path caller and parks again: the unit
 * went to someone, so nothing is lost; one that leaves without a unit
 * (timeout, cancel) never consumed a wake-up that carried one, because
 * units live in the value, not in the wake.
 * sem_wait, sem_timedwait and sem_clockwait are cancellation points.
 */
#include <limits.h>
#include <semaphore.h>

#include "shim.h"
#include "process/prio.h"
#include "signal/sighandler.h"
#include "core/task.h"

struct wsem {
	_Atomic uint64_t data;
	int private;
	int pad;
};
_Static_assert(sizeof(struct wsem) <= sizeof(sem_t), "sem_t layout");

#define VALUE(d) ((uint32_t)(d))
#define ONE_WAITER ((uint64_t)1 << 32)

static inline struct wsem *S(sem_t *s)
{
	return (struct wsem *)s;
}

static inline bool is_ours(sem_t *s)
{
	return __atomic_load_n(&S(s)->private, __ATOMIC_RELAXED) == 0;
}

/* ---- weft's semaphores ---- */

static bool trydown(struct wsem *s)
{
	uint64_t d = atomic_load_explicit(&s->data, memory_order_relaxed);
	while (VALUE(d) > 0)
		/* Acquire: pairs with the release CAS in sem_post. */
		if (atomic_compare_exchange_weak_explicit(&s->data, &d, d - 1, memory_order_acquire,
							  memory_order_relaxed))
			return true;
	return false;
}

static bool still_zero(const void *addr, uintptr_t arg)
{
	return VALUE(atomic_load_explicit((_Atomic uint64_t *)addr, memory_order_relaxed)) == 0;
}

/* Returns 0 or a positive errno; deadline mono ns or -1. */
static int down_slow(struct wsem *s, int64_t deadline)
{
	/* seq_cst: a post that misses this count added its unit before it, so
	 * the loop below sees the unit. */
	uint64_t d = atomic_fetch_add(&s->data, ONE_WAITER) + ONE_WAITER;
	struct wt_task *t = wt_cur();
	for (;;) {
		if (VALUE(d) > 0) {
			/* Take a unit and count out in one step. */
			if (atomic_compare_exchange_weak_explicit(&s->data, &d,
								  d - 1 - ONE_WAITER,
								  memory_order_acquire,
								  memory_order_relaxed))
				return 0;
			continue;
		}
		wt_wait_reason("sem_wait");
		wt_sig_restart_arm(t);
		int r = wt_park(&s->data, still_zero, 0, deadline, true);
		if (r == WT_PARK_TIMEDOUT || r == WT_PARK_CANCELED) {
			atomic_fetch_sub(&s->data, ONE_WAITER);
			if (r == WT_PARK_CANCELED)
				wt_cancel_act();
			return ETIMEDOUT;
		}
		/* A handler ran: glibc's sem_wait fails with EINTR, unless the
		 * kernel restarted its futex wait (no timeout, and every handler
		 * had SA_RESTART); its sem_timedwait always fails (a timed futex
		 * wait is never restarted). */
		if (r == WT_PARK_INTR && (deadline >= 0 || !wt_sig_restarts(t))) {
			atomic_fetch_sub(&s->data, ONE_WAITER);
			return EINTR;
		}
		d = atomic_load_explicit(&s->data, memory_order_relaxed);
	}
}

static int fail(int e)
{
	errno = e;
	return -1;
}

WT_EXPORT int sem_init(sem_t *sem, int pshared, unsigned value)
{
	if (value > SEM_VALUE_MAX)
		return fail(EINVAL);
	if (pshared) {
		wt_real_init();
		return real.sem_init(sem, pshared, value);
	}
	struct wsem *s = S(sem);
	atomic_store_explicit(&s->data, value, memory_order_relaxed);
	s->private = 0; /* glibc's FUTEX_PRIVATE */
	s->pad = 0;
	return 0;
}

WT_EXPORT int sem_destroy(sem_t *sem)
{
	if (!is_ours(sem)) {
		wt_real_init();
		return real.sem_destroy(sem);
	}
	return 0; /* as glibc: nothing to release */
}

WT_EXPORT int sem_wait(sem_t *sem)
{
	if (!is_ours(sem)) {
		wt_real_init();
		return CANCELABLE(KPRIO(real.sem_wait(sem)));
	}
	wt_testcancel();
	if (trydown(S(sem)))
		return 0;
	int r = down_slow(S(sem), -1);
	return r ? fail(r) : 0;
}

WT_EXPORT int sem_trywait(sem_t *sem)
{
	if (!is_ours(sem)) {
		wt_real_init();
		return real.sem_trywait(sem);
	}
	if (trydown(S(sem)))
		return 0;
	RETURN_POINT(); /* a loop of failed attempts never switches */
	return fail(EAGAIN);
}

static int timedwait(sem_t *sem, clockid_t clk, const struct timespec *abs)
{
	/* As glibc: clock and timespec are checked even when a unit is free. */
	if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)
		return fail(EINVAL);
	if (!wt_ts_valid(abs))
		return fail(EINVAL);
	wt_testcancel();
	if (trydown(S(sem)))
		return 0;
	int r = down_slow(S(sem), wt_deadline(clk, abs));
	return r ? fail(r) : 0;
}

WT_EXPORT int sem_timedwait(sem_t *sem, const struct timespec *abs)
{
	if (!is_ours(sem)) {
		wt_real_init();
		return CANCELABLE(KPRIO(real.sem_timedwait(sem, abs)));
	}
	return timedwait(sem, CLOCK_REALTIME, abs);
}

WT_EXPORT int sem_clockwait(sem_t *sem, clockid_t clk, const struct timespec *abs)
{
	if (!is_ours(sem)) {
		wt_real_init();
		return real.sem_clockwait ? CANCELABLE(KPRIO(real.sem_clockwait(sem, clk, abs))) : fail(EINVAL);
	}
	return timedwait(sem, clk, abs);
}

WT_EXPORT int sem_post(sem_t *sem)
{
	if (!is_ours(sem)) {
		wt_real_init();
		return real.sem_post(sem);
	}
	struct wsem *s = S(sem);
	uint64_t d = atomic_load_explicit(&s->data, memory_order_relaxed);
	do {
		if (VALUE(d) >= SEM_VALUE_MAX)
			return fail(EOVERFLOW);
		/* seq_cst: pairs with the waiter's count-in (see down_slow). */
	} while (!atomic_compare_exchange_weak(&s->data, &d, d + 1));
	if (d >> 32) {
		wt_unpark(&s->data, 1);
		wt_prio_point(); /* a real-time waiter above the caller runs now */
	}
	wt_sig_unlocked();
	RETURN_POINT();
	return 0;
}

WT_EXPORT int sem_getvalue(sem_t *sem, int *sval)
{
	if (!is_ours(sem)) {
		wt_real_init();
		return real.sem_getvalue(sem, sval);
	}
	*sval = (int)VALUE(atomic_load_explicit(&S(sem)->data, memory_order_relaxed));
	return 0;
}
