/*
 * pthread_spin.c — spinlocks that let the holder run.
 *
 * glibc's spinlock spins forever; with fewer procs than tasks the holder may
 * be runnable but not running, so after a short spin a task yields its proc.
 * The lock word is glibc's for the architecture (arch.h: WT_ARCH_SPIN_FREE,
 * what pthread_spin_init stores, and WT_ARCH_SPIN_HELD).  init and destroy
 * stay glibc's.
 */
#include <sys/syscall.h>

#include "shim.h"
#include "signal/sighandler.h"
#include "core/proc.h"

static inline bool take(_Atomic int *w)
{
	/* Acquire: pairs with the release store in pthread_spin_unlock. */
	return atomic_load_explicit(w, memory_order_relaxed) == WT_ARCH_SPIN_FREE &&
	       atomic_exchange_explicit(w, WT_ARCH_SPIN_HELD, memory_order_acquire) ==
		       WT_ARCH_SPIN_FREE;
}

WT_EXPORT int pthread_spin_lock(pthread_spinlock_t *l)
{
	_Atomic int *w = (_Atomic int *)l;
	for (;;) {
		for (int i = 0; i < 200; i++) {
			if (take(w))
				return 0;
			wt_arch_pause();
		}
		if (wt_cur())
			wt_yield();
		else
			wt_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
	}
}

WT_EXPORT int pthread_spin_trylock(pthread_spinlock_t *l)
{
	if (atomic_exchange_explicit((_Atomic int *)l, WT_ARCH_SPIN_HELD, memory_order_acquire) ==
	    WT_ARCH_SPIN_FREE)
		return 0;
	RETURN_POINT(); /* a loop of failed attempts never switches */
	return EBUSY;
}

WT_EXPORT int pthread_spin_unlock(pthread_spinlock_t *l)
{
	atomic_store_explicit((_Atomic int *)l, WT_ARCH_SPIN_FREE, memory_order_release);
	wt_sig_unlocked();
	RETURN_POINT();
	return 0;
}
