/*
 * stack.c — task stacks: slots carved from one reserved arena.
 *
 * One MAP_NORESERVE mapping holds every slot, so the number of tasks is not
 * bounded by vm.max_map_count (65530 here; one mmap + guard per thread
 * stops near 32k).  A slot is `slot_size` bytes (a power of two >= the
 * default stack + TLS + guard); its lowest page is a guard installed with
 * MADV_GUARD_INSTALL (Linux >= 6.13: no extra VMA), or mprotect on older
 * kernels (costs VMAs; schedtrace says so).  The TCB and static TLS sit at
 * the top of the slot (tls.c), the stack grows down from just below them.
 * Pages are committed on first touch, so a parked shallow task costs about
 * two pages plus its page-table page (see the 1 MiB offset in stack_init).
 *
 * A slot stays reserved from creation until the task is joined (or exits
 * detached): pthread_t is the TCB address inside it, and slot_task[] maps it
 * back to the task.  Released slots go to the releasing proc's warm cache
 * (no page freeing: a quick respawn finds its pages mapped, as Go's stack
 * cache does); when the cache is full, half of it is returned to the global
 * free list with MADV_DONTNEED.
 *
 * A stack bigger than a slot's room (pthread_attr_setstacksize) gets its
 * own mapping with an mprotect guard; a stack the program supplies
 * (pthread_attr_setstack) is used as is.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "rt.h"

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif

#define PAGE 4096ul

size_t wt_default_stack;
const char *wt_guard_method = "madvise";

static struct {
	wt_lock_t lock;
	char *base;
	size_t slot_size;           /* [const] */
	int nslots;                 /* [const] */
	int next;                   /* [lock] bump index */
	int *free;                  /* [lock] stack of released slot indexes */
	int nfree;                  /* [lock] */
	int nwarm;                  /* [lock] top entries of free[] with pages kept */
	struct wt_task *_Atomic *owner; /* slot -> task, for pthread_t lookup */
	bool guard_madvise;         /* [const after first slot] */
	unsigned char *guarded;     /* [lock] slot has its guard installed */
} A;

static int stack_init(void)
{
	struct rlimit rl;
	size_t def = 8ul << 20;
	if (wt_cfg.stack_size)
		def = wt_cfg.stack_size;
	else if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
		 rl.rlim_cur >= 16384)
		def = rl.rlim_cur;
	def = WT_ALIGN_UP(def, PAGE);
	wt_default_stack = def;
	size_t need = def + PAGE + WT_ALIGN_UP(wt_tls_static_size + 64, PAGE) + PAGE;
	size_t slot = 1ul << 20;
	while (slot < need)
		slot <<= 1;
	size_t arena = 1ul << 44; /* 16 TiB of address space, no memory */
	A.slot_size = slot;
	A.nslots = (int)(arena / slot > (1u << 22) ? (1u << 22) : arena / slot);
	arena = (size_t)A.nslots * slot;
	long p = wt_syscall6(SYS_mmap, 0, (long)arena, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p < 0 && p > -4096) {
		/* Smaller address spaces (e.g. ulimit -v): shrink until it fits. */
		while (A.nslots > 1024) {
			A.nslots /= 2;
			arena = (size_t)A.nslots * slot;
			p = wt_syscall6(SYS_mmap, 0, (long)arena, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
			if (!(p < 0 && p > -4096))
				break;
		}
		if (p < 0 && p > -4096)
			return -ENOMEM;
	}
	/* Offset the slots by 1 MiB from 2 MiB alignment: slot i's guard page
	 * (at its bottom) then shares a page-table page with slot i-1's top
	 * pages (TCB, TLS, the first stack frames), so a parked task costs one
	 * page-table page, not two. */
	A.base = (char *)WT_ALIGN_UP((uintptr_t)p, 2ul << 20) + (1ul << 20);
	A.nslots--;
	A.free = wt_mmap_anon(sizeof(int) * A.nslots);
	A.owner = wt_mmap_anon(sizeof(*A.owner) * A.nslots);
	A.guarded = wt_mmap_anon(A.nslots);
	if (!A.free || !A.owner || !A.guarded)
		return -ENOMEM;
	/* Probe MADV_GUARD_INSTALL once. */
	A.guard_madvise = wt_syscall6(SYS_madvise, (long)A.base, PAGE, MADV_GUARD_INSTALL, 0, 0,
				      0) == 0;
	if (A.guard_madvise)
		A.guarded[0] = 1;
	else
		wt_guard_method = "mprotect";
	return 0;
}

static wt_lock_t init_lock;
static _Atomic int inited;

static int ensure_init(void)
{
	if (atomic_load_explicit(&inited, memory_order_acquire))
		return 0;
	wt_lock(&init_lock);
	int r = 0;
	if (!atomic_load_explicit(&inited, memory_order_relaxed)) {
		r = stack_init();
		if (r == 0)
			atomic_store_explicit(&inited, 1, memory_order_release);
	}
	wt_unlock(&init_lock);
	return r;
}

static int slot_get(struct wt_p *p)
{
	if (p && p->slots.n > 0)
		return p->slots.slot[--p->slots.n];
	int s = -1;
	wt_lock(&A.lock);
	if (A.nfree > 0) {
		s = A.free[--A.nfree];
		if (A.nwarm > 0)
			A.nwarm--;
	}
	else if (A.next < A.nslots)
		s = A.next++;
	bool fresh = s >= 0 && !A.guarded[s];
	if (fresh)
		A.guarded[s] = 1;
	wt_unlock(&A.lock);
	if (fresh) {
		char *g = A.base + (size_t)s * A.slot_size;
		if (A.guard_madvise)
			wt_syscall6(SYS_madvise, (long)g, PAGE, MADV_GUARD_INSTALL, 0, 0, 0);
		else
			wt_syscall6(SYS_mprotect, (long)g, PAGE, PROT_NONE, 0, 0, 0);
	}
	return s;
}

/* Released slots keep their pages (a respawn reuses them warm, LIFO) until
 * more than WARM_MAX are free; then the oldest half are returned with
 * MADV_DONTNEED (the guard survives it).  DONTNEED costs a TLB shoot-down
 * (~120 µs per call on this project's VMs), so it is kept off the spawn
 * path. */
#define WARM_MAX 1024

static void sort_ints(int *a, int n) /* shell sort: n <= 512, rare */
{
	for (int gap = n / 2; gap > 0; gap /= 2)
		for (int i = gap; i < n; i++)
			for (int j = i; j >= gap && a[j - gap] > a[j]; j -= gap) {
				int t = a[j];
				a[j] = a[j - gap];
				a[j - gap] = t;
			}
}

static void slot_put_global(int s)
{
	int trim[WARM_MAX / 2];
	int ntrim = 0;
	wt_lock(&A.lock);
	A.free[A.nfree++] = s;
	if (++A.nwarm > WARM_MAX) {
		/* The warm ones are the top nwarm entries of the free stack. */
		int lo = A.nfree - A.nwarm;
		for (; ntrim < WARM_MAX / 2; ntrim++)
			trim[ntrim] = A.free[lo + ntrim];
		A.nwarm -= ntrim;
	}
	wt_unlock(&A.lock);
	/* Slots are handed out in order, so released ones are often adjacent:
	 * one call per run of adjacent slots (the guards inside a run survive
	 * MADV_DONTNEED), so one TLB shoot-down serves many slots. */
	sort_ints(trim, ntrim);
	for (int i = 0; i < ntrim;) {
		int j = i + 1;
		while (j < ntrim && trim[j] == trim[j - 1] + 1)
			j++;
		char *lo = A.base + (size_t)trim[i] * A.slot_size + PAGE;
		char *hi = A.base + (size_t)(trim[j - 1] + 1) * A.slot_size;
		wt_syscall6(SYS_madvise, (long)lo, (long)(hi - lo), MADV_DONTNEED, 0, 0, 0);
		i = j;
	}
}

static void slot_put(struct wt_p *p, int s)
{
	atomic_store_explicit(&A.owner[s], NULL, memory_order_relaxed);
	if (p) {
		if (p->slots.n == 16) {
			for (int i = 0; i < 8; i++)
				slot_put_global(p->slots.slot[--p->slots.n]);
		}
		p->slots.slot[p->slots.n++] = s;
		return;
	}
	slot_put_global(s);
}

/* Gives t a stack of at least `size` usable bytes, with the TLS block
 * above it.  Sets stack_lo/hi, slot, tp.  Context: any; may allocate. */
int wt_stack_alloc(struct wt_task *t, size_t size, size_t guard)
{
	int r = ensure_init();
	if (r)
		return r;
	struct wt_p *p = wt_curp(); /* NULL: the global free list */
	char *lo, *top;
	size_t tlsroom = WT_ALIGN_UP(wt_tls_static_size + 64, PAGE);

	if (size == 0)
		size = wt_default_stack;
	t->slot = -1;
	if (size + tlsroom + PAGE <= A.slot_size && guard <= PAGE) {
		int s = slot_get(p);
		if (s < 0)
			return -EAGAIN;
		t->slot = s;
		lo = A.base + (size_t)s * A.slot_size + PAGE;
		top = A.base + (size_t)(s + 1) * A.slot_size;
		atomic_store_explicit(&A.owner[s], t, memory_order_release);
	} else {
		guard = WT_ALIGN_UP(guard ? guard : PAGE, PAGE);
		size_t total = WT_ALIGN_UP(size, PAGE) + tlsroom + guard;
		long m = wt_syscall6(SYS_mmap, 0, (long)total, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
		if (m < 0 && m > -4096)
			return -EAGAIN;
		wt_syscall6(SYS_mprotect, m, (long)guard, PROT_NONE, 0, 0, 0);
		lo = (char *)m + guard;
		top = (char *)m + total;
	}
	char *tls_low;
	t->tp = wt_tls_new(top, t->tid, lo, (size_t)(top - lo), t, &tls_low);
	if (!t->tp) {
		/* Not p: ld.so may have blocked in a call nobody intercepted, and
		 * the proc gone to another worker meanwhile. */
		wt_stack_free(t, wt_curp());
		return -EAGAIN;
	}
	t->stack_lo = lo;
	t->stack_hi = tls_low;
	t->stack_size = size;
	t->guard_size = guard;
	return 0;
}

/* Releases the slot or mapping.  Context: the joiner, or g0 for a detached
 * task; never the task itself. */
void wt_stack_free(struct wt_task *t, struct wt_p *p)
{
	if (t->user_stack || t->main)
		return;
	if (t->slot >= 0) {
		slot_put(p, t->slot);
		t->slot = -1;
	} else if (t->stack_lo) {
		char *m = t->stack_lo - t->guard_size;
		size_t tlsroom = WT_ALIGN_UP(wt_tls_static_size + 64, PAGE);
		wt_syscall6(SYS_munmap, (long)m,
			    (long)(WT_ALIGN_UP(t->stack_size, PAGE) + tlsroom + t->guard_size), 0, 0,
			    0, 0);
	}
	t->stack_lo = NULL;
}

struct wt_task *wt_stack_owner(uintptr_t addr)
{
	if (!atomic_load_explicit(&inited, memory_order_acquire) || addr < (uintptr_t)A.base ||
	    addr >= (uintptr_t)A.base + (size_t)A.nslots * A.slot_size)
		return NULL;
	size_t s = (addr - (uintptr_t)A.base) / A.slot_size;
	return atomic_load_explicit(&A.owner[s], memory_order_acquire);
}

/* Is addr in the guard page of a slot?  Then *t is its task. */
bool wt_stack_guard_hit(uintptr_t addr, struct wt_task **t)
{
	struct wt_task *o = wt_stack_owner(addr);
	if (!o)
		return false;
	if (addr >= (uintptr_t)o->stack_lo - PAGE && addr < (uintptr_t)o->stack_lo + 256) {
		*t = o;
		return true;
	}
	return false;
}

/* Fork child (fork.c).  The arena's lock held by a thread now gone means a
 * half-done push or pop: forget the free list (those slots leak).  The bump
 * index is safe either way (a slot taken but unused is skipped).  The
 * other tasks' slots stay reserved: their memory leaks, as a native child
 * leaks the stacks of the threads that did not fork. */
void wt_stack_fork_reset(void)
{
	if (atomic_load_explicit(&A.lock.v, memory_order_relaxed)) {
		A.nfree = 0;
		A.nwarm = 0;
	}
	atomic_store_explicit(&A.lock.v, 0, memory_order_relaxed);
	atomic_store_explicit(&init_lock.v, 0, memory_order_relaxed);
}
