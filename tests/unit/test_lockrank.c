/*
 * test_lockrank.c — the debug build's lock-order check (sched/base/lockrank.c),
 * compiled in here with WT_DEBUG_LOCKS.  Each broken order must abort.
 */
#define WT_DEBUG_LOCKS 1
#include <criterion/criterion.h>
#include <pthread.h>
#include <signal.h>

#include "sched/base/lockrank.c"

static int a, b, c;

Test(lockrank, in_order_nests_and_releases_any_order)
{
	wt_lockrank_acquire(&a, WT_RANK_PARK, false);
	wt_lockrank_acquire(&b, WT_RANK_TIMERS, false);
	wt_lockrank_acquire(&c, WT_RANK_SLAB, false);
	wt_lockrank_release(&b); /* out of stack order */
	wt_lockrank_release(&c);
	/* b's rank is free again below PARK's holder: TIMERS after PARK. */
	wt_lockrank_acquire(&b, WT_RANK_TIMERS, false);
	wt_lockrank_release(&b);
	wt_lockrank_release(&a);
	/* Nothing held: any rank. */
	wt_lockrank_acquire(&a, WT_RANK_START, false);
	wt_lockrank_release(&a);
}

Test(lockrank, inverted_order_aborts, .signal = SIGABRT)
{
	wt_lockrank_acquire(&a, WT_RANK_SCHED, false);
	wt_lockrank_acquire(&b, WT_RANK_PARK, false);
}

Test(lockrank, same_rank_twice_aborts, .signal = SIGABRT)
{
	wt_lockrank_acquire(&a, WT_RANK_PARK, false);
	wt_lockrank_acquire(&b, WT_RANK_PARK, false);
}

Test(lockrank, relock_aborts, .signal = SIGABRT)
{
	wt_lockrank_acquire(&a, WT_RANK_SLAB, false);
	wt_lockrank_acquire(&a, WT_RANK_SLAB, true);
}

Test(lockrank, trylock_may_invert)
{
	wt_lockrank_acquire(&a, WT_RANK_SCHED, false);
	wt_lockrank_acquire(&b, WT_RANK_PARK, true);
	wt_lockrank_release(&b);
	wt_lockrank_release(&a);
}

Test(lockrank, unranked_aborts, .signal = SIGABRT)
{
	wt_lockrank_acquire(&a, WT_RANK_NONE, false);
}

Test(lockrank, release_unheld_aborts, .signal = SIGABRT)
{
	wt_lockrank_release(&c);
}

/* Held locks are per OS thread: another thread's holdings do not count. */
static void *other(void *arg)
{
	wt_lockrank_acquire(&b, WT_RANK_PARK, false);
	wt_lockrank_release(&b);
	return arg;
}

Test(lockrank, per_thread)
{
	pthread_t th;
	wt_lockrank_acquire(&a, WT_RANK_SCHED, false);
	pthread_create(&th, NULL, other, NULL);
	pthread_join(th, NULL);
	wt_lockrank_release(&a);
}
