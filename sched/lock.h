/*
 * lock.h — the runtime's own locks and futex calls (lock.c).
 *
 * wt_lock_t: a futex lock for short critical sections; it never parks a
 * task.  wt_spin_t: a spin lock for the parking lot's buckets.  Both are
 * taken in the order of their ranks (lockrank.h); a debug build checks it.
 */
#ifndef WEFT_LOCK_H
#define WEFT_LOCK_H

#include <time.h>

#include "base.h"
#include "lockrank.h"

typedef struct {
	_Atomic int v;          /* zero: free; states in lock.c */
	int rank;               /* [const] enum wt_lockrank */
} wt_lock_t;
#define WT_LOCK_INIT(r) { 0, (r) }
void wt_lock(wt_lock_t *l);
void wt_unlock(wt_lock_t *l);
bool wt_trylock(wt_lock_t *l);

/* A spin lock for the parking lot's buckets, whose critical sections are a
 * few list operations: its release is a plain store, where wt_unlock needs an
 * atomic exchange to learn about sleepers.  A waiter spins, then yields its
 * CPU, so a holder descheduled by the kernel costs time, never a deadlock. */
typedef struct { _Atomic int v; } wt_spin_t;  /* rank WT_RANK_PARK: buckets only */
void wt_spin_lock_slow(wt_spin_t *l);
static inline void wt_spin_lock(wt_spin_t *l)
{
	wt_lockrank_acquire(l, WT_RANK_PARK, false);
	/* Acquire: pairs with the release in wt_spin_unlock. */
	if (__builtin_expect(atomic_exchange_explicit(&l->v, 1, memory_order_acquire), 0))
		wt_spin_lock_slow(l);
}
static inline void wt_spin_unlock(wt_spin_t *l)
{
	wt_lockrank_release(l);
	atomic_store_explicit(&l->v, 0, memory_order_release);
}

/* abs_mono: an absolute CLOCK_MONOTONIC deadline, or NULL.  0 or -errno. */
long wt_futex_wait(_Atomic int *addr, int val, const struct timespec *abs_mono, bool shared);
long wt_futex_wake(_Atomic int *addr, int n, bool shared);
/* A private wait that holds no weft lock: a program's signal handler may
 * run during it. */
long wt_futex_wait_sigok(_Atomic int *addr, int val, const struct timespec *abs_mono);

#endif
