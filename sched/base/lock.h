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

/* The weft locks (both kinds) the running context holds: a thread that
 * holds one may be in libc or the vDSO on weft's behalf (a clock read, a
 * memcpy, a file read), where its program counter says nothing, and a
 * program handler run there would wait for ever on the lock its own thread
 * holds.  The signal trampoline (signal/sighandler.c) defers every handler while
 * this is not zero.  A thread-local of the context (a task's, g0's, or a
 * thread's weft did not create), so taking a lock costs one increment of
 * a word at a fixed offset from the thread pointer and no system call; a
 * lock held across a switch goes with the worker (wt_locks_hand, core/proc.c).
 * Written only by its own context; a signal handler on the same thread
 * reads it, so every change is fenced against the lock word's access
 * with a signal fence (a compiler barrier): the count covers the whole
 * time the lock is held.  [owner context] */
extern __thread int wt_locks_held __attribute__((tls_model("initial-exec")));
static inline void wt_locks_inc(void)
{
	wt_locks_held++;
	atomic_signal_fence(memory_order_seq_cst); /* before the lock word */
}
static inline void wt_locks_dec(void)
{
	atomic_signal_fence(memory_order_seq_cst); /* after the lock word */
	wt_locks_held--;
}

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
	wt_locks_inc();
	/* Acquire: pairs with the release in wt_spin_unlock. */
	if (__builtin_expect(atomic_exchange_explicit(&l->v, 1, memory_order_acquire), 0))
		wt_spin_lock_slow(l);
}
static inline void wt_spin_unlock(wt_spin_t *l)
{
	wt_lockrank_release(l);
	atomic_store_explicit(&l->v, 0, memory_order_release);
	wt_locks_dec();
}

/* abs_mono: an absolute CLOCK_MONOTONIC deadline, or NULL.  0 or -errno. */
long wt_futex_wait(_Atomic int *addr, int val, const struct timespec *abs_mono, bool shared);
long wt_futex_wake(_Atomic int *addr, int n, bool shared);
/* A private wait that holds no weft lock: a program's signal handler may
 * run during it. */
long wt_futex_wait_sigok(_Atomic int *addr, int val, const struct timespec *abs_mono);

#endif
