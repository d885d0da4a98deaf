/*
 * unjoined.c — tasks that exited before they were joined, found by their
 * pthread_t.
 *
 * A joinable task that exits with no joiner waiting gives its stack slot
 * back at once (stack/stack.c: wt_stack_exit_release), so the next pthread_create
 * reuses its warm pages, as a Go goroutine that returns hands its stack on;
 * and it gives its task record back too (task.c: wt_task_after_exit), so
 * the next create reuses that warm record.  What its join or detach still
 * needs (exit value, and what pthread_getattr_np reports) moves into a
 * record of 48 bytes, struct wt_unjoined, from a slab of its own.  No
 * name: glibc answers pthread_getname_np and pthread_setname_np on a
 * thread that has exited with ENOENT (its descriptor's tid is 0, and
 * /proc/self/task/0 does not exist), and so does weft (shim/pthread_create.c).  Its pthread_t is the address of its TCB, inside the slot it
 * no longer owns: this table maps that address to the small record until
 * the join or detach takes it out, and stack/stack.c keeps every later TCB of
 * that slot off the address, so no two unjoined threads share a pthread_t.
 *
 * Measured (bench/spawn: 10,000 threads created, all exiting at once,
 * then joined): the 10,000 task records of 632 bytes the table held were
 * about 1,550 of the 2,230 pages the run first-touched, each about 30 us
 * of a loaded virtual machine's kernel; 10,000 small records are 118.
 *
 * A hash of 2^14 chains through the records, under one lock; an empty
 * table is seen without it.  A page of buckets is never read before its
 * first write (`written`): a read would map the shared zero page, and the
 * write after it costs a copy and a TLB shoot-down across the workers'
 * CPUs (measured: 8% of a create-10k-then-join run).  2^16 buckets were
 * 128 pages for 10,000 unjoined tasks; 2^14 are 32, with chains of 6 at
 * 100,000.
 */
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "arch.h"
#include "base/lock.h"
#include "base/slab.h"
#include "task.h"
#include "unjoined.h"

#define BITS 14
#define PAGES ((sizeof(struct wt_unjoined *) << BITS) / 4096)
#define WORDS ((PAGES + 63) / 64)

static struct {
	wt_lock_t lock;
	struct wt_unjoined **bucket;    /* [lock] mapped on first use */
	uint64_t written[WORDS];        /* [lock] pages of bucket[] written */
	int64_t empty_since;            /* [sysmon] mono ns the table was first seen empty, 0 = not */
	_Atomic long n;                 /* [lock to write; read lock-free] entries */
} U = { .lock = WT_LOCK_INIT(WT_RANK_UNJOINED) };

static struct wt_slab rec_slab = WT_SLAB_INIT_TRIMMED(sizeof(struct wt_unjoined));

struct wt_unjoined *wt_unjoined_new(struct wt_task *t)
{
	struct wt_unjoined *u = wt_slab_alloc(&rec_slab);
	if (!u)
		return NULL;
	u->tp = t->tp;
	u->retval = t->retval;
	u->stack_top = t->stack_top;
	u->stack_size = t->stack_size;
	u->guard_size = t->guard_size;
	return u;
}

void wt_unjoined_free(struct wt_unjoined *u)
{
	wt_slab_free(&rec_slab, u);
}

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

bool wt_unjoined_add(struct wt_unjoined *t)
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
		t->next = NULL; /* the page is all zero: no read */
	} else {
		t->next = U.bucket[i];
	}
	U.bucket[i] = t;
	atomic_store_explicit(&U.n, U.n + 1, memory_order_relaxed);
	wt_unlock(&U.lock);
	return true;
}

/* The record of pt in the table ([lock]), or NULL; *link: where it is
 * linked from. */
static struct wt_unjoined *lookup(uintptr_t pt, struct wt_unjoined ***link)
{
	size_t i = bucket_of(pt);
	if (!U.bucket || !written(i))
		return NULL;
	struct wt_unjoined **c = &U.bucket[i];
	while (*c && (*c)->tp != pt)
		c = &(*c)->next;
	*link = c;
	return *c;
}

struct wt_unjoined *wt_unjoined_take(uintptr_t pt)
{
	if (atomic_load_explicit(&U.n, memory_order_relaxed) == 0)
		return NULL;
	struct wt_unjoined **c, *u;
	wt_lock(&U.lock);
	if ((u = lookup(pt, &c))) {
		*c = u->next;
		atomic_store_explicit(&U.n, U.n - 1, memory_order_relaxed);
	}
	wt_unlock(&U.lock);
	return u;
}

bool wt_unjoined_find(uintptr_t pt, struct wt_unjoined *copy)
{
	if (atomic_load_explicit(&U.n, memory_order_relaxed) == 0)
		return false;
	struct wt_unjoined **c, *u;
	wt_lock(&U.lock);
	if ((u = lookup(pt, &c)))
		*copy = *u;
	wt_unlock(&U.lock);
	return u != NULL;
}

/* sysmon: released records give their pages back (base/slab.c), and a table
 * that stayed empty for a second its bucket pages (100,000 unjoined tasks
 * write all 32 of them). */
void wt_unjoined_scavenge(int64_t now)
{
	wt_slab_trim(&rec_slab, now); /* the records of joined ones, as task.c's */
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
	uint64_t any = 0;
	for (size_t w = 0; w < WORDS; w++)
		any |= U.written[w];
	if (atomic_load_explicit(&U.n, memory_order_relaxed) == 0 && any) {
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
	wt_slab_fork_reset(&rec_slab);
}
