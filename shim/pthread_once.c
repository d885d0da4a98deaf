/*
 * pthread_once.c — once-only initialisation that parks waiters.
 *
 * glibc's version waits with a raw futex, which would block a worker while
 * the initialising task is parked (a deadlock with GOMAXPROCS=1).
 * States of the int (PTHREAD_ONCE_INIT = 0): 0 not run, 1 running,
 * 2 done.  If the init routine is cancelled, the state returns to 0 and
 * waiters retry, as POSIX asks.
 */
#include "shim.h"
#include "core/task.h"

static bool running(const void *addr, uintptr_t arg)
{
	(void)arg;
	return atomic_load((_Atomic int *)addr) == 1;
}

static void reset(void *p)
{
	atomic_store((_Atomic int *)p, 0);
	wt_unpark(p, 0x7fffffff);
}

WT_EXPORT int pthread_once(pthread_once_t *once, void (*fn)(void))
{
	_Atomic int *s = (_Atomic int *)once;
	for (;;) {
		/* Acquire: pairs with the release store of 2 below. */
		int v = atomic_load_explicit(s, memory_order_acquire);
		if (v == 2)
			return 0;
		if (v == 0) {
			int z = 0;
			if (!atomic_compare_exchange_strong(s, &z, 1))
				continue;
			pthread_cleanup_push(reset, (void *)once);
			fn();
			pthread_cleanup_pop(0);
			atomic_store_explicit(s, 2, memory_order_release);
			wt_unpark(once, 0x7fffffff);
			return 0;
		}
		wt_wait_reason("pthread_once");
		wt_park(once, running, 0, -1, false);
	}
}
WT_OWN(pthread_once);
