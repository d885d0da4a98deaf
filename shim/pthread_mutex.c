/*
 * pthread_mutex.c — mutexes that park tasks.
 *
 * State lives in the program's pthread_mutex_t where glibc keeps it, so
 * PTHREAD_MUTEX_INITIALIZER and PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP just
 * work:
 *   __lock   0 free, 1 held, 2 held and perhaps waited on (waiters park on
 *            &__lock in the parking lot);
 *   __owner  the holder's tid field (tasks: unique fake tids);
 *   __count  recursion depth of a recursive mutex;
 *   __kind   glibc's kind: 0 normal, 1 recursive, 2 errorcheck, 3 adaptive,
 *            plus flag bits.  A priority-inheritance mutex (32) that is
 *            neither robust nor process-shared is weft's too (sched/process/pi.c:
 *            __lock holds the holder's id and glibc's waiters bit, as
 *            glibc's does; the holder runs at its highest waiter's
 *            priority).  Robust (16), process-shared (128) mutexes,
 *            robust priority-protect ones, and robust or shared
 *            priority-inheritance ones,
 *            are left to glibc: they need the kernel's futex protocols.  glibc's calls
 *            are made PSHARED (the owner id glibc records is unique across
 *            processes, sched/process/pshared.c) and a lock that may wait is
 *            BRACKETED, so the proc goes to other tasks while the worker
 *            sleeps in the kernel, and one with asynchronous cancellation
 *            enabled is cancelled there (shim.h: KWAIT).  A priority-protect
 *            mutex (64) that is not robust is weft's, shared or not (below).
 */
#include <linux/futex.h>
#include <sys/syscall.h>

#include "shim.h"
#include "process/pi.h"
#include "observe/pprof.h"
#include "process/prio.h"
#include "signal/sighandler.h"
#include "core/task.h"

#define KIND_MASK 3
#define KIND_PI 32
#define KIND_SPECIAL (16 | 32 | 64 | 128)

static inline int kind_of(pthread_mutex_t *m)
{
	return __atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED);
}

/* A priority-inheritance mutex weft runs itself (not robust, not shared). */
static inline bool pi_ours(int kind)
{
	return (kind & (KIND_PI | 16 | 64 | 128)) == KIND_PI;
}

/* glibc's results for a priority-inheritance mutex: EDEADLK for an
 * errorcheck one the caller holds, a recursive one counts, a normal one
 * waits for ever (glibc's, on the kernel's EDEADLK).  try: trylock (EBUSY
 * instead of waiting).  0 or a positive error number. */
static int pi_lock(pthread_mutex_t *m, int kind, int64_t deadline, bool cancel, bool try)
{
	_Atomic int *w = (_Atomic int *)&m->__data.__lock;
	int me = wt_self_tid();
	if (WT_PI_TID(atomic_load_explicit(w, memory_order_relaxed)) == me) {
		if ((kind & KIND_MASK) == PTHREAD_MUTEX_ERRORCHECK_NP)
			return EDEADLK;
		if ((kind & KIND_MASK) == PTHREAD_MUTEX_RECURSIVE_NP) {
			if (m->__data.__count + 1 == 0)
				return EAGAIN;
			m->__data.__count++;
			return 0;
		}
	}
	int r = wt_pi_trylock(w, me);
	if (r && !try)
		r = wt_pi_lock(w, me, deadline, cancel);
	if (r)
		return -r;
	__atomic_store_n(&m->__data.__owner, me, __ATOMIC_RELAXED);
	m->__data.__count = 1;
	m->__data.__nusers++;
	return 0;
}

static int pi_unlock(pthread_mutex_t *m, int kind)
{
	_Atomic int *w = (_Atomic int *)&m->__data.__lock;
	int v = atomic_load_explicit(w, memory_order_relaxed);
	if (v == 0 || WT_PI_TID(v) != wt_self_tid())
		return EPERM;
	if ((kind & KIND_MASK) == PTHREAD_MUTEX_RECURSIVE_NP && --m->__data.__count > 0)
		return 0;
	__atomic_store_n(&m->__data.__owner, 0, __ATOMIC_RELAXED);
	m->__data.__nusers--;
	wt_pi_unlock(w);
	return 0;
}

/* ---- priority-protect mutexes ----
 * A PTHREAD_PRIO_PROTECT mutex that is not robust is weft's, process-shared
 * or not, with glibc's lock word: the ceiling in its top bits, under them
 * 0 free, 1 held, 2 held and perhaps waited on.  glibc's own lock would
 * raise the priority of the OS thread its TCB names, which for a task is
 * none (sched/process/prio.c: wt_prio_protect raises the task instead).  The
 * locker counts the ceiling in first, refused with EINVAL when its own
 * priority is above it, and counts it out again if it does not get the
 * mutex; a change of ceiling meanwhile (setprioceiling) starts it over.
 * A private one's waiters park on the word; a shared one's wait in the
 * kernel on the shared futex, as glibc's in another process do, and its
 * owner id is the process-shared one (sched/process/pshared.c). */
#define PP_SHIFT 19
#define PP_MASK 0xfff80000u
#define KIND_PP 64
#define KIND_ROBUST 16
#define KIND_SHARED 128
#define PP_BADTIME (-2) /* a deadline that was no valid time: EINVAL if it must wait */

static inline bool pp_ours(int kind)
{
	return (kind & (KIND_PP | KIND_ROBUST)) == KIND_PP;
}

static inline int pp_id(int kind)
{
	return (kind & KIND_SHARED) ? PSHARED(wt_self_tid()) : wt_self_tid();
}

static bool pp_word_is(const void *addr, uintptr_t v)
{
	return __atomic_load_n((const unsigned *)addr, __ATOMIC_RELAXED) == (unsigned)v;
}

/* Waits while the word holds v: 0 (woken, or it changed), ETIMEDOUT,
 * ECANCELED (cancel: asynchronous cancellation of a private wait; a shared
 * one unwinds from the kernel, KWAIT). */
static int pp_wait(pthread_mutex_t *m, int kind, unsigned v, int64_t deadline, bool cancel)
{
	_Atomic unsigned *w = (_Atomic unsigned *)&m->__data.__lock;
	if (!(kind & KIND_SHARED)) {
		wt_wait_reason("pthread_mutex_lock");
		int r = wt_park(w, pp_word_is, v, deadline, cancel);
		return r == WT_PARK_CANCELED ? ECANCELED : r == WT_PARK_TIMEDOUT ? ETIMEDOUT : 0;
	}
	struct timespec ts, *tp = NULL;
	if (deadline >= 0) {
		ts.tv_sec = deadline / 1000000000;
		ts.tv_nsec = deadline % 1000000000;
		tp = &ts;
	}
	wt_real_init();
	long r;
	if (cancel)
		r = KWAIT(false, real.syscall(SYS_futex, w, FUTEX_WAIT_BITSET, v, tp, NULL,
					      FUTEX_BITSET_MATCH_ANY));
	else
		r = BRACKETED(KPRIO(real.syscall(SYS_futex, w, FUTEX_WAIT_BITSET, v, tp, NULL,
						 FUTEX_BITSET_MATCH_ANY)));
	return r < 0 && errno == ETIMEDOUT ? ETIMEDOUT : 0;
}

static void pp_wake(pthread_mutex_t *m, int kind, int n)
{
	if (kind & KIND_SHARED)
		wt_futex_wake((_Atomic int *)&m->__data.__lock, n, true);
	else
		wt_unpark(&m->__data.__lock, n);
}

/* Takes the word for a caller whose ceiling is counted in (at its value
 * in *cur): 0; -1: the ceiling changed (*cur holds the new word); else a
 * positive error (the ceiling stays counted). */
static int pp_take(pthread_mutex_t *m, int kind, unsigned *cur, int64_t deadline, bool cancel,
		   bool try)
{
	_Atomic unsigned *w = (_Atomic unsigned *)&m->__data.__lock;
	unsigned c = *cur & PP_MASK, v = c;
	/* Acquire: pairs with the release CAS in pp_unlock. */
	if (atomic_compare_exchange_strong_explicit(w, &v, c | 1, memory_order_acquire,
						    memory_order_relaxed))
		return 0;
	if ((v & PP_MASK) != c) {
		*cur = v;
		return -1;
	}
	if (try)
		return EBUSY;
	for (;;) {
		v = c | 1;
		atomic_compare_exchange_strong_explicit(w, &v, c | 2, memory_order_acquire,
							memory_order_relaxed);
		if ((v & PP_MASK) != c) {
			*cur = v;
			return -1;
		}
		if (v != c) {
			if (deadline == PP_BADTIME)
				return EINVAL;
			int r = pp_wait(m, kind, c | 2, deadline, cancel);
			if (r)
				return r;
		}
		v = c;
		if (atomic_compare_exchange_strong_explicit(w, &v, c | 2, memory_order_acquire,
							    memory_order_relaxed))
			return 0;
	}
}

/* glibc's PP lock: 0 or a positive error (ECANCELED: act on it). */
static int pp_lock(pthread_mutex_t *m, int kind, int64_t deadline, bool cancel, bool try)
{
	int id = pp_id(kind);
	if (__atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED) == id) {
		if ((kind & KIND_MASK) == PTHREAD_MUTEX_ERRORCHECK_NP)
			return EDEADLK;
		if ((kind & KIND_MASK) == PTHREAD_MUTEX_RECURSIVE_NP) {
			if (m->__data.__count + 1 == 0)
				return EAGAIN;
			m->__data.__count++;
			return 0;
		}
	}
	struct wt_task *t = wt_cur();
	unsigned cur = __atomic_load_n((unsigned *)&m->__data.__lock, __ATOMIC_RELAXED);
	int counted = -1, r;
	do {
		int ceiling = (int)(cur >> PP_SHIFT);
		if (wt_prio_current(t) > ceiling) {
			if (counted > 0)
				wt_prio_protect(t, counted, -1);
			return EINVAL;
		}
		r = -wt_prio_protect(t, counted, ceiling);
		if (r)
			return r;
		counted = ceiling;
		r = pp_take(m, kind, &cur, deadline, cancel, try);
	} while (r < 0);
	if (r) {
		/* A cancelled wait keeps the ceiling: the task unwinds with it,
		 * as the native thread does. */
		if (r != ECANCELED)
			wt_prio_protect(t, counted, -1);
		return r;
	}
	__atomic_store_n(&m->__data.__owner, id, __ATOMIC_RELAXED);
	m->__data.__count = 1;
	m->__data.__nusers++;
	return 0;
}

static int pp_unlock(pthread_mutex_t *m, int kind)
{
	int id = pp_id(kind);
	int k = kind & KIND_MASK;
	int owner = __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED);
	_Atomic unsigned *w = (_Atomic unsigned *)&m->__data.__lock;
	if (k == PTHREAD_MUTEX_RECURSIVE_NP) {
		if (owner != id)
			return EPERM;
		if (--m->__data.__count != 0)
			return 0;
	} else if (k == PTHREAD_MUTEX_ERRORCHECK_NP &&
		   (owner != id || !(atomic_load_explicit(w, memory_order_relaxed) & ~PP_MASK))) {
		return EPERM;
	}
	__atomic_store_n(&m->__data.__owner, 0, __ATOMIC_RELAXED);
	m->__data.__nusers--;
	unsigned v = atomic_load_explicit(w, memory_order_relaxed);
	/* Release: pairs with the acquiring CAS in pp_take. */
	while (!atomic_compare_exchange_weak_explicit(w, &v, v & PP_MASK, memory_order_release,
						      memory_order_relaxed))
		;
	if ((v & ~PP_MASK) > 1)
		pp_wake(m, kind, 1);
	return -wt_prio_protect(wt_cur(), (int)(v >> PP_SHIFT), -1);
}

WT_EXPORT int pthread_mutex_setprioceiling(pthread_mutex_t *m, int prio, int *old)
{
	int kind = kind_of(m);
	if (kind < 0 || !pp_ours(kind)) {
		wt_real_init();
		return real.pthread_mutex_setprioceiling(m, prio, old);
	}
	if (prio < 1 || prio > WT_RTPRIO_MAX)
		return EINVAL;
	bool held = false;
	if (__atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED) == pp_id(kind)) {
		if ((kind & KIND_MASK) == PTHREAD_MUTEX_ERRORCHECK_NP)
			return EDEADLK;
		held = (kind & KIND_MASK) == PTHREAD_MUTEX_RECURSIVE_NP;
	}
	_Atomic unsigned *w = (_Atomic unsigned *)&m->__data.__lock;
	unsigned cur = atomic_load_explicit(w, memory_order_relaxed);
	/* Held for the change, without the ceiling's rule (glibc's). */
	while (!held && pp_take(m, kind, &cur, -1, false, false) < 0)
		;
	int was = (int)((cur & PP_MASK) >> PP_SHIFT);
	if (held) {
		int r = -wt_prio_protect(wt_cur(), was, prio);
		if (r)
			return r;
	}
	/* glibc's prototype says old is never NULL, and glibc checks anyway:
	 * so does this, past the compiler's assumption. */
	int *o;
	__asm__("" : "=r"(o) : "0"(old));
	if (o)
		*o = was;
	unsigned keep = held ? atomic_load_explicit(w, memory_order_relaxed) & ~PP_MASK : 0;
	/* Release: a waiter woken below reads the new ceiling (seq_cst). */
	atomic_store(w, keep | (unsigned)prio << PP_SHIFT);
	pp_wake(m, kind, 0x7fffffff);
	return 0;
}

static bool still_locked(const void *addr, uintptr_t arg)
{
	(void)arg;
	return __atomic_load_n((const int *)addr, __ATOMIC_RELAXED) == 2;
}

/* cancel: the wait ends for pthread_cancel (asynchronous cancellation;
 * the caller acts on it). */
static int lock_slow(pthread_mutex_t *m, int64_t deadline, bool cancel, void *site)
{
	_Atomic int *w = (_Atomic int *)&m->__data.__lock;
	/* Spin a little when another proc may be releasing it right now. */
	if (wt_sched.nprocs > 1) {
		for (int i = 0; i < 64; i++) {
			wt_arch_pause();
			int z = 0;
			if (atomic_load_explicit(w, memory_order_relaxed) == 0 &&
			    atomic_compare_exchange_weak_explicit(w, &z, 1, memory_order_acquire,
								  memory_order_relaxed))
				return 0;
		}
	}
	/* Acquire: pairs with the release exchange in wt_mutex_unlock. */
	int64_t t0 = 0; /* the mutex profile: when the first park began */
	while (atomic_exchange_explicit(w, 2, memory_order_acquire) != 0) {
		if (unlikely(wt_mprof_active()) && !t0)
			t0 = wt_nanotime();
		wt_wait_reason("pthread_mutex_lock");
		int r = wt_park(w, still_locked, 0, deadline, cancel);
		if (r == WT_PARK_CANCELED)
			return ECANCELED; /* the word stays 2: an unlock wakes one more */
		if (r == WT_PARK_TIMEDOUT) {
			int z = 0;
			if (atomic_compare_exchange_strong_explicit(w, &z, 1, memory_order_acquire,
								    memory_order_relaxed))
				return 0;
			return ETIMEDOUT;
		}
	}
	if (unlikely(t0))
		wt_mprof_waited(m, site, t0);
	return 0;
}

/* glibc's trylock of a robust mutex made unrecoverable returns
 * ENOTRECOVERABLE with the lock word still the caller's; its lock releases
 * the word first.  A lock made of a try: released as the lock would. */
static void unrecoverable_release(pthread_mutex_t *m)
{
	_Atomic unsigned *w = (_Atomic unsigned *)&m->__data.__lock;
	unsigned id = (unsigned)PSHARED(wt_self_tid());
	if ((atomic_load_explicit(w, memory_order_relaxed) & FUTEX_TID_MASK) == id &&
	    atomic_exchange_explicit(w, 0, memory_order_release) & FUTEX_WAITERS)
		wt_futex_wake((_Atomic int *)w, 1, true); /* robust: shared futex */
}

/* glibc's lock of a special mutex: a try first, then a wait BRACKETED.
 * abs on clk, or NULL for no timeout.  cancel: the program's own lock,
 * where asynchronous cancellation acts during the wait (KWAIT); not a
 * condition variable's re-lock.  0 or a positive error number. */
static int special_lock(pthread_mutex_t *m, int kind, clockid_t clk, const struct timespec *abs,
			bool cancel)
{
	wt_real_init();
	int r = PSHARED(real.pthread_mutex_trylock(m));
	if (r == ENOTRECOVERABLE)
		unrecoverable_release(m);
	if (r == EBUSY && !cancel) {
		r = PSHARED(BRACKETED(KPRIO(real.pthread_mutex_lock(m))));
	} else if (r == EBUSY) {
		if (!abs)
			r = KWAIT(true, real.pthread_mutex_lock(m));
		else if (clk == CLOCK_REALTIME || !real.pthread_mutex_clocklock)
			r = KWAIT(true, real.pthread_mutex_timedlock(m, abs));
		else
			r = KWAIT(true, real.pthread_mutex_clocklock(m, clk, abs));
	}
	if ((kind & 16) && (kind & 128) && (r == 0 || r == EOWNERDEAD))
		wt_pshared_robust_locked();
	return r;
}

static int special_unlock(pthread_mutex_t *m)
{
	wt_real_init();
	return PSHARED(real.pthread_mutex_unlock(m));
}

/* Returns 0 or a positive error number.  deadline: mono ns or -1.
 * cancel: pthread_mutex_lock and its timed forms, where a task with
 * asynchronous cancellation enabled is cancelled while it waits, as the
 * native signal interrupts the futex wait (ECANCELED: act on it); not a
 * condition variable's re-lock, which must hold the mutex. */
static int mutex_lock(pthread_mutex_t *m, int64_t deadline, bool cancel, void *site)
{
	int kind = kind_of(m);
	if (unlikely(kind & KIND_SPECIAL) && kind >= 0) {
		if (pi_ours(kind))
			return pi_lock(m, kind, deadline, cancel, false);
		if (pp_ours(kind))
			return pp_lock(m, kind, deadline, cancel, false);
		/* A condition variable's re-lock: no timeout there. */
		return special_lock(m, kind, CLOCK_MONOTONIC, NULL, false);
	}
	int me = wt_self_tid();
	if (kind & KIND_MASK) {
		if ((kind & KIND_MASK) == PTHREAD_MUTEX_RECURSIVE_NP &&
		    __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED) == me) {
			if (m->__data.__count + 1 == 0)
				return EAGAIN;
			m->__data.__count++;
			return 0;
		}
		if ((kind & KIND_MASK) == PTHREAD_MUTEX_ERRORCHECK_NP &&
		    __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED) == me)
			return EDEADLK;
	}
	_Atomic int *w = (_Atomic int *)&m->__data.__lock;
	int z = 0;
	if (unlikely(!atomic_compare_exchange_strong_explicit(w, &z, 1, memory_order_acquire,
							     memory_order_relaxed))) {
		int r = lock_slow(m, deadline, cancel, site);
		if (r)
			return r;
	}
	__atomic_store_n(&m->__data.__owner, me, __ATOMIC_RELAXED);
	m->__data.__count = 1;
	m->__data.__nusers++;
	return 0;
}

int wt_mutex_lock(pthread_mutex_t *m, int64_t deadline)
{
	return mutex_lock(m, deadline, false, NULL);
}

/* The program's own lock calls. */
static int user_lock(pthread_mutex_t *m, int64_t deadline, void *site)
{
	struct wt_task *t = wt_cur();
	int r = mutex_lock(m, deadline, t && wt_cancel_async_on(t), site);
	if (r == ECANCELED)
		wt_cancel_act();
	return r;
}

/* The caller may not unlock m (EPERM): an errorcheck or recursive mutex
 * it does not hold.  A normal or adaptive one is not checked, as glibc. */
static bool unlock_refused(pthread_mutex_t *m, int kind)
{
	int k = kind & KIND_MASK;
	return (k == PTHREAD_MUTEX_RECURSIVE_NP || k == PTHREAD_MUTEX_ERRORCHECK_NP) &&
	       __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED) != wt_self_tid();
}

/* Releases a mutex of weft's whose owner fields say it is free.  w: the
 * worker releasing it for a parked holder (wt_mutex_release), else NULL. */
static void release_word(pthread_mutex_t *m, struct wt_m *w)
{
	__atomic_store_n(&m->__data.__owner, 0, __ATOMIC_RELAXED);
	m->__data.__nusers--;
	/* Release: pairs with the acquiring CAS/exchange of the next holder. */
	if (atomic_exchange_explicit((_Atomic int *)&m->__data.__lock, 0, memory_order_release) == 2) {
		if (w)
			wt_unpark_g0(&m->__data.__lock, 1, w);
		else
			wt_unpark(&m->__data.__lock, 1);
	}
}

int wt_mutex_unlock(pthread_mutex_t *m)
{
	int kind = kind_of(m);
	if (unlikely(kind & KIND_SPECIAL) && kind >= 0)
		return pi_ours(kind) ? pi_unlock(m, kind)
		       : pp_ours(kind) ? pp_unlock(m, kind) : special_unlock(m);
	if (unlock_refused(m, kind))
		return EPERM;
	if ((kind & KIND_MASK) == PTHREAD_MUTEX_RECURSIVE_NP && --m->__data.__count > 0)
		return 0;
	release_word(m, NULL);
	return 0;
}

/* A condition variable's wait on m: 0 when the caller may leave m's
 * release to wt_mutex_release, once it is parked (a mutex of weft's held
 * once); EPERM as wt_mutex_unlock would say it; -1: unlock it with
 * wt_mutex_unlock first. */
int wt_mutex_releasable(pthread_mutex_t *m)
{
	int kind = kind_of(m);
	if (unlikely(kind & KIND_SPECIAL) && kind >= 0)
		return -1;
	if (unlock_refused(m, kind))
		return EPERM;
	if ((kind & KIND_MASK) == PTHREAD_MUTEX_RECURSIVE_NP && m->__data.__count > 1)
		return -1;
	return 0;
}

/* wt_mutex_unlock's release of a mutex wt_mutex_releasable allowed, for
 * its waiting holder (wt_park_release_fn): w is the worker, NULL for the
 * holder's own thread.  On a worker about to resume a condition-variable
 * waiter of m back from its wait (it re-locks m first thing), m passes to
 * it: the lock word stays as it is (held, maybe waited on), the owner
 * becomes that task.  Not when a signal of that task's waits to run: its
 * handler would run with m held, where natively it runs while the wait
 * sleeps. */
void wt_mutex_release(struct wt_m *w, void *arg)
{
	pthread_mutex_t *m = arg;
	struct wt_task *next = w ? wt_cur() : NULL;
	if (next && next->relock == (uintptr_t)m && wt_park_woken_counted(next)) {
		__atomic_store_n(&m->__data.__owner, wt_self_tid(), __ATOMIC_RELAXED);
		m->__data.__count = 1;
		next->relock |= 1;
		return;
	}
	release_word(m, w);
}

WT_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	int kind = kind_of(m);
	if (unlikely(kind & KIND_SPECIAL) && (pi_ours(kind) || pp_ours(kind)))
		return user_lock(m, -1, __builtin_return_address(0));
	if (unlikely(kind & KIND_SPECIAL) || kind < 0)
		return kind < 0 ? EINVAL : special_lock(m, kind, CLOCK_REALTIME, NULL, true);
	return user_lock(m, -1, __builtin_return_address(0));
}
WT_OWN(pthread_mutex_lock);

static int mutex_trylock(pthread_mutex_t *m)
{
	int kind = kind_of(m);
	int me = wt_self_tid();
	if ((kind & KIND_MASK) == PTHREAD_MUTEX_RECURSIVE_NP &&
	    __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED) == me) {
		if (m->__data.__count + 1 == 0)
			return EAGAIN;
		m->__data.__count++;
		return 0;
	}
	int z = 0;
	if (!atomic_compare_exchange_strong_explicit((_Atomic int *)&m->__data.__lock, &z, 1,
						     memory_order_acquire, memory_order_relaxed))
		return EBUSY;
	__atomic_store_n(&m->__data.__owner, me, __ATOMIC_RELAXED);
	m->__data.__count = 1;
	m->__data.__nusers++;
	return 0;
}

WT_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	int kind = kind_of(m);
	if (unlikely(kind & KIND_SPECIAL) && pi_ours(kind))
		return pi_lock(m, kind, -1, false, true);
	if (unlikely(kind & KIND_SPECIAL) && pp_ours(kind))
		return pp_lock(m, kind, -1, false, true);
	if (unlikely(kind & KIND_SPECIAL) || kind < 0) {
		wt_real_init();
		if (kind < 0)
			return EINVAL;
		int r = PSHARED(real.pthread_mutex_trylock(m));
		if ((kind & 16) && (kind & 128) && (r == 0 || r == EOWNERDEAD))
			wt_pshared_robust_locked();
		return r;
	}
	int r = mutex_trylock(m);
	if (r == EBUSY) /* a loop of failed attempts never switches */
		RETURN_POINT();
	return r;
}
WT_OWN(pthread_mutex_trylock);

static int timedlock(pthread_mutex_t *m, clockid_t clk, const struct timespec *abs)
{
	int kind = kind_of(m);
	if (unlikely(kind & KIND_SPECIAL) && pi_ours(kind)) {
		if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)
			return EINVAL;
		int r = pi_lock(m, kind, -1, false, true);
		if (r != EBUSY)
			return r;
		if (!wt_ts_valid(abs))
			return EINVAL;
		return user_lock(m, wt_deadline(clk, abs), __builtin_return_address(0));
	}
	if (unlikely(kind & KIND_SPECIAL) && pp_ours(kind)) {
		if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)
			return EINVAL;
		return user_lock(m, wt_ts_valid(abs) ? wt_deadline(clk, abs) : PP_BADTIME,
				 __builtin_return_address(0));
	}
	if (unlikely(kind & KIND_SPECIAL) || kind < 0)
		return kind < 0 ? EINVAL : special_lock(m, kind, clk, abs, true);
	if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)
		return EINVAL;
	/* POSIX: no validation needed when the lock is free. */
	int r = mutex_trylock(m);
	if (r != EBUSY)
		return r;
	if (!wt_ts_valid(abs))
		return EINVAL;
	return user_lock(m, wt_deadline(clk, abs), __builtin_return_address(0));
}

WT_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abs)
{
	return timedlock(m, CLOCK_REALTIME, abs);
}
WT_OWN(pthread_mutex_timedlock);

WT_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk,
				      const struct timespec *abs)
{
	return timedlock(m, clk, abs);
}

WT_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	int kind = kind_of(m);
	int r;
	if (unlikely(kind & KIND_SPECIAL) && pi_ours(kind)) {
		r = pi_unlock(m, kind); /* gives way to a higher waiter itself */
	} else if (unlikely(kind & KIND_SPECIAL) && pp_ours(kind)) {
		r = pp_unlock(m, kind); /* the caller's ceiling goes: wt_prio_protect yields */
	} else if (unlikely(kind & KIND_SPECIAL) || kind < 0) {
		return kind < 0 ? EINVAL : special_unlock(m);
	} else {
		r = wt_mutex_unlock(m);
		if (unlikely(wt_mprof_active()))
			wt_mprof_unlock(m, __builtin_return_address(0));
		wt_prio_point(); /* a real-time waiter above the caller runs now */
	}
	wt_sig_unlocked();
	RETURN_POINT();
	return r;
}
WT_OWN(pthread_mutex_unlock);

WT_EXPORT int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
	wt_real_init();
	return real.pthread_mutex_init(m, a); /* glibc computes __kind from the attr */
}
WT_OWN(pthread_mutex_init);

/* glibc records the caller as the owner again: its process-shared id. */
WT_EXPORT int pthread_mutex_consistent(pthread_mutex_t *m)
{
	wt_real_init();
	return PSHARED(real.pthread_mutex_consistent(m));
}

WT_EXPORT int pthread_mutex_destroy(pthread_mutex_t *m)
{
	int kind = kind_of(m);
	if (kind & KIND_SPECIAL) {
		wt_real_init();
		return real.pthread_mutex_destroy(m);
	}
	if (__atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) != 0)
		return EBUSY;
	__atomic_store_n(&m->__data.__kind, -1, __ATOMIC_RELAXED);
	return 0;
}
WT_OWN(pthread_mutex_destroy);
