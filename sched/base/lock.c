/*
 * lock.c — the runtime's own lock and futex helpers.
 *
 * wt_lock_t is a three-state futex lock (0 free, 1 held, 2 held and maybe
 * waited on).  It never parks a task: a runtime critical section is a few
 * dozen instructions, and parking would need the scheduler, which needs these
 * locks.  It may be taken by tasks, workers on g0, sysmon and threads weft did
 * not create.  A holder is never preempted by weft (the preemption handler
 * refuses to switch inside libweft).
 *
 * System calls go through wt_syscall6 (arch.h), which does not touch errno:
 * a runtime path must not clobber the program's errno.
 *
 * Both kinds count the locks the running context holds (lock.h:
 * wt_locks_held), from before the lock word is taken to after it is
 * released: the signal trampoline (signal/sighandler.c) holds a program's
 * handler back while the count is not zero, wherever the thread's pc is
 * (libc or the vDSO, called under a lock).  A trylock that fails leaves
 * the count as it was.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include "arch.h"
#include "lock.h"

/* abs_mono: absolute CLOCK_MONOTONIC deadline, or NULL.  Returns 0 or -errno. */
long wt_futex_wait(_Atomic int *addr, int val, const struct timespec *abs_mono, bool shared)
{
	int op = FUTEX_WAIT_BITSET | (shared ? 0 : FUTEX_PRIVATE_FLAG);
	return wt_syscall6(SYS_futex, (long)addr, op, val, (long)abs_mono, 0,
			   FUTEX_BITSET_MATCH_ANY);
}

/* The same, for a wait that holds no weft lock: a program's signal handler
 * may run during it (wt_syscall6_sigok). */
long wt_futex_wait_sigok(_Atomic int *addr, int val, const struct timespec *abs_mono)
{
	return wt_syscall6_sigok(SYS_futex, (long)addr, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, val,
				 (long)abs_mono, 0, FUTEX_BITSET_MATCH_ANY);
}

long wt_futex_wake(_Atomic int *addr, int n, bool shared)
{
	int op = FUTEX_WAKE | (shared ? 0 : FUTEX_PRIVATE_FLAG);
	return wt_syscall6(SYS_futex, (long)addr, op, n, 0, 0, 0);
}

/* wt_lock_t's word: CONTENDED = held, and a thread may sleep on it. */
enum { FREE = 0, HELD = 1, CONTENDED = 2 };

__thread int wt_locks_held __attribute__((tls_model("initial-exec")));

bool wt_trylock(wt_lock_t *l)
{
	int z = FREE;
	wt_locks_inc();
	/* Acquire: pairs with the release in wt_unlock. */
	if (!atomic_compare_exchange_strong_explicit(&l->v, &z, HELD, memory_order_acquire,
						     memory_order_relaxed)) {
		wt_locks_dec();
		return false;
	}
	wt_lockrank_acquire(l, l->rank, true);
	return true;
}

void wt_lock(wt_lock_t *l)
{
	wt_lockrank_acquire(l, l->rank, false);
	wt_locks_inc();
	int z = FREE;
	if (likely(atomic_compare_exchange_strong_explicit(&l->v, &z, HELD, memory_order_acquire,
							   memory_order_relaxed)))
		return;
	/* Spin briefly: holders keep the lock for a handful of instructions. */
	for (int i = 0; i < 100; i++) {
		wt_arch_pause();
		z = FREE;
		if (atomic_load_explicit(&l->v, memory_order_relaxed) == FREE &&
		    atomic_compare_exchange_weak_explicit(&l->v, &z, HELD, memory_order_acquire,
							  memory_order_relaxed))
			return;
	}
	while (atomic_exchange_explicit(&l->v, CONTENDED, memory_order_acquire) != FREE)
		wt_futex_wait(&l->v, CONTENDED, NULL, false);
}

void wt_unlock(wt_lock_t *l)
{
	wt_lockrank_release(l);
	/* Release: pairs with the acquiring CAS/exchange in wt_lock. */
	if (atomic_exchange_explicit(&l->v, FREE, memory_order_release) == CONTENDED)
		wt_futex_wake(&l->v, 1, false);
	wt_locks_dec();
}

void wt_spin_lock_slow(wt_spin_t *l)
{
	for (int i = 0;; i++) {
		if (i < 200)
			wt_arch_pause();
		else
			wt_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
		if (atomic_load_explicit(&l->v, memory_order_relaxed) == 0 &&
		    !atomic_exchange_explicit(&l->v, 1, memory_order_acquire))
			return;
	}
}
