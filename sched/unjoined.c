/*
 * unjoined.c — exited tasks not yet joined, found by their pthread_t.
 *
 * A joinable task that exits gives its stack slot back at once (stack.c:
 * wt_stack_exit_release), so the next pthread_create reuses its warm
 * pages, as a Go goroutine that returns hands its stack on.  What a join
 * or detach still needs is the task record (exit value, join state),
 * which stays.  Its pthread_t is the address of its TCB, inside the slot
 * it no longer owns: this table maps that address to the record until the
 * join or detach, so pthread_join, pthread_kill, pthread_getattr_np, ...
 * still find it, and stack.c keeps every later TCB of that slot off the
 * address, so no two unjoined threads share a pthread_t.
 *
 * A hash of 2^16 chains through the records (t->unjoined_next), under one
 * lock; an empty table is seen without it.  A page of buckets is never
 * read before its first write (`written`): a read would map the shared
 * zero page, and the write after it costs a copy and a TLB shoot-down
 * across the workers' CPUs (measured: 8% of a create-10k-then-join run).
 */
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "arch.h"
#include "lock.h"
#include "slab.h"
#include "unjoined.h"

#define BITS 16
#define PAGES ((sizeof(struct wt_task *) << BITS) / 4096)

static struct {
	wt_lock_t lock;
	struct wt_task **bucket;        /* [lock] mapped on first use */
	uint64_t written[PAGES / 64];   /* [lock] pages of bucket[] written */
	int64_t empty_since;            /* [sysmon] mono ns the table was first seen empty, 0 = not */
	_Atomic long n;                 /* [lock to write; read lock-free] entries */
} U = { .lock = WT_LOCK_INIT(WT_RANK_UNJOINED) };

static size_t bucket_of(uintptr_t pt)
{
	return (size_t)((pt >> 6) * 0x9e3779b97f4a7c15ull >> (64 - BITS));
}

/* bucket i's page has been written ([lock]). */
static bool written(size_t i)
{
	size_t pg = i * sizeof(struct wt_task *) / 4096;
	return U.written[pg / 64] & (1ull << (pg % 64));
}

bool wt_unjoined_add(struct wt_task *t)
{
	wt_lock(&U.lock);
	if (!U.bucket && !(U.bucket = wt_mmap_anon(sizeof(*U.bucket) << BITS))) {
		wt_unlock(&U.lock);
		return false;
	}
	size_t i = bucket_of(t->tp);
	if (!written(i)) {
		size_t pg = i * sizeof(struct wt_task *) / 4096;
		U.written[pg / 64] |= 1ull << (pg % 64);
		t->unjoined_next = NULL; /* the page is all zero: no read */
	} else {
		t->unjoined_next = U.bucket[i];
	}
	U.bucket[i] = t;
	atomic_store_explicit(&U.n, U.n + 1, memory_order_relaxed);
	wt_unlock(&U.lock);
	return true;
}

void wt_unjoined_del(struct wt_task *t)
{
	wt_lock(&U.lock);
	for (struct wt_task **c = &U.bucket[bucket_of(t->tp)]; *c; c = &(*c)->unjoined_next)
		if (*c == t) {
			*c = t->unjoined_next;
			atomic_store_explicit(&U.n, U.n - 1, memory_order_relaxed);
			break;
		}
	wt_unlock(&U.lock);
}

struct wt_task *wt_unjoined_find(uintptr_t pt)
{
	if (atomic_load_explicit(&U.n, memory_order_relaxed) == 0)
		return NULL;
	wt_lock(&U.lock);
	size_t i = bucket_of(pt);
	struct wt_task *t = written(i) ? U.bucket[i] : NULL;
	while (t && t->tp != pt)
		t = t->unjoined_next;
	wt_unlock(&U.lock);
	return t;
}

/* sysmon: a table that stayed empty for a second gives its bucket pages
 * back (100,000 unjoined tasks write all 128 of them). */
void wt_unjoined_scavenge(int64_t now)
{
	if (atomic_load_explicit(&U.n, memory_order_relaxed) != 0) {
		U.empty_since = 0;
		return;
	}
	if (!U.empty_since) {
		U.empty_since = now;
		return;
	}
	if (now - U.empty_since < 1000000000ll)
		return;
	wt_lock(&U.lock);
	if (atomic_load_explicit(&U.n, memory_order_relaxed) == 0 && (U.written[0] | U.written[1])) {
		wt_syscall6(SYS_madvise, (long)U.bucket, (long)(PAGES * 4096), MADV_DONTNEED, 0, 0, 0);
		memset(U.written, 0, sizeof U.written);
	}
	wt_unlock(&U.lock);
	U.empty_since = 0;
}

/* Fork child: a table torn by a parent thread's insert is dropped (its
 * records leak, as the other tasks' do). */
void wt_unjoined_fork_reset(void)
{
	if (atomic_load_explicit(&U.lock.v, memory_order_relaxed)) {
		U.bucket = NULL;
		memset(U.written, 0, sizeof U.written);
		atomic_store_explicit(&U.n, 0, memory_order_relaxed);
	}
	atomic_store_explicit(&U.lock.v, 0, memory_order_relaxed);
}
