/*
 * pthread_rwlock.c — reader-writer locks that park tasks.
 *
 * State lives in the program's pthread_rwlock_t (56 bytes), so
 * PTHREAD_RWLOCK_INITIALIZER (all zero) and
 * PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP (kind 2 in __flags)
 * just work:
 *   __readers     the lock word S, below; readers park on its address;
 *   __writers     never written: writers park on its address;
 *   __cur_writer  the write holder's tid field (glibc does the same), for
 *                 EDEADLK and for unlock to know which lock it releases;
 *   __shared      non-zero: process-shared (glibc's pthread_rwlock_init
 *                 writes 1); such locks are left to glibc entirely, its
 *                 calls made PSHARED and, when they may wait, BRACKETED;
 *   __flags       glibc's kind: 0 PREFER_READER_NP (the default),
 *                 1 PREFER_WRITER_NP, 2 PREFER_WRITER_NONRECURSIVE_NP.
 *
 * The lock word S:
 *   bits 0-28  R      readers holding it (at most 2^28 - 1, glibc's limit:
 *                     one more is EAGAIN);
 *   bit 29     RWAIT  readers may be parked on &__readers;
 *   bit 30     WWAIT  writers may be parked on &__writers;
 *   bit 31     WLOCK  a writer holds it (then R = 0).
 * So its states are:
 *   0                      free;
 *   R (1 .. 2^28-1)        read-held by R readers;
 *   WLOCK                  write-held;
 *   any of those | RWAIT   …and readers wait: set by a reader that found it
 *                          write-held (or, kind 2, read-held with a writer
 *                          waiting);
 *   any of those | WWAIT   …and writers wait: set by a writer that found it
 *                          held.
 * The wait bits are conservative ("may be parked"): a waiter sets its bit
 * before it parks, and parks only if validate, under the bucket lock, still
 * sees the bit set and the lock still unavailable to it.  Whoever clears a
 * bit wakes that queue — all readers, or one writer — so a bit cleared after
 * a waiter's validate finds the waiter queued (core/park.c's protocol).
 *
 * Who clears the bits:
 *   write unlock   kind 0: clears everything, wakes all readers and one
 *                  writer.  Kinds 1 and 2 (glibc hands over to a writer for
 *                  both): wakes one writer and leaves RWAIT set; if no writer
 *                  was parked after all, clears RWAIT and wakes the readers.
 *   read unlock    the last reader, finding bits set: one writer first, else
 *                  all readers.  If the lock was taken meanwhile, nothing:
 *                  its holder meets the bits at its own unlock.
 *   rdlock         a reader that got in while RWAIT was set clears it and
 *                  wakes the other readers (they may get in too); without
 *                  this, parked readers could sleep through a read phase
 *                  another thread depends on them joining.
 *   timeout        a waiter that gives up after having been woken may have
 *                  taken the one wake-up meant for a writer, so it clears
 *                  both bits and wakes both queues, and everyone re-checks.
 * A writer that was woken acquires with WWAIT set, since other writers may
 * still be parked behind it.
 *
 * Preferences, as glibc: readers enter whenever no writer holds the lock
 * (kinds 0 and 1; a recursive read lock never deadlocks).  Kind 2 also keeps
 * new readers out while other readers hold it and a writer waits.
 * rwlocks are not cancellation points; a task with asynchronous
 * cancellation enabled is cancelled while it waits, as glibc's SIGCANCEL
 * interrupts the futex wait.  It leaves like a timed-out waiter.  A
 * process-shared one's waiter, in glibc's wait, unwinds from the kernel
 * (shim.h: KWAIT).
 *
 * Readers are counted in S, not named: each task also notes the rwlocks it
 * holds for reading in its own few slots (sched/observe/deadlock.h), which the
 * deadlock report reads to name who holds a lock a writer waits for.
 */
#include <limits.h>

#include "shim.h"
#include "signal/sighandler.h"
#include "observe/deadlock.h"
#include "core/task.h"

#define R_MASK ((1u << 29) - 1)
#define R_MAX ((1u << 28) - 1)
#define RWAIT (1u << 29)
#define WWAIT (1u << 30)
#define WLOCK (1u << 31)

#define WORD(l) ((_Atomic unsigned *)&(l)->__data.__readers)
#define RKEY(l) ((const void *)&(l)->__data.__readers)
#define WKEY(l) ((const void *)&(l)->__data.__writers)
#define KIND(l) __atomic_load_n(&(l)->__data.__flags, __ATOMIC_RELAXED)
#define SHARED(l) (__atomic_load_n(&(l)->__data.__shared, __ATOMIC_RELAXED) != 0)
#define CUR_WRITER(l) __atomic_load_n(&(l)->__data.__cur_writer, __ATOMIC_RELAXED)
#define SET_CUR_WRITER(l, v) __atomic_store_n(&(l)->__data.__cur_writer, (v), __ATOMIC_RELAXED)

#define KIND_NONRECURSIVE PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP

/* ---- the lock word ---- */

/* May a reader enter from state s? */
static inline bool read_ok(unsigned s, unsigned kind)
{
	if (s & WLOCK)
		return false;
	if (kind == KIND_NONRECURSIVE && (s & WWAIT) && (s & R_MASK))
		return false;
	return true;
}

static bool reader_must_wait(const void *addr, uintptr_t arg)
{
	pthread_rwlock_t *l = (pthread_rwlock_t *)arg;
	unsigned s = atomic_load_explicit(WORD(l), memory_order_relaxed);
	return (s & RWAIT) && !read_ok(s, KIND(l));
}

static bool writer_must_wait(const void *addr, uintptr_t arg)
{
	pthread_rwlock_t *l = (pthread_rwlock_t *)arg;
	unsigned s = atomic_load_explicit(WORD(l), memory_order_relaxed);
	return (s & WWAIT) && (s & (WLOCK | R_MASK));
}

/* A waiter gives up (timeout) after perhaps consuming a wake-up: clear both
 * wait bits and wake both queues; everyone parked re-checks. */
static void kick(pthread_rwlock_t *l)
{
	atomic_fetch_and_explicit(WORD(l), ~(RWAIT | WWAIT), memory_order_relaxed);
	wt_unpark(WKEY(l), INT_MAX);
	wt_unpark(RKEY(l), INT_MAX);
}

/* Wake readers if RWAIT is set. */
static void wake_readers(pthread_rwlock_t *l)
{
	if (atomic_fetch_and_explicit(WORD(l), ~RWAIT, memory_order_relaxed) & RWAIT)
		wt_unpark(RKEY(l), INT_MAX);
}

/* The last reader left with wait bits set.  If the lock is still free, hand
 * it to one writer, else to the readers. */
static void after_last_reader(pthread_rwlock_t *l)
{
	unsigned s = atomic_load_explicit(WORD(l), memory_order_relaxed);
	for (;;) {
		if (s & (WLOCK | R_MASK))
			return; /* taken: its holder meets the bits at unlock */
		if (s & WWAIT) {
			if (!atomic_compare_exchange_weak_explicit(WORD(l), &s, s & ~WWAIT,
								   memory_order_relaxed,
								   memory_order_relaxed))
				continue;
			if (wt_unpark(WKEY(l), 1))
				return;
			s = atomic_load_explicit(WORD(l), memory_order_relaxed);
			continue;
		}
		if (s & RWAIT) {
			if (!atomic_compare_exchange_weak_explicit(WORD(l), &s, s & ~RWAIT,
								   memory_order_relaxed,
								   memory_order_relaxed))
				continue;
			wt_unpark(RKEY(l), INT_MAX);
		}
		return;
	}
}

/* The contended step of rdlock and wrlock: spin a little while another
 * proc may release soon, else set our waiting bit and park on key.
 * Returns -1 to look at *s again (reloaded, or updated by a failed CAS),
 * else wt_park's result with *s reloaded. */
static int contend(pthread_rwlock_t *l, unsigned *s, int *spins, unsigned bit, const void *key,
		   bool (*must_wait)(const void *, uintptr_t), int64_t deadline, bool cancel,
		   const char *why)
{
	_Atomic unsigned *w = WORD(l);
	if (*spins > 0) {
		(*spins)--;
		wt_arch_pause();
		*s = atomic_load_explicit(w, memory_order_relaxed);
		return -1;
	}
	if (!(*s & bit) &&
	    !atomic_compare_exchange_weak_explicit(w, s, *s | bit, memory_order_relaxed,
						   memory_order_relaxed))
		return -1;
	wt_wait_reason(why);
	int r = wt_park(key, must_wait, (uintptr_t)l, deadline, cancel);
	*s = atomic_load_explicit(w, memory_order_relaxed);
	return r;
}

static int rdlock(pthread_rwlock_t *l, int64_t deadline, bool try, bool cancel)
{
	_Atomic unsigned *w = WORD(l);
	unsigned kind = KIND(l);
	bool woken = false;
	int spins = wt_sched.nprocs > 1 && !try ? 64 : 0;
	unsigned s = atomic_load_explicit(w, memory_order_relaxed);
	for (;;) {
		if (read_ok(s, kind)) {
			if ((s & R_MASK) >= R_MAX)
				return EAGAIN;
			/* Acquire: pairs with the release of the last writer. */
			if (!atomic_compare_exchange_weak_explicit(w, &s, s + 1, memory_order_acquire,
								   memory_order_relaxed))
				continue;
			if (s & RWAIT)
				wake_readers(l); /* others may come in too */
			wt_deadlock_rdheld(l, true);
			return 0;
		}
		if (try)
			return EBUSY;
		int r = contend(l, &s, &spins, RWAIT, RKEY(l), reader_must_wait, deadline, cancel,
				"pthread_rwlock_rdlock");
		if (r < 0)
			continue;
		if (r == WT_PARK_TIMEDOUT || r == WT_PARK_CANCELED) {
			if (woken)
				kick(l);
			return r == WT_PARK_TIMEDOUT ? ETIMEDOUT : ECANCELED;
		}
		woken |= r == WT_PARK_WOKEN;
	}
}

static int wrlock(pthread_rwlock_t *l, int64_t deadline, bool try, bool cancel)
{
	_Atomic unsigned *w = WORD(l);
	bool woken = false;
	int spins = wt_sched.nprocs > 1 && !try ? 64 : 0;
	unsigned s = atomic_load_explicit(w, memory_order_relaxed);
	for (;;) {
		if (!(s & (WLOCK | R_MASK))) {
			/* A woken writer keeps WWAIT: others may be parked behind it. */
			unsigned ns = s | WLOCK | (woken ? WWAIT : 0);
			/* Acquire: pairs with the release of the last holder. */
			if (!atomic_compare_exchange_weak_explicit(w, &s, ns, memory_order_acquire,
								   memory_order_relaxed))
				continue;
			SET_CUR_WRITER(l, wt_self_tid());
			return 0;
		}
		if (try)
			return EBUSY;
		int r = contend(l, &s, &spins, WWAIT, WKEY(l), writer_must_wait, deadline, cancel,
				"pthread_rwlock_wrlock");
		if (r < 0)
			continue;
		if (r == WT_PARK_TIMEDOUT || r == WT_PARK_CANCELED) {
			/* Even if never woken: our WWAIT may be all that keeps kind-2
			 * readers out, and we are leaving. */
			kick(l);
			return r == WT_PARK_TIMEDOUT ? ETIMEDOUT : ECANCELED;
		}
		woken |= r == WT_PARK_WOKEN;
	}
}

static int wrunlock(pthread_rwlock_t *l)
{
	_Atomic unsigned *w = WORD(l);
	SET_CUR_WRITER(l, 0);
	if (KIND(l) == PTHREAD_RWLOCK_PREFER_READER_NP) {
		/* Release: pairs with the acquire of the next holder. */
		unsigned s = atomic_exchange_explicit(w, 0, memory_order_release);
		if (s & RWAIT)
			wt_unpark(RKEY(l), INT_MAX);
		if (s & WWAIT)
			wt_unpark(WKEY(l), 1);
		return 0;
	}
	unsigned s = atomic_load_explicit(w, memory_order_relaxed);
	for (;;) {
		unsigned ns = s & WWAIT ? s & RWAIT : 0;
		if (atomic_compare_exchange_weak_explicit(w, &s, ns, memory_order_release,
							  memory_order_relaxed))
			break;
	}
	if (s & WWAIT) {
		if (wt_unpark(WKEY(l), 1))
			return 0;
		wake_readers(l); /* no writer was parked after all */
	} else if (s & RWAIT) {
		wt_unpark(RKEY(l), INT_MAX);
	}
	return 0;
}

static int rdunlock(pthread_rwlock_t *l)
{
	_Atomic unsigned *w = WORD(l);
	unsigned s = atomic_load_explicit(w, memory_order_relaxed);
	do {
		if (!(s & R_MASK))
			return EPERM; /* not locked at all (glibc: undefined) */
	} while (!atomic_compare_exchange_weak_explicit(w, &s, s - 1, memory_order_release,
							memory_order_relaxed));
	s--;
	wt_deadlock_rdheld(l, false);
	if (!(s & R_MASK) && (s & (RWAIT | WWAIT)))
		after_last_reader(l);
	return 0;
}

/* ---- entry points ---- */

WT_EXPORT int pthread_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *a)
{
	int shared = PTHREAD_PROCESS_PRIVATE, kind = PTHREAD_RWLOCK_PREFER_READER_NP;
	if (a) {
		pthread_rwlockattr_getpshared(a, &shared);
		pthread_rwlockattr_getkind_np(a, &kind);
	}
	if (shared != PTHREAD_PROCESS_PRIVATE) {
		wt_real_init();
		return real.pthread_rwlock_init(l, a);
	}
	__builtin_memset(l, 0, sizeof *l);
	l->__data.__flags = (unsigned)kind;
	return 0;
}

WT_EXPORT int pthread_rwlock_destroy(pthread_rwlock_t *l)
{
	if (SHARED(l)) {
		wt_real_init();
		return real.pthread_rwlock_destroy(l);
	}
	return 0; /* as glibc: nothing to release */
}

static int lock_entry(pthread_rwlock_t *l, bool write, clockid_t clk,
		      const struct timespec *abs, bool timed)
{
	if (timed) {
		if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)
			return EINVAL;
		if (!wt_ts_valid(abs))
			return EINVAL;
	}
	if (CUR_WRITER(l) == wt_self_tid())
		return EDEADLK;
	int64_t deadline = timed ? wt_deadline(clk, abs) : -1;
	struct wt_task *t = wt_cur();
	bool cancel = t && wt_cancel_async_on(t);
	int r = write ? wrlock(l, deadline, false, cancel) : rdlock(l, deadline, false, cancel);
	if (r == ECANCELED)
		wt_cancel_act();
	return r;
}

WT_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	if (SHARED(l)) {
		wt_real_init();
		return KWAIT(true, real.pthread_rwlock_rdlock(l));
	}
	return lock_entry(l, false, CLOCK_REALTIME, NULL, false);
}

WT_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	if (SHARED(l)) {
		wt_real_init();
		return KWAIT(true, real.pthread_rwlock_wrlock(l));
	}
	return lock_entry(l, true, CLOCK_REALTIME, NULL, false);
}

WT_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
	if (SHARED(l)) {
		wt_real_init();
		return PSHARED(real.pthread_rwlock_tryrdlock(l));
	}
	int r = rdlock(l, -1, true, false);
	if (r == EBUSY) /* a loop of failed attempts never switches */
		RETURN_POINT();
	return r;
}

WT_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
	if (SHARED(l)) {
		wt_real_init();
		return PSHARED(real.pthread_rwlock_trywrlock(l));
	}
	int r = wrlock(l, -1, true, false);
	if (r == EBUSY)
		RETURN_POINT();
	return r;
}

WT_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *abs)
{
	if (SHARED(l)) {
		wt_real_init();
		return KWAIT(true, real.pthread_rwlock_timedrdlock(l, abs));
	}
	return lock_entry(l, false, CLOCK_REALTIME, abs, true);
}

WT_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *abs)
{
	if (SHARED(l)) {
		wt_real_init();
		return KWAIT(true, real.pthread_rwlock_timedwrlock(l, abs));
	}
	return lock_entry(l, true, CLOCK_REALTIME, abs, true);
}

WT_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clk,
					 const struct timespec *abs)
{
	if (SHARED(l)) {
		wt_real_init();
		return real.pthread_rwlock_clockrdlock ? KWAIT(true, real.pthread_rwlock_clockrdlock(l, clk, abs))
						       : EINVAL;
	}
	return lock_entry(l, false, clk, abs, true);
}

WT_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clk,
					 const struct timespec *abs)
{
	if (SHARED(l)) {
		wt_real_init();
		return real.pthread_rwlock_clockwrlock ? KWAIT(true, real.pthread_rwlock_clockwrlock(l, clk, abs))
						       : EINVAL;
	}
	return lock_entry(l, true, clk, abs, true);
}

WT_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	if (SHARED(l)) {
		wt_real_init();
		return PSHARED(real.pthread_rwlock_unlock(l));
	}
	/* As glibc: the caller is the writer iff __cur_writer is its tid. */
	int r;
	if (CUR_WRITER(l) == wt_self_tid() &&
	    (atomic_load_explicit(WORD(l), memory_order_relaxed) & WLOCK))
		r = wrunlock(l);
	else
		r = rdunlock(l);
	wt_sig_unlocked();
	RETURN_POINT();
	return r;
}
