/*
 * shmap.c — which of the process's memory another process may see: the
 * ranges it maps shared, kept as the program maps them.
 *
 * A futex call without FUTEX_PRIVATE_FLAG (libstdc++'s std::latch,
 * std::barrier, std::counting_semaphore and std::atomic<T>::wait, as gcc
 * 12 builds them, and many programs' own futexes) asks the kernel to key
 * the word by the memory behind it, so that a waiter and a waker in two
 * processes that map it meet.  Only memory mapped shared can be seen by
 * another process: MAP_SHARED files and anonymous memory (kept across a
 * fork), memfd and /dev/shm files mapped shared, System V segments.  A
 * word anywhere else (stack, heap, data, private anonymous memory, a
 * MAP_PRIVATE file) is private whatever the flag says, and the kernel keys
 * it by this process's address space too.  shim/syscall.c parks a task
 * that waits on such a word, as for a private futex, and leaves to the
 * kernel the waits on words this table says may be shared.  Wakes never
 * ask: they wake the tasks parked on the address, then the kernel's
 * waiters, so only a wait's answer matters, and its safe answer is
 * "shared" (the kernel's wait, what weft did for every flagless futex
 * before this table).
 *
 * The table: up to SHMAP_MAX ranges [lo, hi), page-aligned, sorted and
 * disjoint, of what the program mapped shared through weft's mmap,
 * mremap and shmat (shim/mman.c; the same calls made with syscall(),
 * shim/syscall.c).  A mapping made before libweft.so's first entry is
 * ld.so's, private.  Writers (those calls, after the kernel said yes and
 * before the address goes back to the program) hold `lock` and bump `seq`
 * around each change; a reader (every futex call without the flag) reads
 * the count, and when there are ranges, searches them under the sequence
 * count and retries if a change ran meanwhile (1,000 times, then answers
 * shared): no lock and no system call on the futex path, and one load
 * when the process maps nothing shared, as most do.  A change to a range
 * that a wait is using at that moment (an munmap of the word a thread
 * sleeps on) is the program's race as natively.
 *
 * Errors fall to the shared side: a range left in the table after a
 * change the shim did not see (glibc's own munmap, a raw system call)
 * costs a kernel wait, and the next mmap that gets those addresses puts them right (any
 * mmap clears what it covers).  A table that cannot hold a range, a
 * System V segment whose size is not known, or a change cut short by a
 * fork (the child's copy may be torn) make the table untrusted: every
 * address counts as shared from then on.  The other error, a shared
 * mapping the shim never saw (made by an inline system call or by glibc
 * inside another call, as sem_open maps its file), would park a waiter
 * that another process's kernel wake cannot reach; glibc's own users of
 * such memory (sem_open's semaphores, robust and process-shared mutexes)
 * never come here, since they decide by their own flags (shim/semaphore.c,
 * pthread_mutex.c).
 *
 * Rejected:
 *   - asking the kernel per wait (/proc/self/maps, or a probe such as
 *     mincore): a file read or a system call on a path that natively makes
 *     one only when it must sleep; a read of a 123-line maps file took
 *     175-257 µs on a loaded 2-core machine, a mincore 2-12 µs, and
 *     mincore cannot tell shared from private anyway;
 *   - every flagless futex private: a parent and its child waiting on a
 *     word in MAP_SHARED memory would never wake each other;
 *   - every flagless futex shared (weft before this table): each waiter
 *     holds an OS thread in the kernel, and 10,000 threads waiting on a
 *     std::latch fill WEFT_MAXTHREADS and hang.
 */
#include <sys/auxv.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>

#include "arch.h"
#include "base/lock.h"
#include "core/park.h"
#include "shmap.h"

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

/* Ranges the table holds: 64 KiB, touched only by a process that maps
 * shared.  A process beyond it (a database mapping thousands of shared
 * chunks) falls back to the kernel for every flagless futex. */
#define SHMAP_MAX 4096

struct shmap_range {
	_Atomic uintptr_t lo, hi;       /* [lock to write; seq to read] */
};
static struct shmap_range ranges[SHMAP_MAX] WT_BSS_LARGE;

static struct {
	_Atomic unsigned seq;   /* odd while a change runs [lock to write] */
	_Atomic int n;          /* ranges in use [lock to write; seq to read] */
	_Atomic bool untrusted; /* every address is shared [lock to set; atomic] */
} shm;
static wt_lock_t lock = WT_LOCK_INIT(WT_RANK_SHMAP);

static uintptr_t page_size(void)
{
	static _Atomic uintptr_t page; /* [atomic] 0 until first asked */
	uintptr_t p = atomic_load_explicit(&page, memory_order_relaxed);
	if (unlikely(!p)) {
		p = getauxval(AT_PAGESZ);
		if (!p)
			p = 4096;
		atomic_store_explicit(&page, p, memory_order_relaxed);
	}
	return p;
}

static inline uintptr_t lo_of(int i)
{
	return atomic_load_explicit(&ranges[i].lo, memory_order_relaxed);
}
static inline uintptr_t hi_of(int i)
{
	return atomic_load_explicit(&ranges[i].hi, memory_order_relaxed);
}
static inline void set(int i, uintptr_t lo, uintptr_t hi)
{
	atomic_store_explicit(&ranges[i].lo, lo, memory_order_relaxed);
	atomic_store_explicit(&ranges[i].hi, hi, memory_order_relaxed);
}

/* The last of the first n ranges whose lo is at most a, or -1. */
static int find(uintptr_t a, int n)
{
	int l = 0, h = n;
	while (l < h) {
		int mid = l + (h - l) / 2;
		if (lo_of(mid) <= a)
			l = mid + 1;
		else
			h = mid;
	}
	return l - 1;
}

/* Whether a range of the table meets [lo, hi) (hi > lo).  Context: any;
 * retries while a change runs. */
static bool overlaps(uintptr_t lo, uintptr_t hi)
{
	if (unlikely(atomic_load_explicit(&shm.untrusted, memory_order_relaxed)))
		return true;
	if (likely(atomic_load_explicit(&shm.n, memory_order_relaxed) == 0))
		return false;
	for (int tries = 0;; tries++) {
		/* Acquire: pairs with the writer's release as it ends a change. */
		unsigned s = atomic_load_explicit(&shm.seq, memory_order_acquire);
		if (tries > 1000) /* a writer keeps changing it: the kernel's side */
			return true;
		if (s & 1) {
			wt_arch_pause();
			continue;
		}
		int n = atomic_load_explicit(&shm.n, memory_order_relaxed);
		if (n > SHMAP_MAX)
			n = SHMAP_MAX;
		int i = find(hi - 1, n);
		bool in = i >= 0 && hi_of(i) > lo;
		/* The range's loads before the second read of seq: pairs with
		 * the writer's release fence as it begins a change. */
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&shm.seq, memory_order_relaxed) == s)
			return in || atomic_load_explicit(&shm.untrusted, memory_order_relaxed);
	}
}

bool wt_shmap_shared(const void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	return overlaps(a, a + 1);
}

int wt_shmap_wake(_Atomic int *w, int n)
{
	int woken = wt_unpark((const void *)w, n);
	if (woken < n) {
		long k = wt_futex_wake(w, n - woken, true);
		if (k > 0)
			woken += (int)k;
	}
	return woken;
}

/* A change: under lock, seq odd meanwhile. */
static void begin(void)
{
	wt_lock(&lock);
	unsigned s = atomic_load_explicit(&shm.seq, memory_order_relaxed);
	atomic_store_explicit(&shm.seq, s + 1, memory_order_relaxed);
	/* The odd count before any range store: pairs with the reader's
	 * acquire fence. */
	atomic_thread_fence(memory_order_release);
}

static void end(void)
{
	unsigned s = atomic_load_explicit(&shm.seq, memory_order_relaxed);
	/* Release: the range stores before the even count (pairs with the
	 * reader's acquire load). */
	atomic_store_explicit(&shm.seq, s + 1, memory_order_release);
	wt_unlock(&lock);
}

static void distrust(void)
{
	atomic_store_explicit(&shm.untrusted, true, memory_order_relaxed);
}

/* Moves ranges [from, n) to start at `to`.  Under begin(). */
static void move(int to, int from, int n)
{
	if (to < from)
		for (int k = from; k < n; k++)
			set(to + k - from, lo_of(k), hi_of(k));
	else
		for (int k = n - 1; k >= from; k--)
			set(to + k - from, lo_of(k), hi_of(k));
}

/* Takes [lo, hi) out of the table, splitting a range it lies inside.
 * Under begin(). */
static void cut(uintptr_t lo, uintptr_t hi)
{
	int n = atomic_load_explicit(&shm.n, memory_order_relaxed);
	int i = find(lo, n);
	if (i >= 0 && hi_of(i) > lo) { /* range i holds lo */
		uintptr_t ilo = lo_of(i), ihi = hi_of(i);
		if (ihi > hi) {
			if (ilo == lo) {
				set(i, hi, ihi);
				return;
			}
			if (n == SHMAP_MAX) {
				distrust();
				return;
			}
			move(i + 2, i + 1, n);
			set(i + 1, hi, ihi);
			set(i, ilo, lo);
			atomic_store_explicit(&shm.n, n + 1, memory_order_relaxed);
			return;
		}
		if (ilo < lo) {
			set(i, ilo, lo);
			i++;
		}
	} else {
		i++;
	}
	int j = i; /* ranges [i, j) lie inside [lo, hi) */
	while (j < n && hi_of(j) <= hi)
		j++;
	if (j < n && lo_of(j) < hi)
		set(j, hi, hi_of(j));
	if (j > i) {
		move(i, j, n);
		atomic_store_explicit(&shm.n, n - (j - i), memory_order_relaxed);
	}
}

/* Puts [lo, hi) in the table.  Under begin(). */
static void add(uintptr_t lo, uintptr_t hi)
{
	cut(lo, hi);
	int n = atomic_load_explicit(&shm.n, memory_order_relaxed);
	if (n == SHMAP_MAX) {
		distrust();
		return;
	}
	int p = find(lo, n) + 1;
	move(p + 1, p, n);
	set(p, lo, hi);
	atomic_store_explicit(&shm.n, n + 1, memory_order_relaxed);
}

/* [p, p+len) in whole pages; false for an empty or wrapping one. */
static bool pages(const void *p, size_t len, uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t ps = page_size(), a = (uintptr_t)p;
	*lo = WT_ALIGN_DOWN(a, ps);
	*hi = WT_ALIGN_UP(a + len, ps);
	return len && *hi > *lo;
}

static void mark_shared(const void *p, size_t len)
{
	uintptr_t lo, hi;
	if (!pages(p, len, &lo, &hi))
		return;
	begin();
	add(lo, hi);
	end();
}

static void mark_private(const void *p, size_t len)
{
	uintptr_t lo, hi;
	if (!pages(p, len, &lo, &hi) || !overlaps(lo, hi) ||
	    atomic_load_explicit(&shm.untrusted, memory_order_relaxed))
		return;
	begin();
	cut(lo, hi);
	end();
}

static bool shared_flags(int flags)
{
	int type = flags & 0x0f; /* MAP_TYPE */
	return type == MAP_SHARED || type == MAP_SHARED_VALIDATE;
}

void wt_shmap_mmap(void *p, size_t len, int flags)
{
	if (shared_flags(flags))
		mark_shared(p, len);
	else
		mark_private(p, len);
}

void wt_shmap_munmap(void *p, size_t len)
{
	mark_private(p, len);
}

void wt_shmap_mremap(void *old, size_t oldlen, void *p, size_t newlen, int flags)
{
	uintptr_t o = (uintptr_t)old;
	/* One mapping (mremap refuses a range across two): shared or not. */
	bool was = overlaps(o, o + (oldlen ? oldlen : 1));
	if (oldlen && !(flags & MREMAP_DONTUNMAP))
		mark_private(old, oldlen);
	if (was)
		mark_shared(p, newlen);
	else
		mark_private(p, newlen);
}

void wt_shmap_shmat(void *p, int id)
{
	struct shmid_ds ds;
	long r = wt_syscall6(SYS_shmctl, id, IPC_STAT, (long)&ds, 0, 0, 0);
	if (r < 0) {
		distrust(); /* its size is unknown */
		return;
	}
	mark_shared(p, ds.shm_segsz);
}

void wt_shmap_shmdt(const void *p)
{
	uintptr_t a = (uintptr_t)p;
	/* The range that starts at p is the segment's (a later mapping inside
	 * it may have split it: what is left stays until an mmap reuses it). */
	if (!overlaps(a, a + 1))
		return;
	begin();
	int n = atomic_load_explicit(&shm.n, memory_order_relaxed);
	int i = find(a, n);
	if (i >= 0 && lo_of(i) == a)
		cut(a, hi_of(i));
	end();
}

void wt_shmap_fork_reset(void)
{
	if (atomic_load_explicit(&lock.v, memory_order_relaxed)) {
		distrust();
		atomic_store_explicit(&lock.v, 0, memory_order_relaxed);
	}
	unsigned s = atomic_load_explicit(&shm.seq, memory_order_relaxed);
	atomic_store_explicit(&shm.seq, s & ~1u, memory_order_relaxed);
}
