/*
 * pthread_barrier.c — barriers that park tasks.
 *
 * Layout inside the program's pthread_barrier_t (32 bytes):
 *   bytes 0-7   state: generation (high 32 bits) | arrived (low 32 bits),
 *               changed only by CAS, so an arrival knows its round exactly;
 *   bytes 8-11  count (set by init);
 *   bytes 12-15 flags: bit 31 = weft's layout (process-shared barriers are
 *               initialised by glibc, which never sets it; their waits
 *               are glibc's, BRACKETED, and a waiter with asynchronous
 *               cancellation enabled is cancelled there: shim.h, KWAIT).
 * The last arrival of a round swaps in (generation + 1, 0) and wakes
 * everyone parked on the state word; a waiter sleeps while the generation
 * it arrived in is current.  A waiter with asynchronous cancellation
 * enabled is cancelled there, as glibc's is; its arrival stays counted.
 */
#include "shim.h"
#include "core/task.h"

struct bar {
	_Atomic uint64_t state;
	_Atomic unsigned count, flags;
};

_Static_assert(sizeof(struct bar) <= sizeof(pthread_barrier_t), "barrier layout");

WT_EXPORT int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *a,
				   unsigned count)
{
	int shared = 0;
	if (count == 0)
		return EINVAL;
	if (a)
		pthread_barrierattr_getpshared(a, &shared);
	if (shared == PTHREAD_PROCESS_SHARED) {
		wt_real_init();
		int r = real.pthread_barrier_init(b, a, count);
		/* glibc keeps its own layout; mark it ours-not via word 3. */
		return r;
	}
	struct bar *s = (struct bar *)b;
	atomic_store(&s->count, count);
	atomic_store(&s->state, 0);
	atomic_store(&s->flags, 0x80000000u); /* weft's layout */
	return 0;
}

static bool same_gen(const void *addr, uintptr_t gen)
{
	return atomic_load((_Atomic uint64_t *)addr) >> 32 == gen;
}

WT_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	struct bar *s = (struct bar *)b;
	if (!(atomic_load(&s->flags) & 0x80000000u)) {
		wt_real_init();
		return KWAIT(false, real.pthread_barrier_wait(b));
	}
	unsigned count = atomic_load(&s->count);
	uint64_t v = atomic_load(&s->state), nv;
	do {
		uint32_t arrived = (uint32_t)v + 1;
		nv = arrived == count ? ((v >> 32) + 1) << 32 : v + 1;
	} while (!atomic_compare_exchange_weak(&s->state, &v, nv));
	uint64_t gen = v >> 32;
	if ((uint32_t)v + 1 == count) {
		wt_unpark(&s->state, 0x7fffffff);
		return PTHREAD_BARRIER_SERIAL_THREAD;
	}
	struct wt_task *t = wt_cur();
	while (atomic_load(&s->state) >> 32 == gen) {
		wt_wait_reason("pthread_barrier_wait");
		if (wt_park(&s->state, same_gen, gen, -1, t && wt_cancel_async_on(t)) ==
		    WT_PARK_CANCELED)
			wt_cancel_act();
	}
	return 0;
}

WT_EXPORT int pthread_barrier_destroy(pthread_barrier_t *b)
{
	struct bar *s = (struct bar *)b;
	if (!(atomic_load(&s->flags) & 0x80000000u)) {
		wt_real_init();
		return real.pthread_barrier_destroy(b);
	}
	if ((uint32_t)atomic_load(&s->state) != 0)
		return EBUSY;
	atomic_store(&s->flags, 0);
	return 0;
}
