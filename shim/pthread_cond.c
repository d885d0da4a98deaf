/*
 * pthread_cond.c — condition variables that park tasks.
 *
 * Layout inside the program's pthread_cond_t (48 bytes, zero = valid
 * PTHREAD_COND_INITIALIZER), a counted key of the parking lot (core/park.h):
 *   word 0 (low half of glibc's __wseq)  seq: bumped by every signal and
 *                                        broadcast; waiters park on &seq;
 *   word 1                               nwaiters: tasks queued on seq, or
 *                                        about to be;
 *   __wrefs                              glibc's flags, as pthread_cond_init
 *                                        writes them: bit 0 process-shared,
 *                                        bit 1 CLOCK_MONOTONIC (which word:
 *                                        wrefs_word).
 * seq and nwaiters are written only under seq's bucket lock, so neither
 * side of a wait spends a locked instruction on them.
 * Process-shared condvars are left to glibc, their waits made PSHARED and
 * BRACKETED (shim.h): the owner id glibc's re-lock records is unique across
 * processes, and the proc goes to other tasks while the worker sleeps in the
 * kernel.  Such a wait is a cancellation point as glibc's is (shared_wait):
 * glibc's wait would only wait again after an EINTR, so a cancel that comes
 * while the task sleeps in it unwinds the task from inside the call
 * (WT_CALL_UNWIND, sched/core/preempt.c), as glibc's own cancellation signal
 * does: glibc's cleanup re-locks the mutex (with the owner id still in the
 * TCB), then shared_wait's puts back what it changed around the call.  A
 * robust, priority or process-shared mutex under a private condvar is
 * unlocked and re-locked by glibc too (wt_mutex_*).
 *
 * wait, with a mutex of weft's: queue on seq, counted in, with the mutex
 * still held; the worker releases the mutex once the task is off its
 * stack (wt_park_release), so no signal can come between the release and
 * the queueing.  When the worker goes straight on to a woken waiter of
 * the same mutex, the mutex passes to it instead (wt_mutex_release), and
 * neither side spends a locked instruction on it.  With glibc's mutexes (or a recursive one held more than
 * once) the task must unlock it itself: read seq and count in, unlock,
 * then park while seq is unchanged; a signal between the unlock and the
 * park changed seq, so the park refuses to sleep: no lost wake-up.
 * signal: nothing when nwaiters is 0; else, under the bucket lock, seq
 * moves on and the first waiter is dequeued and counted out.  A waiter may
 * wake for a signal meant for another (a spurious wake-up, which POSIX
 * allows).  broadcast wakes all rather than requeueing them on the mutex
 * (glibc >= 2.25 does the same).
 */
#include <stddef.h>
#include <string.h>

#include "shim.h"
#include "process/prio.h"
#include "core/proc.h"
#include "core/task.h"

#define SEQ(c) ((_Atomic unsigned *)&(c)->__data.__wseq)
#define NWAIT(c) ((_Atomic unsigned *)&(c)->__data.__wseq + 1)
#define F_SHARED 1u
#define F_MONO 2u

/* Which 32-bit word of a pthread_cond_t is __wrefs: the tenth up to glibc
 * 2.40, the eighth from 2.41 (which dropped __g_refs).  Found once in a
 * condvar glibc itself initialised process-shared with CLOCK_MONOTONIC, so
 * a library built with one glibc's headers runs with the other. */
static unsigned wrefs_word(void)
{
	static unsigned at; /* 0: not known yet; every thread finds the same */
	unsigned k = __atomic_load_n(&at, __ATOMIC_RELAXED);
	if (k)
		return k;
	pthread_condattr_t a;
	pthread_cond_t c;
	unsigned w[sizeof c / sizeof(unsigned)];
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_condattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	wt_real_init();
	real.pthread_cond_init(&c, &a);
	memcpy(w, &c, sizeof w);
	k = offsetof(pthread_cond_t, __data.__wrefs) / sizeof(unsigned);
	for (unsigned i = 4; i < sizeof c / sizeof(unsigned); i++)
		if (w[i] == (F_SHARED | F_MONO)) {
			k = i;
			break;
		}
	real.pthread_cond_destroy(&c);
	__atomic_store_n(&at, k, __ATOMIC_RELAXED);
	return k;
}

#define FLAGS(c) __atomic_load_n((unsigned *)(c) + wrefs_word(), __ATOMIC_RELAXED)

static int cond_wait(pthread_cond_t *c, pthread_mutex_t *m, int64_t deadline)
{
	int pr, lr = -1, r = wt_mutex_releasable(m);
	if (r > 0)
		return r;
	if (r == 0) {
		struct wt_task *t = wt_cur();
		uintptr_t outer = 0; /* a signal handler's wait inside a wait */
		if (t) {
			outer = t->relock;
			t->relock = (uintptr_t)m;
		}
		wt_wait_reason("pthread_cond_wait");
		pr = wt_park_release(SEQ(c), deadline, true, wt_mutex_release, m);
		if (t) {
			if (t->relock & 1)
				lr = 0; /* handed over: held already */
			t->relock = outer;
		}
	} else {
		unsigned seq = wt_park_count_in(SEQ(c));
		r = wt_mutex_unlock(m);
		if (r) {
			wt_park_count_out(SEQ(c));
			return r;
		}
		wt_wait_reason("pthread_cond_wait");
		pr = wt_park_counted(SEQ(c), seq, deadline, true);
	}
	if (lr < 0)
		lr = wt_mutex_lock(m, -1);
	if (pr == WT_PARK_CANCELED)
		wt_cancel_act(); /* with the mutex held, as POSIX requires */
	if (lr == EOWNERDEAD) /* a robust mutex's holder died: said as glibc says it */
		return lr;
	return pr == WT_PARK_TIMEDOUT ? ETIMEDOUT : 0;
}

/* What shared_wait changed around glibc's call, put back by its cleanup
 * when a cancel unwinds the task from inside the call. */
struct shared_wait {
	struct wt_task *t;
	int tid; /* wt_pshared_enter's value to restore */
	struct wt_kprio k; /* the worker's kernel policy to restore */
};

static void shared_wait_unwound(void *arg)
{
	struct shared_wait *w = arg;
	wt_prio_kernel_restore(w->k);
	wt_cancel_wait_unwound(w->t);
	wt_pshared_leave(w->tid);
	wt_exitsyscall();
}

enum { W_WAIT, W_TIMED, W_CLOCK };

/* glibc's wait on a process-shared condvar: with the task's owner id
 * (PSHARED), bracketed, and a cancellation point.  A cancel pending when
 * the call would start makes it return 0 at once (a spurious wake-up), and
 * is acted on with the mutex held.  Context: a task or any thread; may
 * block the worker; may unwind the task. */
static int shared_wait(pthread_cond_t *c, pthread_mutex_t *m, int how, clockid_t clk,
		       const struct timespec *abs)
{
	wt_real_init();
	struct wt_task *t = wt_cur();
	int r = 0;
	if (!t) {
		if (how == W_WAIT)
			return real.pthread_cond_wait(c, m);
		if (how == W_TIMED)
			return real.pthread_cond_timedwait(c, m, abs);
		return real.pthread_cond_clockwait(c, m, clk, abs);
	}
	wt_testcancel();
	struct shared_wait w = { t, 0, { -1, 0 } };
	pthread_cleanup_push(shared_wait_unwound, &w);
	w.tid = wt_pshared_enter();
	wt_entersyscall();
	if (!wt_cancel_wait_begin(t)) {
		/* KPRIO's steps, with what to restore where the cleanup sees it. */
		w.k = wt_prio_kernel_lend();
		if (how == W_WAIT)
			r = real.pthread_cond_wait(c, m);
		else if (how == W_TIMED)
			r = real.pthread_cond_timedwait(c, m, abs);
		else
			r = real.pthread_cond_clockwait(c, m, clk, abs);
		wt_prio_kernel_restore(w.k);
		w.k = (struct wt_kprio){ -1, 0 };
	}
	wt_cancel_call_end(t);
	wt_exitsyscall();
	wt_pshared_leave(w.tid);
	pthread_cleanup_pop(0);
	wt_testcancel();
	return r;
}

WT_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	if (FLAGS(c) & F_SHARED) {
		return shared_wait(c, m, W_WAIT, 0, NULL);
	}
	wt_testcancel();
	return cond_wait(c, m, -1);
}
WT_OWN(pthread_cond_wait);

static int timedwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
		     const struct timespec *abs)
{
	if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)
		return EINVAL;
	if (!wt_ts_valid(abs))
		return EINVAL;
	wt_testcancel();
	return cond_wait(c, m, wt_deadline(clk, abs));
}

WT_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				     const struct timespec *abs)
{
	if (FLAGS(c) & F_SHARED) {
		return shared_wait(c, m, W_TIMED, 0, abs);
	}
	return timedwait(c, m, FLAGS(c) & F_MONO ? CLOCK_MONOTONIC : CLOCK_REALTIME, abs);
}
WT_OWN(pthread_cond_timedwait);

WT_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
				     const struct timespec *abs)
{
	if (FLAGS(c) & F_SHARED) {
		wt_real_init();
		if (!real.pthread_cond_clockwait)
			return EINVAL;
		return shared_wait(c, m, W_CLOCK, clk, abs);
	}
	return timedwait(c, m, clk, abs);
}

WT_EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	if (FLAGS(c) & F_SHARED) {
		wt_real_init();
		return real.pthread_cond_signal(c);
	}
	if (atomic_load_explicit(NWAIT(c), memory_order_relaxed) == 0)
		return 0;
	wt_unpark_bump(SEQ(c), 1);
	wt_prio_point(); /* a real-time waiter above the caller runs now */
	return 0;
}
WT_OWN(pthread_cond_signal);

WT_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	if (FLAGS(c) & F_SHARED) {
		wt_real_init();
		return real.pthread_cond_broadcast(c);
	}
	if (atomic_load_explicit(NWAIT(c), memory_order_relaxed) == 0)
		return 0;
	wt_unpark_bump(SEQ(c), 0x7fffffff);
	wt_prio_point();
	return 0;
}
WT_OWN(pthread_cond_broadcast);

WT_EXPORT int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
	wt_real_init();
	return real.pthread_cond_init(c, a); /* zeroes it and writes the flags */
}
WT_OWN(pthread_cond_init);

WT_EXPORT int pthread_cond_destroy(pthread_cond_t *c)
{
	if (FLAGS(c) & F_SHARED) {
		wt_real_init();
		return real.pthread_cond_destroy(c);
	}
	/* POSIX: destroying a condvar nobody waits on is fine right after a
	 * broadcast.  A woken waiter is counted out by its waker; one that
	 * had to unlock its mutex itself first (a mutex of glibc's) is
	 * counted until it parks or sees the broadcast: wait for those. */
	while (atomic_load(NWAIT(c)) != 0)
		wt_yield();
	return 0;
}
WT_OWN(pthread_cond_destroy);
