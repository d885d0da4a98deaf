/*
 * stack.c — task stacks that grow: slots of one reserved arena, spread out,
 * with a guard that moves down as the stack grows.
 *
 * Arena.  One MAP_NORESERVE mapping of 64 TiB, 1 GiB aligned, (x86_64 user space is
 * 128 TiB) cut into 2^20 slots of 64 MiB, so a million tasks fit and the
 * number of tasks is not bounded by vm.max_map_count.  Slots are handed
 * out in a bit-reversed order of a counter k (slot_of_k): the first task
 * gets the top slot of a 1 GiB region, the next one a region half the
 * arena away, then the quarters, ..., so while few tasks live each has a
 * huge free gap below it, into which its stack can grow; later tasks fill
 * the regions already opened, so that many tasks share page tables.
 * Released slots are reused lowest k first, which keeps the spread.  Smaller address spaces (ulimit -v, overcommit=2) get a
 * smaller arena, with one `weft:` line.
 *
 * A slot's state word (st[]) is the only truth about who owns it: COLD or
 * WARM (free; WARM = its top pages are still mapped), BUSY (being trimmed),
 * or the owning task.  Ownership changes only by compare-and-swap, so the
 * spawn path, the fault handler growing a stack and the scavenger never
 * need a common lock; the lists of free slots (per-proc cache, the warm
 * ring, the cold bitmap) are hints, re-checked by the CAS and dropped when
 * stale.
 *
 * Layout of a task's home slot s (top = base + (s+1) * 64 MiB):
 *   [top - tcb - static TLS, top)   TCB + static TLS (tls.c; pthread_t)
 *   below                           the stack, growing down
 *   G0 = top - 2 MiB                first guard page
 * Everything a shallow task touches (TCB, TLS, first stack pages, guard
 * marker) lies in the top 2 MiB, i.e. under one page-table page: a parked
 * task costs one data page with the compact static TLS layout (two with
 * WEFT_STATIC_TLS=full; tls_static.c) and one page-table page.  Guards are
 * MADV_GUARD_INSTALL markers (Linux >= 6.13: no VMA); older kernels get
 * mprotect (VMAs; schedtrace says so).
 *
 * Growth.  A task that reaches its guard faults (signal/crash.c calls
 * wt_stack_grow on the worker's signal stack).  The guard moves to the
 * lowest page of the lowest slot the task owns; when it is hit there, the
 * task claims the slot below by CAS (a slot someone owns, or the arena's
 * end, stops it) and the guard moves to that slot's lowest page.  The
 * stack may so grow to WEFT_STACK_MAX (1 GiB, as Go), never less than its
 * native size (pthread_attr_setstacksize, else RLIMIT_STACK), which the
 * home slot(s) hold from the start.  A fault that cannot grow is an
 * overflow: signal/crash.c reports it and the process dies by SIGSEGV.  A new
 * slot never lands where a stack reaches: that slot is owned.
 *
 * Known cost of a moving guard: the kernel writing into a stack buffer
 * that spans the guard page (read(2) into a local array whose frame
 * crosses the 2 MiB line, never touched by the task first) fails with
 * EFAULT instead of faulting the page in; natively the same happens at the
 * native limit only.  weft's wrappers of read, readv, pread, recv,
 * recvfrom and recvmsg move the guard below such a buffer first
 * (wt_stack_prepare); other calls, and libc's internal ones, do not.
 *
 * Release.  Joined (or exited detached) tasks' home slots stay WARM: a
 * respawn reuses TCB, TLS and stack pages as they are (MADV_DONTNEED costs
 * ~130 µs here, a TLB shoot-down).  Per-proc cache first (no lock), then
 * a global ring; sysmon's scavenger (wt_stack_scavenge) returns the memory
 * of slots that stayed free for a second (pages, page-table pages and
 * guard markers: each run of adjacent slots is mapped afresh), as Go's
 * scavenger does, and then has the next idle worker trim malloc's heaps
 * (wt_stack_idle_trim: the DTVs those tasks freed at exit).  A stack
 * that grew gives its extra slots back at once (cold).
 *
 * Three kinds of stack, by what the program asked for (pthread_getattr_np
 * reports [stack_top - stack_size, stack_top) and guard_size, as glibc):
 *  - no size: growable as above; reported as its native size, which the
 *    home slot(s) hold from the start.  A native size of at most
 *    WT_PACK_MAX (WEFT_STACK_SIZE=64k, ulimit -s 64) is taken as asked
 *    for: a fixed, packed stack of that size, as glibc's default thread
 *    stack is fixed at RLIMIT_STACK;
 *  - a size (pthread_attr_setstacksize): fixed, laid out as glibc lays out
 *    a thread: [top - size, top) with the TCB and static TLS at its top,
 *    the attr's guard (at least a page) under it, no G0 inside it, no
 *    growth.  Code that puts guard zones inside the reported stack and
 *    expects a fault there (a JVM) sees what it would natively.  Up to
 *    256 KiB (guard up to 64 KiB) such a stack is a unit of a pack
 *    (stack_pack.c): many side by side in one slot, sharing page-table
 *    pages, their guards kept while a unit is reused;
 *  - memory (pthread_attr_setstack, wt_stack_user): the task runs on
 *    exactly that memory; its TCB and static TLS live in a mapping of
 *    weft's (tls_block), so a 16 KiB stack keeps all its 16 KiB.
 * A stack bigger than the arena can give gets its own mapping with an
 * mprotect guard, laid out as a fixed one.
 *
 * The program's own mmap(MAP_FIXED), mprotect, munmap, mremap inside a
 * task's slots (shim/mman.c) mark the task (stack_dirty): when it is
 * released its slots are mapped afresh and go back cold (stack_restore),
 * so no PROT_NONE zone or hole reaches the next owner.
 *
 * Core dumps.  The kernel's core writer (fs/coredump.c) writes a private
 * anonymous mapping that has ever been touched whole, page by page, holes
 * included: the arena, one mapping, made a core of 64 TiB that took over
 * 120 s to write (a two-thread abort(); natively 9 MB in 0.02 s), and ext4
 * cannot hold such a file.  So the arena is MADV_DONTDUMP from its mmap,
 * and each mapping afresh of slots (the scavenger, stack_restore, packs)
 * marks them so again.  The parts that hold tasks are marked back in
 * (MADV_DODUMP, dump_mark): a home slot's top 2 MiB [G0, top) (TCB, TLS,
 * the stack to its first guard), a slot a stack grew into or a fixed stack
 * bigger than that, whole, and a pack's slot whole.  A mark stays while
 * the slot is free and warm (reused, it costs nothing), and goes when the
 * slot is mapped afresh.  Each marked range is a VMA of its own, with the
 * gap beside it another: marks on the spawn path stop at DUMP_SLOTS
 * slots (2,048 VMAs at most of vm.max_map_count's 65,530; a million tasks
 * must still fit), and an idle worker marks the slots it prepares
 * (wt_stack_prefault), so a burst of spawns pays none.  A stack's growth
 * is marked always (an overflow is what a core is read for).  When the
 * process dies by a fault weft reports (signal/crash.c), wt_stack_dump_all marks
 * the live home slots the cap left out, as far as the VMA limit lets it.
 * Measured (tests/tools/core_abort, a thread parked, main in abort()):
 * natively a core of 8.6 MB in 0.1 to 0.2 s; weft's was cut off by a
 * 30 s timeout, and is now 14 MB (four 2 MiB slot tops: the two tasks',
 * two prepared) in 0.1 to 0.3 s.  10,000 parked tasks: 44 VMAs before,
 * 2,097 now (the cap).
 */
#include <errno.h>
#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "core/runtime.h"
#include "core/config.h"
#include "base/print.h"
#include "base/slab.h"
#include "stack.h"
#include "stack_pack.h"
#include "io/syscall.h"
#include "tls.h"
#include "core/unjoined.h"

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#define MADV_GUARD_REMOVE 103
#endif

#define PAGE 4096ul
#define REGION (2ul << 20)            /* one page-table page maps this much */
#define PMD_SPAN (1ul << 30)          /* one page-middle-directory page maps this much */
#define SLOT_SHIFT 26
#define SLOT (1ul << SLOT_SHIFT)      /* 64 MiB */
_Static_assert(SLOT == WT_SLOT_SIZE, "stack_pack.h's slot size");
#define ARENA_BITS 20                 /* 2^20 slots: 64 TiB */
/* Places a home slot's TCB may take, j alignments under the top (tcb_top):
 * as many unjoined tasks' pthread_ts a slot can hold.  A fixed stack uses
 * the first FIXED_PLACES only (it loses j alignments of its size), and
 * place SPARE, which no exit reserves, when they are all held; a growable
 * one any but SPARE, and place PLACES when all are held. */
#define PLACES 512
#define RESV_W (PLACES / 64)
#define FIXED_PLACES 64
#define SPARE FIXED_PLACES

enum { ST_COLD = 0, ST_WARM = 1, ST_BUSY = 2 }; /* else: the owning task */

size_t wt_default_stack;
size_t wt_stack_max = 1ul << 30;
const char *wt_guard_method = "madvise";

struct warm { int slot; uint32_t ms; };

static struct {
	char *base;                   /* [const] 2 MiB aligned */
	int bits;                     /* [const] log2(nslots) */
	int nslots;                   /* [const] */
	int ab, cb;                   /* [const] bits of k's parts a and c (slot_of_k) */
	_Atomic uintptr_t *st;        /* [CAS] ST_* or owner; by k (dense) */
	_Atomic unsigned char *g0;    /* [slot owner] guard installed at G0; by k */
	_Atomic unsigned char *ended; /* [atomic] WT_ENDED_* of a free home slot's last task; by k */
	/* [slot owner; BUSY: whoever set it] DM_*: what of the slot is
	 * MADV_DODUMP; by k */
	_Atomic unsigned char *dm;
	_Atomic int ndm;              /* [atomic] slots with a mark (DM_TOP or DM_WHOLE) */
	/* [atomic bits] by region (16 slots: one PMD page): a slot of it
	 * was owned since the region was last mapped afresh whole */
	_Atomic uint64_t *used;
	/* [atomic] TCB places (tcb_top) an unjoined task's pthread_t holds,
	 * bit j = j alignments down; RESV_W words by k (resv_of) */
	_Atomic uint64_t *resv;
	bool madv;                    /* [const] guard markers work */
	wt_lock_t lock;               /* the hints below */
	uint32_t next;                /* [A.lock] k never handed out yet */
	uint64_t *cold, *coldsum;     /* [A.lock] k released cold; words with bits */
	long ncold;                   /* [A.lock] */
	struct warm *ring;            /* [A.lock] warm hints, LIFO at head */
	uint32_t head, tail;          /* [A.lock] */
	_Atomic uint32_t ringn;       /* [A.lock to store; read lock-free] head - tail */
	/* Slots in state WARM (all lists) and home slots in use: these plus
	 * every proc's slots.nwarm and slots.nlive (count). */
	_Atomic long nwarm, nlive;    /* [atomic] */
	bool full_said;
} A = { .lock = WT_LOCK_INIT(WT_RANK_STACK) };

/* A trim or a cold release happened: sysmon's sweep (below) looks at the
 * regions a second later. */
static _Atomic bool sweep_wanted;

static char *slot_base(int s) { return A.base + ((size_t)s << SLOT_SHIFT); }
static char *slot_top(int s) { return A.base + ((size_t)(s + 1) << SLOT_SHIFT); }
static char *slot_g0(int s) { return slot_top(s) - REGION; }

/* The low n bits of v reversed, n <= 10.  Computed, not looked up: the
 * 1,024-entry table it once used took about 9 µs to fill at every process
 * start, and k_of_slot runs it several times on every spawn and join. */
static uint32_t bitrev(uint32_t v, int n)
{
	v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
	v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
	v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
	v = __builtin_bswap32(v);
	return n ? v >> (32 - n) : 0;
}

/* Placement order.  k = c.b.a (a: the low TIER bits, b: 4 bits, c: the
 * rest); slot = region.within, region = bitrev(a).bitrev(c), within =
 * 15 - bitrev(b).  The first 2^TIER tasks each get a 1 GiB region of their
 * own, 64 GiB apart; the next ones fill those regions (halving their
 * gaps: 512 MiB, 256 MiB, ... 64 MiB) before new regions are opened.  So a
 * few tasks grow far, and many share page-table (PMD) pages: pure
 * bit-reversal would spend a 4 KiB PMD page per task up to 65536 tasks. */
#define TIER 10

__attribute__((pure)) static int slot_of_k(uint32_t k)
{
	int ab = A.ab, cb = A.cb;
	uint32_t a = k & ((1u << ab) - 1), b = (k >> ab) & 15, c = k >> (ab + 4);
	uint32_t region = ((1u << (ab + cb)) - 1) - ((bitrev(a, ab) << cb) | bitrev(c, cb));
	return (int)((region << 4) | (15 - bitrev(b, 4)));
}

__attribute__((pure)) static uint32_t k_of_slot(int s)
{
	int ab = A.ab, cb = A.cb;
	uint32_t region = ((1u << (ab + cb)) - 1) - ((uint32_t)s >> 4), within = (uint32_t)s & 15;
	uint32_t a = bitrev(region >> cb, ab), c = bitrev(region & ((1u << cb) - 1), cb);
	uint32_t b = bitrev(15 - within, 4);
	return (c << (ab + 4)) | (b << ab) | a;
}

/* The arrays per slot are indexed by k, not by slot: live tasks have low
 * k, so their entries share pages (by slot, 10,000 spread tasks would
 * touch 10,000 pages of them). */
#define K(s) k_of_slot(s)

static _Atomic uint64_t *resv_of(int s)
{
	return &A.resv[(size_t)K(s) * RESV_W];
}

static bool resv_any(int s) /* a TCB place of s held */
{
	_Atomic uint64_t *r = resv_of(s);
	for (int w = 0; w < RESV_W; w++)
		if (atomic_load_explicit(&r[w], memory_order_relaxed))
			return true;
	return false;
}

static long madv(void *p, size_t n, int advice)
{
	return wt_syscall6(SYS_madvise, (long)p, (long)n, advice, 0, 0, 0);
}

static void guard_install(char *p)
{
	if (A.madv)
		madv(p, PAGE, MADV_GUARD_INSTALL);
	else
		wt_syscall6(SYS_mprotect, (long)p, PAGE, PROT_NONE, 0, 0, 0);
}

static void guard_remove(char *p)
{
	if (A.madv)
		madv(p, PAGE, MADV_GUARD_REMOVE);
	else
		wt_syscall6(SYS_mprotect, (long)p, PAGE, PROT_READ | PROT_WRITE, 0, 0, 0);
}

/* ---- core dump marks (the essay's "Core dumps") ---- */
enum { DM_NONE = 0, DM_TOP = 1, DM_WHOLE = 2 };
/* Slots marked in at once by the spawn path and the packs at most: each
 * mark is a VMA, and the gap beside it another. */
#define DUMP_SLOTS 1024

/* [p, p + len) out of a core: the arena's state after any mapping afresh. */
static void dump_out(char *p, size_t len)
{
	madv(p, len, MADV_DONTDUMP);
}

/* Marks slot s's part `want` (DM_TOP: [G0, top); DM_WHOLE) in.  capped:
 * not past DUMP_SLOTS marked slots.  Context: s's owner (or the worker
 * preparing it), or the fault handler growing a stack into it. */
static void dump_mark(int s, int want, bool capped)
{
	uint32_t k = K(s);
	int have = atomic_load_explicit(&A.dm[k], memory_order_relaxed);
	if (have >= want)
		return;
	if (have == DM_NONE) {
		if (capped && atomic_load_explicit(&A.ndm, memory_order_relaxed) >= DUMP_SLOTS)
			return;
		atomic_fetch_add_explicit(&A.ndm, 1, memory_order_relaxed);
	}
	char *b = want == DM_WHOLE ? slot_base(s) : slot_g0(s);
	if (madv(b, (size_t)(slot_top(s) - b), MADV_DODUMP) == 0) {
		atomic_store_explicit(&A.dm[k], (unsigned char)want, memory_order_relaxed);
	} else if (have == DM_NONE) {
		atomic_fetch_sub_explicit(&A.ndm, 1, memory_order_relaxed);
	}
}

/* Slot s is about to be mapped afresh (its mark goes with the old
 * mapping; the caller calls dump_out after the mmap).  Context: the
 * holder of s (BUSY, or its owner giving it back). */
static void dump_drop(int s)
{
	uint32_t k = K(s);
	if (atomic_load_explicit(&A.dm[k], memory_order_relaxed) != DM_NONE) {
		atomic_store_explicit(&A.dm[k], DM_NONE, memory_order_relaxed);
		atomic_fetch_sub_explicit(&A.ndm, 1, memory_order_relaxed);
	}
}

/* A released slot a stack grew into, which goes back cold (its pages
 * returned): out of a core again, as the deep part of a home slot that
 * keeps its top 2 MiB.  Context: as wt_stack_free. */
static void dump_shrink(int s, int to)
{
	uint32_t k = K(s);
	int have = atomic_load_explicit(&A.dm[k], memory_order_relaxed);
	if (have <= to)
		return;
	dump_out(slot_base(s), (size_t)((to == DM_TOP ? slot_g0(s) : slot_top(s)) - slot_base(s)));
	atomic_store_explicit(&A.dm[k], (unsigned char)to, memory_order_relaxed);
	if (to == DM_NONE)
		atomic_fetch_sub_explicit(&A.ndm, 1, memory_order_relaxed);
}

static int stack_init(void)
{
	struct rlimit rl;
	size_t def = 8ul << 20;
	if (wt_cfg.stack_size)
		def = wt_cfg.stack_size;
	else if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
		 rl.rlim_cur >= 16384)
		def = rl.rlim_cur;
	wt_default_stack = WT_ALIGN_UP(def, PAGE);
	if (wt_cfg.stack_max)
		wt_stack_max = wt_cfg.stack_max;
	long p = -ENOMEM;
	for (A.bits = ARENA_BITS; A.bits >= 10; A.bits--) {
		size_t arena = (SLOT << A.bits) + PMD_SPAN;
		p = wt_syscall6(SYS_mmap, 0, (long)arena, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (!(p < 0 && p > -4096))
			break;
	}
	if (p < 0 && p > -4096) {
		/* Not even 64 GiB of address space (RLIMIT_AS, a strict
		 * overcommit policy): every stack is a mapping of its own, of
		 * the size the thread asked for, as glibc's are. */
		A.bits = 0;
		A.nslots = 0;
		wt_print("weft: the address space allows no stack arena (RLIMIT_AS or "
			 "vm.overcommit_memory=2): each thread gets a stack of its own size "
			 "(%lu KiB by default), as natively, and stacks do not grow\n",
			 (unsigned long)(wt_default_stack >> 10));
		return 0;
	}
	A.nslots = 1 << A.bits;
	A.ab = A.bits - 4 < TIER ? A.bits - 4 : TIER;
	A.cb = A.bits - 4 - A.ab;
	if (A.bits < ARENA_BITS)
		wt_print("weft: the address space allows a stack arena of %lu GiB only (RLIMIT_AS "
			 "or vm.overcommit_memory=2): at most %d tasks, and stacks grow less\n",
			 (unsigned long)((SLOT << A.bits) >> 30), A.nslots);
	/* 1 GiB aligned: a placement region of 16 slots is exactly what one
	 * PMD page maps, so the scavenger's mapping of a whole free region
	 * returns that page too. */
	A.base = (char *)WT_ALIGN_UP((uintptr_t)p, PMD_SPAN);
	dump_out((char *)p, (SLOT << A.bits) + PMD_SPAN);
	A.st = wt_mmap_anon(sizeof(*A.st) * A.nslots);
	A.g0 = wt_mmap_anon(A.nslots);
	A.ended = wt_mmap_anon(A.nslots);
	A.dm = wt_mmap_anon(A.nslots);
	A.resv = wt_mmap_anon(sizeof(*A.resv) * RESV_W * A.nslots);
	A.used = wt_mmap_anon((size_t)A.nslots / 16 / 8 + 8);
	A.cold = wt_mmap_anon((size_t)A.nslots / 8);
	A.coldsum = wt_mmap_anon((size_t)A.nslots / 8 / 64 + 8);
	A.ring = wt_mmap_anon(sizeof(*A.ring) * A.nslots);
	if (!A.st || !A.g0 || !A.ended || !A.dm || !A.resv || !A.used || !A.cold || !A.coldsum || !A.ring)
		return -ENOMEM;
	/* Out of a core as well: 26 MiB of address space that a core would
	 * carry whole once a page of it is touched; a task's slot is in its
	 * record (struct wt_task). */
	dump_out((char *)A.st, sizeof(*A.st) * A.nslots);
	dump_out((char *)A.resv, sizeof(*A.resv) * RESV_W * A.nslots);
	dump_out((char *)A.ring, sizeof(*A.ring) * A.nslots);
	dump_out((char *)A.ended, A.nslots);
	dump_out((char *)A.cold, (size_t)A.nslots / 8);
	/* Probe MADV_GUARD_INSTALL once, on the bottom slot's G0, and check
	 * that the page faults now (the kernel's copy into it fails): qemu-user
	 * answers 0 to advice it does not know and does nothing. */
	A.madv = madv(slot_g0(0), PAGE, MADV_GUARD_INSTALL) == 0 &&
		 wt_syscall6(SYS_uname, (long)slot_g0(0), 0, 0, 0, 0, 0) == -EFAULT;
	if (A.madv)
		A.g0[K(0)] = 1;
	else
		wt_guard_method = "mprotect";
	return 0;
}

static wt_lock_t init_lock = WT_LOCK_INIT(WT_RANK_STACK_INIT);
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

/* Adds d to a count (&A.nlive or &A.nwarm): a proc keeps its own share,
 * which only its worker stores, so the spawn path makes no locked
 * instruction for it (two each way cost 4 % of a create-join); without a
 * proc, the shared count.  The sums are for statistics and messages. */
static void count(struct wt_p *p, _Atomic long *c, long d)
{
	if (p) {
		_Atomic long *pc = c == &A.nlive ? &p->slots.nlive : &p->slots.nwarm;
		atomic_store_explicit(pc, atomic_load_explicit(pc, memory_order_relaxed) + d,
				      memory_order_relaxed);
	} else {
		atomic_fetch_add_explicit(c, d, memory_order_relaxed);
	}
}

static long count_sum(_Atomic long *c)
{
	long n = atomic_load_explicit(c, memory_order_relaxed);
	for (int i = 0; i < wt_sched.maxprocs; i++) {
		struct wt_p *p = &wt_sched.procs[i];
		n += atomic_load_explicit(c == &A.nlive ? &p->slots.nlive : &p->slots.nwarm,
					  memory_order_relaxed);
	}
	return n;
}

/* ---- claiming ----
 * claim(): a free slot (COLD or WARM) becomes t's.  Acquire pairs with the
 * release store of whoever freed it, so its g0[] flag and pages are seen
 * as they left them.  A BUSY slot is being trimmed; `wait` spins it out
 * (the fault handler, which must not fail for a passing trim). */
static bool claim_warm(int s, struct wt_p *p, struct wt_task *t, bool wait, bool *warm)
{
	for (;;) {
		uintptr_t v = atomic_load_explicit(&A.st[K(s)], memory_order_relaxed);
		if (v == ST_BUSY && wait) {
			wt_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
			continue;
		}
		if (v > ST_WARM)
			return false;
		if (atomic_compare_exchange_weak_explicit(&A.st[K(s)], &v, (uintptr_t)t,
							  memory_order_acquire, memory_order_relaxed)) {
			if (v == ST_WARM)
				count(p, &A.nwarm, -1);
			if (warm)
				*warm = v == ST_WARM;
			_Atomic uint64_t *w = &A.used[(s >> 4) >> 6];
			uint64_t bit = 1ull << ((s >> 4) & 63);
			if (!(atomic_load_explicit(w, memory_order_relaxed) & bit))
				atomic_fetch_or_explicit(w, bit, memory_order_relaxed);
			return true;
		}
	}
}

static bool claim(int s, struct wt_p *p, struct wt_task *t, bool wait)
{
	return claim_warm(s, p, t, wait, NULL);
}

static void cold_set(uint32_t k) /* [A.lock] */
{
	if (!(A.cold[k >> 6] & (1ull << (k & 63)))) {
		A.cold[k >> 6] |= 1ull << (k & 63);
		A.coldsum[k >> 12] |= 1ull << ((k >> 6) & 63);
		A.ncold++;
	}
}

static long cold_take(void) /* [A.lock] lowest k, or -1 */
{
	if (A.ncold == 0)
		return -1;
	for (uint32_t w = 0; w <= ((uint32_t)A.nslots - 1) >> 12; w++) {
		if (!A.coldsum[w])
			continue;
		uint32_t i = (w << 6) + (uint32_t)__builtin_ctzll(A.coldsum[w]);
		uint32_t k = (i << 6) + (uint32_t)__builtin_ctzll(A.cold[i]);
		A.cold[i] &= A.cold[i] - 1;
		if (!A.cold[i])
			A.coldsum[w] &= ~(1ull << (i & 63));
		A.ncold--;
		return k;
	}
	return -1;
}

/* Slots taken fresh (never used, or given back cold) ask an idle worker to
 * prepare more (wt_stack_prefault). */
static _Atomic bool prep_wanted;
#define PREP_RING 32
/* [atomic, relaxed: a hint] how many prepared slots the ring should hold:
 * see slot_take. */
static _Atomic int prep_goal;

/* The arrays by k are mapped lazily.  Read first (claim's load), a page
 * of them maps the shared zero page, and the write that follows faults
 * again and flushes the other workers' TLBs, an interrupt to each (400
 * of them in 100,000 starts, 13 without).  So the first k of each page
 * writes it first (an atomic or of nothing: other threads may read the
 * entry). */
static void k_touch(uint32_t k)
{
	if (k % (PAGE / sizeof *A.st) == 0)
		atomic_fetch_or_explicit(&A.st[k], 0, memory_order_relaxed);
	if (k % (PAGE / (sizeof *A.resv * RESV_W)) == 0)
		atomic_fetch_or_explicit(&A.resv[(size_t)k * RESV_W], 0, memory_order_relaxed);
	if (k % PAGE == 0) {
		atomic_fetch_or_explicit(&A.g0[k], 0, memory_order_relaxed);
		atomic_fetch_or_explicit(&A.ended[k], 0, memory_order_relaxed);
		atomic_fetch_or_explicit(&A.dm[k], 0, memory_order_relaxed);
	}
}

/* A slot never used or given back cold, claimed for t, or -1.  [A.lock] */
static int fresh_take(struct wt_p *p, struct wt_task *t)
{
	long k;
	while ((k = cold_take()) >= 0)
		if (claim(slot_of_k((uint32_t)k), p, t, false))
			return slot_of_k((uint32_t)k);
	while (A.next < (uint32_t)A.nslots)
		if (k_touch(A.next), claim(slot_of_k(A.next++), p, t, false))
			return slot_of_k(A.next - 1);
	return -1;
}

/* A free home slot for t, or -1; *warm: it was WARM (its pages there).
 * Context: any (the spawn path). */
static int slot_take(struct wt_p *p, struct wt_task *t, bool *warm)
{
	*warm = false;
	while (p && p->slots.n > 0) {
		int s = p->slots.slot[--p->slots.n];
		if (claim_warm(s, p, t, false, warm))
			return s;
	}
	int s = -1;
	wt_lock(&A.lock);
	while (A.head != A.tail) {
		int c = A.ring[--A.head & (A.nslots - 1)].slot;
		if (claim_warm(c, p, t, false, warm)) {
			s = c;
			goto out;
		}
	}
	s = fresh_take(p, t);
	/* Not for a pack: one slot holds hundreds of its stacks.  Each fresh
	 * take doubles how many slots idle workers keep prepared (1, 2, 4,
	 * ... PREP_RING): a program that starts a few threads pays for a few,
	 * a burst of creations soon finds a full ring. */
	if (s >= 0 && !((uintptr_t)t & WT_PACK_TAG)) {
		int g = atomic_load_explicit(&prep_goal, memory_order_relaxed);
		atomic_store_explicit(&prep_goal, g ? (g < PREP_RING ? 2 * g : PREP_RING) : 1,
				      memory_order_relaxed);
		if (!atomic_load_explicit(&prep_wanted, memory_order_relaxed))
			atomic_store_explicit(&prep_wanted, true, memory_order_relaxed);
	}
out:
	atomic_store_explicit(&A.ringn, A.head - A.tail, memory_order_relaxed);
	wt_unlock(&A.lock);
	return s;
}

/* Gives a slot back, cold (pages already returned) or warm. */
static void slot_give(int s, struct wt_p *p, bool warm)
{
	if (!warm) {
		atomic_store_explicit(&A.st[K(s)], ST_COLD, memory_order_release);
		wt_lock(&A.lock);
		cold_set(k_of_slot(s));
		wt_unlock(&A.lock);
		atomic_store_explicit(&sweep_wanted, true, memory_order_relaxed);
		return;
	}
	count(p, &A.nwarm, 1);
	atomic_store_explicit(&A.st[K(s)], ST_WARM, memory_order_release);
	if (p && p->slots.n < 16) {
		p->slots.slot[p->slots.n++] = s;
		return;
	}
	uint32_t ms = (uint32_t)(wt_nanotime() / 1000000);
	wt_lock(&A.lock);
	if (p) /* half the cache to the ring, so the proc has room again */
		while (p->slots.n > 8)
			A.ring[A.head++ & (A.nslots - 1)] = (struct warm){ p->slots.slot[--p->slots.n], ms };
	A.ring[A.head++ & (A.nslots - 1)] = (struct warm){ s, ms };
	if (A.head - A.tail > (uint32_t)A.nslots)
		A.tail = A.head - (uint32_t)A.nslots; /* only stale hints can overflow it */
	atomic_store_explicit(&A.ringn, A.head - A.tail, memory_order_relaxed);
	wt_unlock(&A.lock);
}

/* Removes a slot's G0 guard when the slot becomes part of a bigger stack. */
static void g0_clear(int s)
{
	if (atomic_load_explicit(&A.g0[K(s)], memory_order_relaxed)) {
		guard_remove(slot_g0(s));
		atomic_store_explicit(&A.g0[K(s)], 0, memory_order_relaxed);
	}
}

/* Guard pages [p, p + len): markers, or PROT_NONE. */
static void guard_install_len(char *p, size_t len)
{
	if (A.madv)
		madv(p, len, MADV_GUARD_INSTALL);
	else
		wt_syscall6(SYS_mprotect, (long)p, (long)len, PROT_NONE, 0, 0, 0);
}

static void guard_remove_len(char *p, size_t len)
{
	if (A.madv)
		madv(p, len, MADV_GUARD_REMOVE);
	else
		wt_syscall6(SYS_mprotect, (long)p, (long)len, PROT_READ | PROT_WRITE, 0, 0, 0);
}

static void *dtv_take(int s);
static void dtv_trash_put(void *d);

/* For stack_pack.c: a free slot whose owner word is `owner` (a tagged
 * pack), or -1; its base; guard pages. */
int wt_stack_slot_claim(uintptr_t owner)
{
	/* Never a slot that holds an unjoined task's pthread_t: a unit's TCB
	 * could land on it.  Such slots are taken and given back (a few). */
	int held[8], n = 0, s;
	bool warm;
	while ((s = slot_take(NULL, (struct wt_task *)owner, &warm)) >= 0 && resv_any(s) && n < 8)
		held[n++] = s;
	if (s >= 0 && resv_any(s)) {
		slot_give(s, NULL, true);
		s = -1;
	}
	while (n > 0)
		slot_give(held[--n], NULL, true);
	if (s >= 0) {
		/* A slot a task had: its G0 guard would lie inside a unit's
		 * stack, and its kept DTV under a unit's TCB. */
		g0_clear(s);
		void *d = warm ? dtv_take(s) : NULL;
		if (d)
			dtv_trash_put(d);
		dump_mark(s, DM_WHOLE, true);
	}
	return s;
}

/* stack_pack.c mapped [p, p + len) of its slot afresh: marked in or out
 * of a core again as the slot is.  Context: the pack's holder. */
void wt_stack_remapped(char *p, size_t len)
{
	int s = (int)(((uintptr_t)p - (uintptr_t)A.base) >> SLOT_SHIFT);
	if (atomic_load_explicit(&A.dm[K(s)], memory_order_relaxed) == DM_WHOLE)
		madv(p, len, MADV_DODUMP);
	else
		dump_out(p, len);
}

char *wt_stack_slot_base(int s)
{
	return slot_base(s);
}

void wt_stack_guard(char *p, size_t len)
{
	guard_install_len(p, len);
}

/* A home slot's DTV.  An ended task's DTV (glibc's, from malloc) stays in
 * its slot for the slot's next task, as glibc keeps a cached thread's:
 * spawn then neither allocates nor frees one (a calloc and a free were 14%
 * of a create-join).  It is kept in the slot's last word, which only a
 * dead TCB covers; the new owner takes it before building its own TCB.
 * The scavenger hands the DTVs of the slots it trims to the next idle
 * worker (dtv_trash), which frees them: sysmon must not wait on malloc's
 * locks.  [the slot's owner, or the scavenger while BUSY] */
static void **slot_dtv(int s) /* a warm slot's */
{
	return (void **)(void *)(slot_top(s) - sizeof(void *));
}

static void *dtv_take(int s)
{
	void **w = slot_dtv(s);
	void *d = *w;
	if (d)
		*w = NULL; /* no write to a zero page */
	return d;
}

static _Atomic(void *) dtv_trash; /* [atomic] DTVs to free, linked through their first word */

static void dtv_trash_put(void *d)
{
	void *head = atomic_load_explicit(&dtv_trash, memory_order_relaxed);
	do
		*(void **)d = head;
	while (!atomic_compare_exchange_weak_explicit(&dtv_trash, &head, d, memory_order_release,
						      memory_order_relaxed));
}

/* The TCB and static TLS at top (not for main, which keeps its TCB); the
 * stack starts under them; dtv: the slot's, or NULL.  -EAGAIN (memory)
 * frees the stack. */
static int stack_tls(struct wt_task *t, char *top, char *block_lo, size_t block_size, void *dtv)
{
	if (t->main) {
		t->stack_hi = top - 64;
		return 0;
	}
	char *tls_low;
	t->tp = wt_tls_new(top, t->tid, block_lo, block_size, t, true, &tls_low, dtv);
	if (!t->tp) {
		/* Not the caller's proc: ld.so may have blocked in a call nobody
		 * intercepted, and the proc gone to another worker meanwhile. */
		wt_stack_free(t, wt_curp(), WT_ENDED_UNKNOWN);
		return -EAGAIN;
	}
	t->stack_hi = tls_low;
	return 0;
}

/* Where the TCB of slot s's new owner ends: at the top, or the fewest
 * alignments lower that puts its pthread_t on no unjoined task's (a slot
 * holds at most PLACES - 1 of them: wt_stack_exit_release).  Context: s's
 * new owner. */
static char *tcb_top(int s, char *top, bool fixed)
{
	_Atomic uint64_t *r = resv_of(s);
	int j = fixed ? SPARE : PLACES;
	for (int w = 0; w < (fixed ? FIXED_PLACES / 64 : RESV_W); w++) {
		uint64_t held = atomic_load_explicit(&r[w], memory_order_relaxed);
		if (w == SPARE / 64)
			held |= 1ull << (SPARE % 64);
		if (~held) {
			j = w * 64 + __builtin_ctzll(~held);
			break;
		}
	}
	return top - (size_t)j * wt_tls_static_align;
}

static struct {
	_Atomic size_t size, guard;
} prog_default;

void wt_stack_prog_default_set(size_t size, size_t guard)
{
	atomic_store_explicit(&prog_default.guard, guard, memory_order_relaxed);
	if (size)
		atomic_store_explicit(&prog_default.size, size, memory_order_release);
}

size_t wt_stack_prog_default(size_t *guard)
{
	size_t size = atomic_load_explicit(&prog_default.size, memory_order_acquire);
	*guard = atomic_load_explicit(&prog_default.guard, memory_order_relaxed);
	return size;
}

/* Which alignment down from the top of its home slot the TCB of thread
 * pointer tp sits at. */
static int tcb_place(uintptr_t tp)
{
	uintptr_t top = (uintptr_t)slot_top((int)((tp - (uintptr_t)A.base) >> SLOT_SHIFT));
	return (int)((wt_tls_tp_under(top, true) - tp) / wt_tls_static_align);
}

/* t's stack in a core: [guard, top) of its slots (dump_mark).  Context:
 * t's creator, or the fault handler growing t's stack (capped false). */
static void dump_stack(struct wt_task *t, bool capped)
{
	int s = t->slot;
	if (t->guard >= slot_g0(s)) {
		dump_mark(s, DM_TOP, capped);
		return;
	}
	for (int x = (int)(((uintptr_t)t->guard - (uintptr_t)A.base) >> SLOT_SHIFT); x <= s; x++)
		dump_mark(x, DM_WHOLE, capped);
}

/* glibc's least stack under the TCB and static TLS (MINIMAL_REST_STACK):
 * a fixed stack that leaves less is refused with EINVAL, as by glibc. */
#define REST_MIN 2048

/* Gives t a stack.  Growable (fixed false): at least `size` usable bytes
 * under the TLS block, growing to WEFT_STACK_MAX.  Fixed (the program
 * chose the size): exactly [top - size, top), TCB and static TLS at its
 * top as glibc lays a thread out, `guard` bytes of guard below (at least
 * a page, reported as asked), no growth.  Sets stack_lo/hi, stack_top,
 * guard, guard_len, slot, lowslot, tp.  Context: any; may allocate. */
int wt_stack_alloc(struct wt_task *t, size_t size, size_t guard, bool fixed)
{
	int r = ensure_init();
	if (r)
		return r;
	struct wt_p *p = wt_curp(); /* NULL: the global lists */
	size_t tlsroom = t->main ? 64 : WT_ALIGN_UP(wt_tls_static_size + wt_tcb_size + 64, 64);
	if (size == 0) {
		size = wt_default_stack;
		/* A default of at most WT_PACK_MAX is fixed and packed, as glibc
		 * fixes every default thread stack at RLIMIT_STACK: the program
		 * (or its user) chose small stacks over deep ones. */
		fixed = size <= WT_PACK_MAX && size >= tlsroom + REST_MIN;
	}
	size = WT_ALIGN_UP(size, PAGE);
	size_t glen = guard > PAGE ? WT_ALIGN_UP(guard, PAGE) : PAGE;
	if (fixed && size < tlsroom + REST_MIN)
		return -EINVAL;
	size_t max = fixed ? size : wt_stack_max > size ? wt_stack_max : size;
	size_t span = fixed ? size + glen : size + tlsroom + PAGE;
	int need = (int)((span + SLOT - 1) >> SLOT_SHIFT);
	char *lo, *top, *tcbtop;
	void *dtv = NULL;
	bool warm = false;
	int s = -1;
	t->slot = -1;
	t->stack_fixed = fixed;
	if (fixed && A.nslots > 0 && wt_pack_alloc(t, size, glen) == 0) {
		t->guard_size = guard;
		t->stack_size = size;
		t->stack_max = size;
		return stack_tls(t, t->stack_top, t->stack_top - size, size, NULL);
	}
	for (int tries = 0; need <= A.nslots / 4 && tries < 64; tries++) {
		s = slot_take(p, t, &warm);
		if (s < 0)
			break;
		int got = 1;
		while (got < need && s - got >= 0 && claim(s - got, p, t, false))
			got++;
		if (got == need)
			break;
		for (int i = 1; i < got; i++)
			slot_give(s - i, p, atomic_load(&A.st[K(s - i)]) == ST_WARM);
		slot_give(s, p, true);
		s = -1;
	}
	if (s >= 0) {
		t->slot = s;
		t->lowslot = s - need + 1;
		atomic_store_explicit(&A.ended[K(s)], WT_ENDED_UNKNOWN, memory_order_relaxed);
		for (int i = 1; i < need; i++)
			g0_clear(s - i);
		top = slot_top(s);
		if (fixed) {
			/* No G0 inside the stack: the guard is under it. */
			lo = top - size;
			if (slot_g0(s) >= lo - glen)
				g0_clear(s);
			guard_install_len(lo - glen, glen);
			t->guard = lo - glen;
			t->guard_len = glen;
		} else {
			char *floor = (char *)WT_ALIGN_DOWN((uintptr_t)top - tlsroom - max, PAGE) - PAGE;
			if (floor < slot_base(0))
				floor = slot_base(0);
			char *g = slot_g0(s) > floor ? slot_g0(s) : floor;
			if (g != slot_g0(s))
				g0_clear(s);
			if (g != slot_g0(s) || !atomic_load_explicit(&A.g0[K(s)], memory_order_relaxed)) {
				guard_install(g);
				if (g == slot_g0(s))
					atomic_store_explicit(&A.g0[K(s)], 1, memory_order_relaxed);
			}
			t->guard = g;
			t->guard_len = PAGE;
			lo = floor + PAGE;
		}
		t->stack_top = top;
		dump_stack(t, true);
		count(p, &A.nlive, 1);
		tcbtop = tcb_top(s, top, fixed);
		/* Only a warm slot can hold one: a read of a cold one's last page
		 * would map the zero page, and the TCB's write after it would
		 * cost a copy and a TLB shoot-down. */
		if (!t->main && warm)
			dtv = dtv_take(s);
	} else {
		if (need <= A.nslots / 4) {
			if (!A.full_said) {
				A.full_said = true;
				wt_print("weft: no stack slot free (%ld tasks live, arena of %d "
					 "slots); pthread_create fails with EAGAIN\n",
					 count_sum(&A.nlive), A.nslots);
			}
			return -EAGAIN;
		}
		/* Bigger than the arena gives: a mapping of its own, laid out as
		 * glibc's (TLS inside the size, the guard under it). */
		if (size < tlsroom + REST_MIN)
			return -EINVAL;
		size_t total = size + glen;
		long m = wt_syscall6(SYS_mmap, 0, (long)total, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
		if (m < 0 && m > -4096)
			return -EAGAIN;
		wt_syscall6(SYS_mprotect, m, (long)glen, PROT_NONE, 0, 0, 0);
		lo = (char *)m + glen;
		top = tcbtop = (char *)m + total;
		t->guard = (char *)m;
		t->guard_len = glen;
		t->stack_top = top;
		max = size;
	}
	t->guard_size = guard;
	t->stack_size = size;
	t->stack_max = max;
	t->stack_lo = lo;
	return stack_tls(t, tcbtop, top - size, size, dtv);
}

/* A program-supplied stack [addr, addr + size) (pthread_attr_setstack):
 * the task runs on exactly that memory, none of which weft takes; its TCB
 * and static TLS go into a mapping of weft's (glibc puts them at the top
 * of the given memory, which leaves a 16 KiB stack about 12 KiB).  glibc's
 * stackblock fields name the program's memory.  Context: any; may
 * allocate.  0, or -EAGAIN. */
int wt_stack_user(struct wt_task *t, char *addr, size_t size)
{
	size_t len = WT_ALIGN_UP(wt_tls_static_size + wt_tcb_size + wt_tls_static_align, PAGE);
	long m = wt_syscall6(SYS_mmap, 0, (long)len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m < 0 && m > -4096)
		return -EAGAIN;
	t->user_stack = true;
	t->slot = -1;
	t->tls_block = (char *)m;
	t->tls_block_len = len;
	t->tp = wt_tls_new((char *)m + len, t->tid, addr, size, t, false, NULL, NULL);
	if (!t->tp) {
		wt_syscall6(SYS_munmap, m, (long)len, 0, 0, 0, 0);
		t->tls_block = NULL;
		return -EAGAIN;
	}
	t->stack_lo = addr;
	t->stack_hi = addr + size;
	t->stack_top = addr + size;
	t->stack_size = size;
	t->stack_max = size;
	return 0;
}

/* The program changed mappings or protection of [addr, addr + len) (its
 * own mmap, mprotect, munmap): a task whose stack slots it touched gets
 * them back as fresh memory when released (stack_restore), so the next
 * owner finds neither a program's guard zone nor a hole.  Context: any. */
void wt_stack_touched(uintptr_t addr, size_t len)
{
	if (!atomic_load_explicit(&inited, memory_order_acquire) || A.nslots == 0 || len == 0)
		return;
	uintptr_t lo = (uintptr_t)A.base, hi = (uintptr_t)slot_top(A.nslots - 1);
	if (addr >= hi || addr + len <= lo)
		return;
	uintptr_t a = addr > lo ? addr : lo, e = addr + len < hi ? addr + len : hi;
	for (uintptr_t x = a; x < e; x = WT_ALIGN_DOWN(x, SLOT) + SLOT) {
		uintptr_t v = atomic_load_explicit(&A.st[K((x - lo) >> SLOT_SHIFT)], memory_order_acquire);
		if (v > ST_BUSY && (v & WT_PACK_TAG)) {
			uintptr_t end = WT_ALIGN_DOWN(x, SLOT) + SLOT;
			wt_pack_touched(v, x, e < end ? e : end);
			continue;
		}
		struct wt_task *o = wt_stack_owner(x);
		if (o)
			atomic_store_explicit(&o->stack_dirty, true, memory_order_relaxed);
	}
}

/* A released stack the program changed: its slots are mapped afresh
 * (read-write, no guards, no pages) and given back cold, their G0 flags
 * cleared.  Context: as wt_stack_free. */
static void stack_restore(struct wt_task *t, struct wt_p *p)
{
	int s = t->slot;
	char *b = slot_base(t->lowslot);
	for (int x = t->lowslot; x <= s; x++)
		dump_drop(x);
	wt_syscall6(SYS_mmap, (long)b, (long)(slot_top(s) - b), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	dump_out(b, (size_t)(slot_top(s) - b));
	for (int x = t->lowslot; x <= s; x++) {
		atomic_store_explicit(&A.g0[K(x)], 0, memory_order_relaxed);
		if (x != s)
			slot_give(x, p, false);
	}
	count(p, &A.nlive, -1);
	slot_give(s, p, false);
	t->slot = -1;
}

/* Releases the slot(s) or mapping.  Context: the joiner, or g0 for a
 * detached task; never the task itself. */
void wt_stack_free(struct wt_task *t, struct wt_p *p, int ended)
{
	/* Its DTV stays with a home slot that goes back warm, else it goes. */
	void *dtv = t->dtv_keep;
	t->dtv_keep = NULL;
	if (dtv && (t->slot < 0 || t->stack_packed || t->user_stack || t->main ||
		    atomic_load_explicit(&t->stack_dirty, memory_order_relaxed))) {
		wt_tls_dtv_free(dtv);
		dtv = NULL;
	}
	if (t->tls_block) {
		wt_syscall6(SYS_munmap, (long)t->tls_block, (long)t->tls_block_len, 0, 0, 0, 0);
		t->tls_block = NULL;
	}
	if (t->user_stack || t->main)
		return;
	int s = t->slot;
	if (t->stack_packed) {
		wt_pack_free(t, atomic_load_explicit(&A.st[K(s)], memory_order_relaxed), ended);
		t->stack_lo = NULL;
		return;
	}
	if (s >= 0) {
		/* Before the slot is given back: its next owner clears it. */
		atomic_store_explicit(&A.ended[K(s)], (unsigned char)ended, memory_order_relaxed);
		if (atomic_load_explicit(&t->stack_dirty, memory_order_relaxed)) {
			stack_restore(t, p);
			t->stack_lo = NULL;
			return;
		}
		char *g0 = slot_g0(s);
		if (t->guard != g0) {
			/* It grew, started lower or is fixed: the deep pages go
			 * back now, the extra slots cold, the home slot gets its
			 * G0 again. */
			guard_remove_len(t->guard, t->guard_len);
			if (t->guard < g0)
				madv(t->guard, (size_t)(g0 - t->guard), MADV_DONTNEED);
			if (!atomic_load_explicit(&A.g0[K(s)], memory_order_relaxed) ||
			    t->guard <= g0) {
				guard_install(g0);
				atomic_store_explicit(&A.g0[K(s)], 1, memory_order_relaxed);
			}
			for (int x = t->lowslot; x < s; x++) {
				dump_shrink(x, DM_NONE);
				slot_give(x, p, false);
			}
			dump_shrink(s, DM_TOP);
		}
		count(p, &A.nlive, -1);
		if (dtv)
			*slot_dtv(s) = dtv;
		slot_give(s, p, true);
		t->slot = -1;
	} else if (t->stack_lo) {
		wt_syscall6(SYS_munmap, (long)t->guard, (long)(t->stack_top - t->guard), 0, 0, 0, 0);
	}
	t->stack_lo = NULL;
}

/* A joinable task has exited (context: the next context of its worker,
 * with no lookup by pthread_t in progress: core/task.c): its home slot goes
 * back now, warm, instead of at its join, so the next spawn reuses it (a
 * program that creates many threads and joins them later runs them on a
 * few warm slots); its pthread_t stays reserved, with a small record of
 * what its join needs (core/unjoined.c), until the join or detach
 * (wt_stack_unjoined_end).  A slot keeps at most PLACES - 1 such addresses
 * (its later TCBs sit that many alignments lower at most), so an owner
 * that finds them all taken (or the 64 of a fixed stack: place SPARE)
 * keeps its stack and record until its join, as does a unit of a pack
 * (its TCB has one place) and a stack outside the arena.
 * true: released, and t is no longer found by its pthread_t. */
bool wt_stack_exit_release(struct wt_task *t, struct wt_p *p)
{
	int s = t->slot;
	if (s < 0 || t->main || t->stack_packed || wt_tls_static_align > 64)
		return false;
	int j = tcb_place(t->tp);
	if (j >= PLACES || j == SPARE)
		return false;
	_Atomic uint64_t *r = &resv_of(s)[j / 64];
	struct wt_unjoined *u = wt_unjoined_new(t);
	if (!u)
		return false;
	/* Both before the slot is given back (release): its next owner sees
	 * the place taken and the table entry. */
	atomic_fetch_or_explicit(r, 1ull << (j % 64), memory_order_relaxed);
	if (!wt_unjoined_add(u)) {
		atomic_fetch_and_explicit(r, ~(1ull << (j % 64)), memory_order_relaxed);
		wt_unjoined_free(u);
		return false;
	}
	wt_stack_free(t, p, WT_ENDED_UNKNOWN);
	return true;
}

/* The join or detach (ended: WT_ENDED_*) of a task wt_stack_exit_release
 * released, whose thread pointer was tp: its pthread_t is free for the
 * slot's next TCBs, and a free slot remembers how it ended
 * (wt_stack_ended; an owner claiming the slot meanwhile resets it).
 * Context: any. */
void wt_stack_unjoined_end(uintptr_t tp, int ended)
{
	int s = (int)((tp - (uintptr_t)A.base) >> SLOT_SHIFT);
	int j = tcb_place(tp);
	atomic_fetch_and_explicit(&resv_of(s)[j / 64], ~(1ull << (j % 64)), memory_order_relaxed);
	if (atomic_load_explicit(&A.st[K(s)], memory_order_relaxed) <= ST_WARM)
		atomic_store_explicit(&A.ended[K(s)], (unsigned char)ended, memory_order_relaxed);
}

/* addr lies in the arena: a pthread_t there is a slot owner's, an
 * unjoined task's (core/unjoined.c) or stale. */
bool wt_stack_in_arena(uintptr_t addr)
{
	return atomic_load_explicit(&inited, memory_order_acquire) && A.nslots > 0 &&
	       addr >= (uintptr_t)A.base && addr < (uintptr_t)slot_top(A.nslots - 1);
}

/* A pthread_t used after its task was released: how that task ended, as
 * its free home slot remembers it (WT_ENDED_UNKNOWN once the slot is
 * owned again, or for an address no task's TCB held); -1 outside the
 * arena.  Context: any; racy by nature (a slot may be claimed meanwhile). */
int wt_stack_ended(uintptr_t addr)
{
	if (!atomic_load_explicit(&inited, memory_order_acquire) || addr < (uintptr_t)A.base ||
	    addr >= (uintptr_t)slot_top(A.nslots - 1))
		return -1;
	int s = (int)((addr - (uintptr_t)A.base) >> SLOT_SHIFT);
	uintptr_t v = atomic_load_explicit(&A.st[K(s)], memory_order_acquire);
	if (v > ST_BUSY && (v & WT_PACK_TAG))
		return wt_pack_ended(v, addr);
	if (v > ST_BUSY)
		return WT_ENDED_UNKNOWN;
	return atomic_load_explicit(&A.ended[K(s)], memory_order_relaxed);
}

struct wt_task *wt_stack_owner(uintptr_t addr)
{
	if (!atomic_load_explicit(&inited, memory_order_acquire) || addr < (uintptr_t)A.base ||
	    addr >= (uintptr_t)slot_top(A.nslots - 1))
		return NULL;
	uintptr_t v = atomic_load_explicit(&A.st[K((addr - (uintptr_t)A.base) >> SLOT_SHIFT)],
					   memory_order_acquire);
	if (v > ST_BUSY && (v & WT_PACK_TAG))
		return wt_pack_owner(v, addr);
	return v > ST_BUSY ? (struct wt_task *)v : NULL;
}

/* A fault at addr on the current task t: its guard?  Then move the guard
 * down (claiming the slot below when needed) and return WT_GROWN, or
 * WT_OVERFLOW when the stack may not grow (info says why).  WT_NOT_GUARD
 * otherwise.  Context: SIGSEGV handler on the worker's signal stack, the
 * task itself faulting: only t's handler writes t->guard and t->lowslot. */
int wt_stack_grow(struct wt_task *t, uintptr_t addr, struct wt_overflow *info)
{
	if (!t || t->user_stack || !t->stack_lo || addr < (uintptr_t)t->guard ||
	    addr >= (uintptr_t)t->guard + t->guard_len)
		return WT_NOT_GUARD;
	char *cur = t->guard, *floor = t->stack_lo - PAGE;
	char *next;
	info->limit = t->stack_max;
	info->depth = (size_t)(t->stack_top - (char *)addr);
	info->blocker = NULL;
	if (t->slot < 0 || t->stack_fixed)
		return WT_OVERFLOW; /* a mapping of its own, or a fixed stack, does not grow */
	char *low = slot_base(t->lowslot);
	if (cur > low) {
		next = low > floor ? low : floor;
	} else {
		int x = t->lowslot - 1;
		next = x >= 0 && slot_base(x) > floor ? slot_base(x) : floor;
		if (next >= cur)
			return WT_OVERFLOW;
		if (x < 0)
			return WT_OVERFLOW;
		if (!claim(x, NULL, t, true)) {
			uintptr_t v = atomic_load(&A.st[K(x)]);
			info->blocker = v > ST_BUSY ? (struct wt_task *)v : NULL;
			return WT_OVERFLOW;
		}
		g0_clear(x);
		t->lowslot = x;
	}
	if (next >= cur)
		return WT_OVERFLOW;
	guard_install(next);
	t->guard = next;
	guard_remove(cur);
	dump_stack(t, false);
	return WT_GROWN;
}

/* A buffer on the current task's own stack that the kernel is about to
 * write (read, recv, pread into a local array): the kernel does not fault
 * a guard page in, it fails with EFAULT, so a guard inside the buffer
 * moves below it first, as the task's own fault would have moved it.
 * Signals are held meanwhile: a handler faulting at the same guard would
 * move it too.  But SIGSEGV and SIGBUS: in trap mode (tls.c) a TLS read
 * after a kernel switch faults to be repaired, and a fault taken with
 * SIGSEGV blocked kills the process.  Context: the task, in weft's wrapper
 * of the call; may not park.  Cheap when the buffer is not near the
 * guard. */
void wt_stack_prepare(const void *buf, size_t len)
{
	struct wt_task *t = wt_cur();
	uintptr_t b = (uintptr_t)buf;
	if (!t || t->slot < 0 || t->stack_fixed || t->user_stack || len == 0 ||
	    b + len <= (uintptr_t)t->guard || b >= (uintptr_t)t->stack_top ||
	    b < (uintptr_t)t->stack_lo)
		return;
	uint64_t all = ~((1ull << (SIGSEGV - 1)) | (1ull << (SIGBUS - 1))), old = 0;
	wt_syscall6(SYS_rt_sigprocmask, SIG_BLOCK, (long)&all, (long)&old, 8, 0, 0);
	struct wt_overflow info;
	while (b + len > (uintptr_t)t->guard && b < (uintptr_t)t->guard + PAGE &&
	       wt_stack_grow(t, (uintptr_t)t->guard, &info) == WT_GROWN)
		;
	wt_syscall6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8, 0, 0);
}

/* Slots trimmed by one scavenger pass at most; the rest wait for the
 * next tick (sysmon's cycle is 1 to 10 ms). */
#define TRIM_MAX 8192

static void sift(int *v, int r, int end)
{
	for (int c; (c = 2 * r + 1) < end; r = c) {
		if (c + 1 < end && v[c + 1] > v[c])
			c++;
		if (v[r] >= v[c])
			return;
		int x = v[r];
		v[r] = v[c];
		v[c] = x;
	}
}

void wt_sort_ints(int *v, int n) /* ascending; heapsort, no allocation */
{
	for (int i = n / 2 - 1; i >= 0; i--)
		sift(v, i, n);
	for (int end = n - 1; end > 0; end--) {
		int x = v[0];
		v[0] = v[end];
		v[end] = x;
		sift(v, 0, end);
	}
}

#define HEAP_TRIM_SLOTS 64 /* slots returned in one look that make the heap worth trimming */
static _Atomic bool heap_trim_wanted; /* [atomic] set by the scavenger, taken by wt_stack_idle_trim */

/* A region's PMD page goes back only when one mapping covers the whole
 * region.  Slots trimmed a few at a time (a pass adds at most TRIM_MAX
 * region-mates), a remapped stack (stack_restore) and the deep slots a
 * grown stack gives back cold leave it, 4 KiB a region; after five rounds
 * of 100,000 threads that was 3,500 of them (14 MB).  So, a second after
 * the last trim or cold release, when no warm slot waits, sysmon maps
 * afresh, whole, each region that was used (A.used) and whose 16 slots
 * are all cold now, at most SWEEP_MAX per tick, going on from where it
 * stopped. */
#define SWEEP_MAX 256
static int64_t sweep_at;          /* [sysmon] mono ns of the next sweep, 0 = none */
static uint32_t sweep_word;       /* [sysmon] where the sweep goes on, in A.used */

/* Region r whole, if its 16 slots are all cold: true when mapped. */
static bool sweep_region(int r)
{
	int got = 0;
	for (; got < 16; got++) {
		uintptr_t v = ST_COLD;
		if (!atomic_compare_exchange_strong(&A.st[K((r << 4) + got)], &v, ST_BUSY))
			break;
	}
	if (got == 16) {
		atomic_fetch_and_explicit(&A.used[r >> 6], ~(1ull << (r & 63)), memory_order_relaxed);
		char *b = slot_base(r << 4);
		for (int i = 0; i < 16; i++)
			dump_drop((r << 4) + i);
		wt_syscall6(SYS_mmap, (long)b, (long)(16 * SLOT), PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
		dump_out(b, 16 * SLOT);
	}
	for (int i = 0; i < got; i++) {
		atomic_store_explicit(&A.g0[K((r << 4) + i)], 0, memory_order_relaxed);
		atomic_store_explicit(&A.st[K((r << 4) + i)], ST_COLD, memory_order_release);
	}
	return got == 16;
}

static void sweep(int64_t now)
{
	if (atomic_load_explicit(&sweep_wanted, memory_order_relaxed) &&
	    atomic_exchange_explicit(&sweep_wanted, false, memory_order_relaxed)) {
		sweep_at = now + 1000000000ll;
		sweep_word = 0;
	}
	if (!sweep_at || now < sweep_at || atomic_load_explicit(&A.ringn, memory_order_relaxed))
		return;
	uint32_t nwords = (uint32_t)(A.nslots >> 4) / 64 + 1;
	int done = 0;
	for (; sweep_word < nwords; sweep_word++) {
		uint64_t w = atomic_load_explicit(&A.used[sweep_word], memory_order_relaxed);
		for (; w; w &= w - 1) {
			int r = (int)(sweep_word * 64 + (uint32_t)__builtin_ctzll(w));
			if (r < A.nslots >> 4 && sweep_region(r) && ++done == SWEEP_MAX)
				return; /* this word again next tick */
		}
	}
	sweep_word = 0;
	sweep_at = 0;
}

/* sysmon: return the memory of slots that stayed warm and unused for a
 * second, as Go's background scavenger does.  The slots taken (BUSY) are
 * sorted, and each run of adjacent ones is mapped afresh with one
 * mmap(MAP_FIXED): that returns its pages, and also the page-table pages
 * under them and the guard markers, which MADV_DONTNEED keeps (about
 * 4 KiB of page table per slot that held a task).  Adjacent slots are
 * common: placement fills a 1 GiB region's 16 slots before moving on.
 * The slots go back cold with no G0 guard: the next owner installs it
 * (one madvise, and a page-table page, at its creation).  Context: sysmon,
 * the only caller (trim[] is its own). */
void wt_stack_scavenge(int64_t now)
{
	/* An empty ring, nothing to trim: a lock-free look at its length
	 * first (not at nwarm, which counts the procs' caches too: with warm
	 * slots in a cache, sysmon took the arena's lock every tick, and a
	 * spawn-join loop slowed from 0.73 to 0.97 µs).  A slot freed meanwhile
	 * is trimmed at a later tick. */
	if (!atomic_load_explicit(&inited, memory_order_acquire))
		return;
	wt_pack_scavenge(now);
	sweep(now);
	if (atomic_load_explicit(&A.ringn, memory_order_relaxed) == 0)
		return;
	static int trim[TRIM_MAX * 2] WT_BSS_LARGE;
	uint32_t cut = (uint32_t)(now / 1000000) - 1000;
	int n = 0;
	wt_lock(&A.lock);
	while (n < TRIM_MAX && A.tail != A.head &&
	       (int32_t)(A.ring[A.tail & (A.nslots - 1)].ms - cut) < 0)
		trim[n++] = A.ring[A.tail++ & (A.nslots - 1)].slot;
	atomic_store_explicit(&A.ringn, A.head - A.tail, memory_order_relaxed);
	wt_unlock(&A.lock);
	int m = 0;
	for (int i = 0; i < n; i++) {
		uintptr_t v = ST_WARM;
		if (!atomic_compare_exchange_strong(&A.st[K(trim[i])], &v, ST_BUSY))
			continue; /* reused, or already cold: a stale hint */
		atomic_fetch_sub_explicit(&A.nwarm, 1, memory_order_relaxed);
		void *d = dtv_take(trim[i]);
		if (d)
			dtv_trash_put(d);
		trim[m++] = trim[i];
	}
	if (m == 0)
		return;
	/* The other slots of each region touched, when cold, join the
	 * mapping (BUSY meanwhile), so a region wholly free goes back with
	 * its PMD page.  Slots never handed out are cold and mapped already. */
	wt_sort_ints(trim, m);
	int mt = m;
	for (int i = 0; i < mt && m + 15 <= TRIM_MAX * 2; i++) {
		int r = trim[i] >> 4;
		if (i > 0 && trim[i - 1] >> 4 == r)
			continue;
		for (int x = r << 4; x < (r + 1) << 4; x++) {
			uintptr_t v = ST_COLD;
			if (atomic_compare_exchange_strong(&A.st[K(x)], &v, ST_BUSY))
				trim[m++] = x;
		}
	}
	if (m > mt)
		wt_sort_ints(trim, m);
	for (int i = 0, j; i < m; i = j) {
		for (j = i + 1; j < m && trim[j] == trim[j - 1] + 1; j++)
			;
		/* The whole slots: a frame that jumped over G0 may have
		 * touched pages below it. */
		char *b = slot_base(trim[i]);
		for (int x = i; x < j; x++)
			dump_drop(trim[x]);
		wt_syscall6(SYS_mmap, (long)b, (long)(slot_top(trim[j - 1]) - b),
			    PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
		dump_out(b, (size_t)(slot_top(trim[j - 1]) - b));
	}
	for (int i = 0; i < m; i++) {
		atomic_store_explicit(&A.g0[K(trim[i])], 0, memory_order_relaxed);
		atomic_store_explicit(&A.st[K(trim[i])], ST_COLD, memory_order_release);
	}
	wt_lock(&A.lock);
	for (int i = 0; i < m; i++)
		if (k_of_slot(trim[i]) < A.next) /* the others wait for A.next */
			cold_set(k_of_slot(trim[i]));
	wt_unlock(&A.lock);
	if (mt >= HEAP_TRIM_SLOTS)
		atomic_store_explicit(&heap_trim_wanted, true, memory_order_relaxed);
	atomic_store_explicit(&sweep_wanted, true, memory_order_relaxed);
}

/*
 * The DTVs of the slots the scavenger just returned (dtv_trash) go back
 * to malloc here, and glibc keeps freed chunks inside its heaps until
 * something trims them: after 100,000 threads joined, 33 MB of RSS stayed
 * that way, against 6 MB for the slots themselves.  The next worker to go
 * idle frees and trims.  Context: a worker's g0 without a proc, holding no
 * lock of weft's.  free and malloc_trim take malloc's arena locks; a task
 * holding one is running or runnable on a proc this worker does not hold,
 * so the wait is short.
 */
bool wt_stack_idle_work(void)
{
	return atomic_load_explicit(&dtv_trash, memory_order_relaxed) ||
	       atomic_load_explicit(&heap_trim_wanted, memory_order_relaxed);
}

void wt_stack_idle_trim(void)
{
	if (atomic_load_explicit(&dtv_trash, memory_order_relaxed)) {
		void *d = atomic_exchange_explicit(&dtv_trash, NULL, memory_order_acquire);
		while (d) {
			void *next = *(void **)d;
			wt_tls_dtv_free(d);
			d = next;
		}
	}
	if (atomic_load_explicit(&heap_trim_wanted, memory_order_relaxed) &&
	    atomic_exchange_explicit(&heap_trim_wanted, false, memory_order_relaxed))
		malloc_trim(0);
}

/* Prepared slots.  A burst of creations takes fresh slots, and each costs
 * its creator the G0 guard's install (which allocates the page-table page)
 * and the first fault of its top page: about 2 µs of kernel work here, more
 * than the rest of a creation.  A worker with nothing to run does that work
 * ahead, one slot per call between its looks for work: it claims a fresh
 * slot, installs G0, faults the top page (TCB and static TLS) in and gives
 * the slot back warm to the ring, where the next creation takes it.  Asked
 * for when a creation had to take a fresh slot; done while the ring holds
 * fewer than prep_goal slots (at most PREP_RING).  Unused, they go back as any warm slot does
 * (the scavenger, after a second).  true: one prepared, call again after
 * looking for work.  Context: an idle worker's g0, holding its proc.
 * Tried and left: mapping the top page by madvise(MADV_POPULATE_WRITE)
 * instead of the write, here and for a cold slot in wt_stack_alloc.  On a
 * paravirtualised guest the call costs about 3 µs against 13-22 µs for a
 * fault, but the hypervisor still maps the page at its first touch
 * (10 µs, on whichever CPU touches it), which then fell on the creator:
 * 100,000 waiting threads started no faster (3.3-3.4 s either way). */
bool wt_stack_prefault(void)
{
	if (!atomic_load_explicit(&prep_wanted, memory_order_relaxed))
		return false;
	if (atomic_load_explicit(&A.ringn, memory_order_relaxed) >=
	    (uint32_t)atomic_load_explicit(&prep_goal, memory_order_relaxed)) {
		atomic_store_explicit(&prep_wanted, false, memory_order_relaxed);
		return false;
	}
	wt_lock(&A.lock);
	int s = fresh_take(NULL, (struct wt_task *)ST_BUSY);
	wt_unlock(&A.lock);
	if (s < 0) {
		atomic_store_explicit(&prep_wanted, false, memory_order_relaxed);
		return false;
	}
	if (!atomic_load_explicit(&A.g0[K(s)], memory_order_relaxed)) {
		guard_install(slot_g0(s));
		atomic_store_explicit(&A.g0[K(s)], 1, memory_order_relaxed);
	}
	dump_mark(s, DM_TOP, true);
	*(volatile char *)(slot_top(s) - PAGE) = 0;
	slot_give(s, NULL, true);
	return true;
}

/* A process that dies by a fault weft reports (signal/crash.c, before the
 * signal's default action): the live stacks the spawn path's cap left out
 * go into the core, a home slot's top 2 MiB, a pack's slot whole, until
 * the kernel refuses a VMA more (vm.max_map_count).  Context: the fault
 * handler of a dying process; reads the slot table lock-free. */
void wt_stack_dump_all(void)
{
	if (!atomic_load_explicit(&inited, memory_order_acquire) || A.nslots == 0)
		return;
	uint32_t n = *(volatile uint32_t *)&A.next; /* [A.lock]: a racy read, the process is dying */
	for (uint32_t k = 0; k < n && k < (uint32_t)A.nslots; k++) {
		uintptr_t v = atomic_load_explicit(&A.st[k], memory_order_relaxed);
		if (v <= ST_BUSY || atomic_load_explicit(&A.dm[k], memory_order_relaxed) != DM_NONE)
			continue;
		int s = slot_of_k(k);
		int want = v & WT_PACK_TAG ? DM_WHOLE : DM_TOP;
		char *b = want == DM_WHOLE ? slot_base(s) : slot_g0(s);
		if (madv(b, (size_t)(slot_top(s) - b), MADV_DODUMP) != 0)
			return;
		atomic_store_explicit(&A.dm[k], (unsigned char)want, memory_order_relaxed);
		atomic_fetch_add_explicit(&A.ndm, 1, memory_order_relaxed);
	}
}

/* Stack figures for schedtrace / tests. */
void wt_stack_stats(long *live, long *warm, long *nslots)
{
	*live = count_sum(&A.nlive);
	*warm = count_sum(&A.nwarm);
	*nslots = A.nslots;
}

/* Fork child (process/fork.c).  The arena's lock held by a thread now gone means a
 * half-done list update: forget the hints (those free slots leak).  The
 * other tasks' slots stay owned: their memory leaks, as a native child
 * leaks the stacks of the threads that did not fork. */
void wt_stack_fork_reset(void)
{
	atomic_store_explicit(&dtv_trash, NULL, memory_order_relaxed); /* may be torn: leaked */
	if (atomic_load_explicit(&A.lock.v, memory_order_relaxed)) {
		A.head = A.tail = 0;
		atomic_store_explicit(&A.ringn, 0, memory_order_relaxed);
		A.ncold = 0;
		if (A.cold)
			memset(A.coldsum, 0, (size_t)A.nslots / 8 / 64 + 8);
	}
	atomic_store_explicit(&A.lock.v, 0, memory_order_relaxed);
	atomic_store_explicit(&init_lock.v, 0, memory_order_relaxed);
	wt_pack_fork_reset();
}
