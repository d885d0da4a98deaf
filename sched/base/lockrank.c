/*
 * lockrank.c — the lock-order check of a debug build (WT_DEBUG_LOCKS).
 *
 * Each OS thread's held locks are kept in a table keyed by its kernel
 * thread id: locks belong to OS threads (a bucket lock taken by a task is
 * released by its worker's g0), and TLS cannot tell OS threads apart here
 * because every task brings its own.  gettid costs a system call per lock
 * operation, which only a debug build pays.  The table is mapped on first
 * use (no malloc: the allocator's locks may be ours) and an entry, once
 * claimed by a tid, stays its; a thread exits holding nothing, so a tid the
 * kernel hands out again finds an empty list.
 *
 * A signal handler may interrupt a thread between its lock calls and take
 * locks of its own; it releases them before returning, so the list works
 * as a stack.  A push writes its slot, publishes the count, then writes the
 * slot again: a handler that ran between the first write and the count
 * overwrote that slot, and the second write repairs it.
 */
#ifdef WT_DEBUG_LOCKS
#include <sys/syscall.h>

#include "arch.h"
#include "lock.h"
#include "print.h"
#include "slab.h"
#include "throw.h"

#define NHELD 16
#define NTHREADS 65536 /* table entries; more live threads than this is refused */

struct held {
	_Atomic int tid;        /* 0 = free entry */
	int n;                  /* [this thread] */
	const void *lock[NHELD];
	int rank[NHELD];
};

static struct held *_Atomic table;

static const char *const names[WT_RANK_COUNT] = {
	[WT_RANK_NONE] = "unranked",
	[WT_RANK_START] = "START",
	[WT_RANK_SETXID] = "SETXID",
	[WT_RANK_PTRACE] = "PTRACE",
	[WT_RANK_TLS_SYNC] = "TLS_SYNC",
	[WT_RANK_TIMELINE] = "TIMELINE",
	[WT_RANK_SYMBOL] = "SYMBOL",
	[WT_RANK_URING_INIT] = "URING_INIT",
	[WT_RANK_NETPOLL_INIT] = "NETPOLL_INIT",
	[WT_RANK_STACK_INIT] = "STACK_INIT",
	[WT_RANK_URING_SQ] = "URING_SQ",
	[WT_RANK_URING_CQ] = "URING_CQ",
	[WT_RANK_ALLTASKS] = "ALLTASKS",
	[WT_RANK_PARK] = "PARK",
	[WT_RANK_TIMERS] = "TIMERS",
	[WT_RANK_SCHED] = "SCHED",
	[WT_RANK_RTQ] = "RTQ",
	[WT_RANK_STACK_PACK] = "STACK_PACK",
	[WT_RANK_STACK] = "STACK",
	[WT_RANK_UNJOINED] = "UNJOINED",
	[WT_RANK_PSHARED] = "PSHARED",
	[WT_RANK_SHMAP] = "SHMAP",
	[WT_RANK_SLAB] = "SLAB",
	[WT_RANK_RNG] = "RNG",
	[WT_RANK_PRIVFD] = "PRIVFD",
};

static struct held *self(void)
{
	struct held *tab = atomic_load_explicit(&table, memory_order_acquire);
	if (!tab) {
		struct held *fresh = wt_mmap_anon(sizeof(struct held) * NTHREADS);
		if (!fresh)
			wt_throw("lock order check: cannot map its table");
		/* Release: pairs with the acquire load above in other threads. */
		if (atomic_compare_exchange_strong_explicit(&table, &tab, fresh,
							    memory_order_acq_rel,
							    memory_order_acquire))
			tab = fresh;
		else
			wt_syscall6(SYS_munmap, (long)fresh, sizeof(struct held) * NTHREADS, 0, 0,
				    0, 0);
	}
	int tid = (int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	unsigned h = ((unsigned)tid * 2654435761u) % NTHREADS;
	for (int i = 0; i < NTHREADS; i++, h = (h + 1) % NTHREADS) {
		int t = atomic_load_explicit(&tab[h].tid, memory_order_relaxed);
		if (t == tid)
			return &tab[h];
		if (t == 0) {
			int z = 0;
			if (atomic_compare_exchange_strong_explicit(&tab[h].tid, &z, tid,
								    memory_order_relaxed,
								    memory_order_relaxed))
				return &tab[h];
			if (z == tid)
				return &tab[h];
		}
	}
	wt_throw("lock order check: too many threads");
}

void wt_lockrank_acquire(const void *l, int rank, bool try)
{
	struct held *h = self();
	if (rank <= WT_RANK_NONE || rank >= WT_RANK_COUNT) {
		wt_print("weft: lock order: lock %p has no rank\n", l);
		wt_throw("lock order");
	}
	for (int i = 0; i < h->n; i++) {
		if (!h->lock[i])
			continue;
		if (h->lock[i] == l) {
			wt_print("weft: lock order: lock %p (%s) taken again by the thread "
				 "that holds it\n", l, names[rank]);
			wt_throw("lock order");
		}
		if (!try && h->rank[i] >= rank) {
			wt_print("weft: lock order: %s lock %p taken while holding %s lock %p\n",
				 names[rank], l, names[h->rank[i]], h->lock[i]);
			wt_throw("lock order");
		}
	}
	int i = h->n;
	if (i == NHELD)
		wt_throw("lock order check: a thread holds too many locks");
	h->lock[i] = l;
	h->rank[i] = rank;
	atomic_signal_fence(memory_order_seq_cst);
	h->n = i + 1;
	atomic_signal_fence(memory_order_seq_cst);
	h->lock[i] = l;
	h->rank[i] = rank;
}

/* The child of a fork: one thread, which held no runtime lock at the fork
 * (process/fork.c resets every lock); the parent's table is dropped, not freed. */
void wt_lockrank_fork_reset(void)
{
	atomic_store_explicit(&table, NULL, memory_order_relaxed);
}

void wt_lockrank_release(const void *l)
{
	struct held *h = self();
	for (int i = h->n - 1; i >= 0; i--) {
		if (h->lock[i] != l)
			continue;
		h->lock[i] = NULL;
		int n = h->n;
		while (n > 0 && !h->lock[n - 1])
			n--;
		atomic_signal_fence(memory_order_seq_cst);
		h->n = n;
		return;
	}
	wt_print("weft: lock order: lock %p released by a thread that does not hold it\n", l);
	wt_throw("lock order");
}
#endif
