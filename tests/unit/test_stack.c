/*
 * test_stack.c — task stacks (sched/stack/stack.c): where slots are placed, how
 * they are reused, the guard that moves down as a stack grows, and slot
 * claims racing between threads.
 *
 * The arena is real (criterion runs each test in a process of its own, so
 * each test starts with a fresh one); TLS is stubbed (wt_tls_new, stubs.c).
 * Whether a page is a guard is asked of the kernel, not by touching it: a
 * write(2) from the page into a pipe fails with EFAULT on a guard marker
 * (or an mprotect'ed page) and copies a byte from any other mapped page.
 *
 * stderr is captured: criterion's own mapping splits the address space,
 * so the arena is smaller than 64 TiB here and stack/stack.c says so on every
 * test's first allocation (arena_shrinks_to_the_address_space reads it).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "redirect.h"
#include "stubs.h"
#include "sched/core/unjoined.h"
#include "tests/preload/test_util.h"

#define PAGE 4096ul
#define REGION (2ul << 20)
#define SLOT (64ul << 20)
#define MIB (1ul << 20)

static int probe[2];

static void setup(void)
{
	stub_reset(2);
	/* Fixed sizes: the native stack size would otherwise follow the
	 * runner's RLIMIT_STACK. */
	wt_cfg.stack_size = 8 * MIB;
	wt_cfg.stack_max = 0; /* 1 GiB */
	cr_assert_eq(pipe(probe), 0);
	redirect_stderr();
}

TestSuite(stack, .init = setup);

/* Is p a mapped page the kernel can read, i.e. not a guard? */
static bool readable(const void *p)
{
	long r = wt_syscall6(SYS_write, probe[1], (long)p, 1, 0, 0, 0);
	if (r == 1) {
		char c;
		cr_assert_eq(read(probe[0], &c, 1), 1);
		return true;
	}
	cr_assert_eq(r, -EFAULT, "write from %p: %ld", p, r);
	return false;
}

static long nslots(void)
{
	long live, warm, n;
	wt_stack_stats(&live, &warm, &n);
	return n;
}

static long nlive(void)
{
	long live, warm, n;
	wt_stack_stats(&live, &warm, &n);
	return live;
}

static long nwarm(void)
{
	long live, warm, n;
	wt_stack_stats(&live, &warm, &n);
	return warm;
}

/* The test's own bit reversal of the low n bits of v. */
static uint32_t rev(uint32_t v, int n)
{
	uint32_t r = 0;
	for (int i = 0; i < n; i++)
		if (v & (1u << i))
			r |= 1u << (n - 1 - i);
	return r;
}

static int log2i(long n)
{
	int b = 0;
	while ((1l << b) < n)
		b++;
	return b;
}

#define NT 2048
static struct wt_task tasks[NT];

static struct wt_task *alloc(int i, size_t size)
{
	struct wt_task *t = &tasks[i];
	memset(t, 0, sizeof *t);
	t->id = (uint64_t)i + 2;
	int r = wt_stack_alloc(t, size, 0, false);
	cr_assert_eq(r, 0, "wt_stack_alloc #%d: %d", i, r);
	return t;
}

/* The arena's base, from a task in a slot: top = base + (slot + 1) * SLOT. */
static char *base_of(struct wt_task *t)
{
	return t->stack_top - (size_t)(t->slot + 1) * SLOT;
}

static char *slot_base(struct wt_task *ref, int s)
{
	return base_of(ref) + (size_t)s * SLOT;
}

static int grow(struct wt_task *t, struct wt_overflow *info)
{
	return wt_stack_grow(t, (uintptr_t)t->guard + 8, info);
}

Test(stack, first_slots_spread_in_bit_reversed_order)
{
	struct wt_task *t0 = alloc(0, 0);
	long n = nslots();
	int bits = log2i(n);
	cr_assert_eq(1l << bits, n, "nslots %ld is not a power of two", n);
	int ab = bits - 4 < 10 ? bits - 4 : 10;
	cr_assert_eq(t0->slot, n - 1, "the first task gets the top slot");
	/* The first 2^ab tasks: the top slot of regions 1/2, 1/4, 3/4, ... of
	 * the arena apart. */
	for (int k = 1; k < (1 << ab); k++) {
		struct wt_task *t = alloc(k, 0);
		long want = n - 1 - (long)rev((uint32_t)k, ab) * (n >> ab);
		cr_assert_eq(t->slot, want, "task %d: slot %d, want %ld", k, t->slot, want);
	}
	cr_assert_eq(tasks[1].slot, n / 2 - 1);
	cr_assert_eq(tasks[2].slot, 3 * n / 4 - 1);
	cr_assert_eq(tasks[3].slot, n / 4 - 1);
	/* Then the regions already opened fill up, halving their gaps: the
	 * next task lands in the first task's region, 8 slots below it. */
	struct wt_task *t = alloc(1 << ab, 0);
	cr_assert_eq(t->slot, n - 1 - 8);
	t = alloc((1 << ab) + 1, 0);
	cr_assert_eq(t->slot, n / 2 - 1 - 8);
	cr_assert_eq(nlive(), (1 << ab) + 2);
}

Test(stack, an_idle_worker_prepares_fresh_slots_for_a_burst)
{
	/* A creation that had to take a fresh slot asks for more: each call
	 * makes the next fresh slot warm (G0 installed, its top page
	 * resident), and the next creation takes it from the ring. */
	cr_assert_not(wt_stack_prefault(), "no creation asked for one");
	struct wt_task *t = alloc(0, 0);
	char *next_top = slot_base(t, (int)(nslots() / 2)); /* k = 1: slot n/2 - 1 */
	unsigned char vec = 0;
	cr_assert_eq(mincore(next_top - PAGE, PAGE, &vec), 0);
	cr_assert_eq(vec & 1, 0, "not resident before");
	cr_assert(readable(next_top - REGION), "no G0 before");
	cr_assert(wt_stack_prefault());
	cr_assert_eq(nwarm(), 1);
	cr_assert_eq(mincore(next_top - PAGE, PAGE, &vec), 0);
	cr_assert_eq(vec & 1, 1, "its top page is resident");
	cr_assert_not(readable(next_top - REGION), "its G0 is installed");
	struct wt_task *u = alloc(1, 0);
	cr_assert_eq(u->stack_top, next_top, "the next creation takes it");
	cr_assert_eq(u->guard, next_top - REGION);
	cr_assert_eq(nwarm(), 0);
	/* One fresh take so far: one slot is kept ready, refilled after u. */
	cr_assert(wt_stack_prefault());
	cr_assert_not(wt_stack_prefault());
	cr_assert_eq(nwarm(), 1);
	/* Each creation that takes a fresh slot doubles how many wait ready:
	 * 2 after the next one, then 4, ... up to 32; then none until a
	 * creation takes a fresh slot again. */
	alloc(2, 0); /* the ready one */
	alloc(3, 0); /* fresh: 2 */
	int made = 0;
	while (wt_stack_prefault() && made < 100)
		made++;
	cr_assert_eq(made, 2, "two prepared after the second fresh take");
	for (int i = 4; i < 4 + 2 + 4; i++)
		alloc(i, 0); /* empties the ring, then 4 fresh takes: up to 32 */
	made = 0;
	while (wt_stack_prefault() && made < 100)
		made++;
	cr_assert_eq(nwarm(), 32, "the ring is full at 32 (%d made)", made);
	cr_assert_not(wt_stack_prefault());
	alloc(40, 0); /* from the ring: warm */
	cr_assert_eq(nwarm(), 31);
	cr_assert_not(wt_stack_prefault(), "a warm take asks for none");
}

Test(stack, layout_of_a_fresh_stack)
{
	struct wt_task *t = alloc(0, 0);
	char *top = t->stack_top;
	cr_assert_eq(t->lowslot, t->slot);
	cr_assert_eq((uintptr_t)top % SLOT, (uintptr_t)base_of(t) % SLOT);
	cr_assert_eq(t->guard, top - REGION, "first guard at G0, 2 MiB below the top");
	cr_assert_eq(t->stack_size, 8 * MIB);
	cr_assert_eq(t->stack_max, 1ul << 30);
	cr_assert(t->stack_hi < top && t->stack_hi > top - PAGE * 4, "TLS block at the top");
	cr_assert(t->stack_lo < t->guard, "the stack may grow past the guard");
	cr_assert_eq(t->stack_top - t->stack_lo, (ptrdiff_t)WT_ALIGN_UP(t->stack_top - t->stack_lo, PAGE));
	cr_assert_not(readable(t->guard));
	cr_assert(readable(t->guard + PAGE));
	cr_assert(readable(top - 1));
	cr_assert_eq(wt_stack_owner((uintptr_t)top - 1), t);
	cr_assert_eq(wt_stack_owner((uintptr_t)top - SLOT), t);
	cr_assert_null(wt_stack_owner((uintptr_t)top - SLOT - 1), "the slot below is free");
	cr_assert_null(wt_stack_owner((uintptr_t)base_of(t) - 1), "below the arena");
	cr_assert_null(wt_stack_owner((uintptr_t)&tasks[0]));
}

Test(stack, guard_moves_down_and_claims_the_slot_below)
{
	struct wt_task *t = alloc(0, 0);
	int s = t->slot;
	char *top = t->stack_top, *g0 = t->guard;
	struct wt_overflow info;
	/* Not the guard: below it, above it, someone else's task. */
	cr_assert_eq(wt_stack_grow(t, (uintptr_t)g0 + PAGE, &info), WT_NOT_GUARD);
	cr_assert_eq(wt_stack_grow(t, (uintptr_t)g0 - 1, &info), WT_NOT_GUARD);
	cr_assert_eq(wt_stack_grow(NULL, (uintptr_t)g0, &info), WT_NOT_GUARD);
	/* G0 hit: the guard goes to the lowest page of the home slot. */
	cr_assert_eq(grow(t, &info), WT_GROWN);
	cr_assert_eq(t->guard, top - SLOT);
	cr_assert_eq(t->lowslot, s);
	cr_assert(readable(g0), "the old guard page is stack now");
	cr_assert_not(readable(t->guard));
	cr_assert_null(wt_stack_owner((uintptr_t)top - SLOT - 1));
	/* Hit there: the slot below is claimed, the guard at its bottom. */
	cr_assert_eq(grow(t, &info), WT_GROWN);
	cr_assert_eq(t->lowslot, s - 1);
	cr_assert_eq(t->guard, top - 2 * SLOT);
	cr_assert_eq(wt_stack_owner((uintptr_t)top - SLOT - 1), t);
	cr_assert(readable(top - SLOT));
	cr_assert(readable(top - SLOT - REGION), "the claimed slot's own G0 guard is gone");
	cr_assert_not(readable(t->guard));
	cr_assert_eq(nlive(), 1, "one task, however many slots");
	/* Freed: the extra slot goes back cold, the home slot warm, with its
	 * G0 guard again; the next task gets the home slot as it was left. */
	wt_stack_free(t, NULL, WT_ENDED_JOINED);
	cr_assert_eq(nlive(), 0);
	cr_assert_eq(nwarm(), 1);
	cr_assert_null(wt_stack_owner((uintptr_t)top - 1));
	cr_assert_null(wt_stack_owner((uintptr_t)top - SLOT - 1));
	cr_assert_not(readable(g0));
	cr_assert(readable(top - SLOT), "the deep guard is removed");
	cr_assert(readable(top - 2 * SLOT));
	struct wt_task *u = alloc(1, 0);
	cr_assert_eq(u->slot, s);
	cr_assert_eq(u->lowslot, s);
	cr_assert_eq(u->guard, g0);
	cr_assert_eq(nwarm(), 0);
}

Test(stack, growth_stops_at_stack_max)
{
	wt_cfg.stack_max = 100 * MIB;
	struct wt_task *t = alloc(0, 0);
	char *top = t->stack_top;
	cr_assert_eq(t->stack_max, 100 * MIB);
	struct wt_overflow info;
	cr_assert_eq(grow(t, &info), WT_GROWN);
	cr_assert_eq(t->guard, top - SLOT);
	cr_assert_eq(grow(t, &info), WT_GROWN, "into the slot below, up to the limit");
	cr_assert_eq(t->lowslot, t->slot - 1);
	cr_assert(t->guard > top - 2 * SLOT && t->guard <= top - 100 * MIB - PAGE,
		  "guard at the limit: %td below the top", top - t->guard);
	cr_assert_eq(t->guard + PAGE, t->stack_lo);
	uintptr_t at = (uintptr_t)t->guard + 100;
	cr_assert_eq(wt_stack_grow(t, at, &info), WT_OVERFLOW);
	cr_assert_eq(info.limit, 100 * MIB);
	cr_assert_eq(info.depth, (size_t)((uintptr_t)top - at));
	cr_assert_null(info.blocker);
	cr_assert_not(readable(t->guard), "the guard stays");
}

Test(stack, reuse_lowest_k_first_and_blocked_growth)
{
	/* t grows into the slot below its own, then is freed: the extra slot
	 * goes cold at once, the home slot warm; a second later (the
	 * scavenger) cold too.  Cold slots are handed out lowest k first, so
	 * the next two tasks get the home slot (k 0) and the slot below it. */
	struct wt_task *t = alloc(0, 0);
	int s = t->slot;
	struct wt_overflow info;
	cr_assert_eq(grow(t, &info), WT_GROWN);
	cr_assert_eq(grow(t, &info), WT_GROWN);
	cr_assert_eq(t->lowslot, s - 1);
	wt_stack_free(t, NULL, WT_ENDED_JOINED);
	wt_stack_scavenge(wt_nanotime()); /* too soon: stays warm */
	cr_assert_eq(nwarm(), 1);
	wt_stack_scavenge(wt_nanotime() + 2000000000ll);
	cr_assert_eq(nwarm(), 0);
	struct wt_task *u = alloc(1, 0), *w = alloc(2, 0);
	cr_assert_eq(u->slot, s);
	cr_assert_eq(w->slot, s - 1);
	cr_assert_eq(w->guard, w->stack_top - REGION);
	/* u hits its home slot's bottom: the slot below is w's, so u's stack
	 * cannot grow, and the report names the task in the way. */
	cr_assert_eq(grow(u, &info), WT_GROWN);
	uintptr_t at = (uintptr_t)u->guard + 8;
	cr_assert_eq(wt_stack_grow(u, at, &info), WT_OVERFLOW);
	cr_assert_eq(info.blocker, w);
	cr_assert_eq(info.depth, (size_t)((uintptr_t)u->stack_top - at));
	cr_assert_eq(u->lowslot, s);
	cr_assert_eq(wt_stack_owner((uintptr_t)w->stack_top - 1), w);
	/* The next new task is k 1, the arena's middle. */
	cr_assert_eq(alloc(3, 0)->slot, nslots() / 2 - 1);
}

Test(stack, proc_cache_is_lifo_and_spills_half_to_the_ring)
{
	struct wt_p *p = &stub_procs[0];
	stub_curp = p;
	for (int i = 0; i < 20; i++)
		alloc(i, 0);
	int s5 = tasks[5].slot, s7 = tasks[7].slot;
	wt_stack_free(&tasks[5], p, WT_ENDED_JOINED);
	wt_stack_free(&tasks[7], p, WT_ENDED_JOINED);
	cr_assert_eq(p->slots.n, 2);
	cr_assert_eq(nwarm(), 2);
	cr_assert_eq(alloc(100, 0)->slot, s7, "last freed, first reused");
	cr_assert_eq(alloc(101, 0)->slot, s5);
	cr_assert_eq(p->slots.n, 0);
	cr_assert_eq(nwarm(), 0);
	/* 16 fit the cache; the 17th moves half of them to the global ring. */
	static const int order[16] = { 0, 1, 2, 3, 4, 6, 8, 9, 10, 11, 12, 13, 14, 15, 18, 19 };
	for (int i = 0; i < 16; i++)
		wt_stack_free(&tasks[order[i]], p, WT_ENDED_JOINED);
	cr_assert_eq(p->slots.n, 16);
	int s16 = tasks[16].slot;
	wt_stack_free(&tasks[16], p, WT_ENDED_JOINED);
	cr_assert_eq(tasks[16].slot, -1);
	cr_assert_eq(p->slots.n, 8);
	cr_assert_eq(nwarm(), 17);
	/* Another proc (none here) finds the spilled ones in the ring. */
	stub_curp = NULL;
	cr_assert_eq(alloc(102, 0)->slot, s16, "the ring is LIFO at its head");
	cr_assert_eq(nwarm(), 16);
	cr_assert_eq(nlive(), 4, "17, 100, 101 and 102");
}

Test(stack, big_stack_holds_several_slots_from_the_start)
{
	struct wt_task *t = alloc(0, 200 * MIB);
	int s = t->slot;
	char *top = t->stack_top;
	cr_assert_eq(t->lowslot, s - 3, "200 MiB + TLS need 4 slots");
	cr_assert_eq(t->stack_size, 200 * MIB);
	cr_assert_eq(t->stack_max, 1ul << 30);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(wt_stack_owner((uintptr_t)top - (size_t)i * SLOT - 1), t, "slot %d", s - i);
	cr_assert_null(wt_stack_owner((uintptr_t)top - 4 * SLOT - 1));
	cr_assert(readable(top - SLOT - REGION), "no G0 guard in the lower slots");
	cr_assert_eq(t->guard, top - REGION);
	struct wt_overflow info;
	cr_assert_eq(grow(t, &info), WT_GROWN);
	cr_assert_eq(t->guard, top - 4 * SLOT, "the first fault moves the guard to the bottom");
	wt_stack_free(t, NULL, WT_ENDED_JOINED);
	for (int i = 0; i < 4; i++)
		cr_assert_null(wt_stack_owner((uintptr_t)top - (size_t)i * SLOT - 1));
	cr_assert_not(readable(top - REGION));
}

Test(stack, stack_bigger_than_the_arena_gives_gets_a_mapping)
{
	alloc(0, 0); /* the arena, to learn its size */
	size_t size = (size_t)(nslots() / 4) * SLOT;
	struct wt_task *t = alloc(1, size);
	cr_assert_eq(t->slot, -1);
	cr_assert_eq(t->stack_size, size);
	cr_assert_eq(t->stack_max, size, "a mapping of its own does not grow");
	cr_assert_eq(t->guard + PAGE, t->stack_lo);
	cr_assert_not(readable(t->guard));
	cr_assert(readable(t->stack_lo));
	cr_assert(readable(t->stack_top - 1));
	cr_assert_null(wt_stack_owner((uintptr_t)t->stack_lo));
	struct wt_overflow info;
	cr_assert_eq(grow(t, &info), WT_OVERFLOW);
	cr_assert_eq(info.limit, size);
	cr_assert_eq(wt_stack_grow(t, (uintptr_t)t->stack_lo, &info), WT_NOT_GUARD);
	char *lo = t->stack_lo;
	wt_stack_free(t, NULL, WT_ENDED_JOINED);
	cr_assert_not(readable(lo), "unmapped");
	cr_assert_eq(nlive(), 1);
}

Test(stack, fixed_stack_is_exactly_its_size_with_its_guard_under_it)
{
	struct wt_task *t = &tasks[0];
	memset(t, 0, sizeof *t);
	cr_assert_eq(wt_stack_alloc(t, 4 * MIB, 64 << 10, true), 0);
	char *top = t->stack_top;
	cr_assert(t->stack_fixed);
	cr_assert_eq(t->stack_lo, top - 4 * MIB, "TLS inside the size, as glibc");
	cr_assert_eq(t->guard, top - 4 * MIB - (64 << 10));
	cr_assert_eq(t->guard_len, 64 << 10);
	cr_assert_eq(t->guard_size, 64 << 10);
	cr_assert_eq(t->stack_max, 4 * MIB);
	cr_assert(readable(top - REGION), "no G0 inside a fixed stack");
	cr_assert(readable(t->stack_lo));
	cr_assert_not(readable(t->guard));
	cr_assert_not(readable(t->stack_lo - PAGE));
	struct wt_overflow info;
	cr_assert_eq(wt_stack_grow(t, (uintptr_t)t->stack_lo - 8, &info), WT_OVERFLOW,
		     "a fixed stack does not grow");
	cr_assert_eq(info.limit, 4 * MIB);
	cr_assert_eq(wt_stack_grow(t, (uintptr_t)t->stack_lo + 8, &info), WT_NOT_GUARD);
	int s = t->slot;
	wt_stack_free(t, NULL, WT_ENDED_JOINED);
	/* The slot comes back warm with its G0, the fixed guard gone. */
	struct wt_task *u = alloc(1, 0);
	cr_assert_eq(u->slot, s);
	cr_assert_eq(u->guard, top - REGION);
	cr_assert_not(readable(top - REGION));
	cr_assert(readable(top - 4 * MIB - PAGE), "the fixed guard was removed");
	memset(&tasks[2], 0, sizeof tasks[2]);
	cr_assert_eq(wt_stack_alloc(&tasks[2], 4096, 0, true), -EINVAL,
		     "too small for the TLS block, as glibc");
}

Test(stack, a_stack_the_program_remapped_comes_back_fresh)
{
	struct wt_task *t = alloc(0, 0);
	int s = t->slot;
	char *top = t->stack_top;
	char *zone = top - MIB;
	cr_assert_eq(mprotect(zone, PAGE, PROT_NONE), 0);
	wt_stack_touched((uintptr_t)zone, PAGE);
	cr_assert(t->stack_dirty);
	wt_stack_free(t, NULL, WT_ENDED_JOINED);
	cr_assert(readable(zone), "mapped afresh");
	struct wt_task *u = alloc(1, 0);
	cr_assert_eq(u->slot, s, "given back cold, claimed again lowest k first");
	cr_assert_not(readable(top - REGION), "G0 installed again");
	cr_assert(readable(zone));
}

Test(stack, tls_failure_gives_the_slot_back)
{
	struct wt_task *t = &tasks[0];
	stub_tls_fail = true;
	cr_assert_eq(wt_stack_alloc(t, 0, 0, false), -EAGAIN);
	cr_assert_eq(nlive(), 0);
	cr_assert_eq(nwarm(), 1);
	cr_assert_null(t->stack_lo);
	stub_tls_fail = false;
	struct wt_task *u = alloc(1, 0);
	cr_assert_eq(u->slot, nslots() - 1, "the same slot, warm");
	cr_assert_eq(nwarm(), 0);
}

Test(stack, arena_shrinks_to_the_address_space)
{
	/* Room for ~3 TiB more than the process maps now. */
	long vm = 0;
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof line, f))
		sscanf(line, "VmSize: %ld kB", &vm);
	if (f)
		fclose(f);
	cr_assert_gt(vm, 0);
	struct rlimit rl = { (rlim_t)vm * 1024 + (3ul << 40), RLIM_INFINITY };
	cr_assert_eq(setrlimit(RLIMIT_AS, &rl), 0);
	alloc(0, 0);
	alloc(1, 0);
	long n = nslots();
	cr_assert_leq(n, 1l << 15, "%ld slots of 64 MiB in a 3 TiB address space", n);
	cr_assert_eq(tasks[0].slot, n - 1);
	cr_assert_eq(tasks[1].slot, n / 2 - 1);
	fflush(stderr);
	char want[256], got[4096];
	snprintf(want, sizeof want,
		 "weft: the address space allows a stack arena of %ld GiB only (RLIMIT_AS "
		 "or vm.overcommit_memory=2): at most %ld tasks, and stacks grow less\n",
		 n * 64 / 1024, n);
	FILE *err = cr_get_redirected_stderr();
	size_t len = fread(got, 1, sizeof got - 1, err);
	got[len] = 0;
	cr_assert_str_eq(got, want, "said once, with the figures");
}

Test(stack, scavenger_maps_a_free_slot_afresh)
{
	/* A slot free for a second: its pages, page tables and G0 marker
	 * go (mapped afresh); the next owner gets a G0 again. */
	struct wt_task *t = alloc(0, 0);
	int s = t->slot;
	char *top = t->stack_top;
	top[-PAGE] = 42;
	cr_assert_not(readable(top - REGION));
	wt_stack_free(t, NULL, WT_ENDED_JOINED);
	wt_stack_scavenge(wt_nanotime() + 2000000000ll);
	cr_assert_eq(nwarm(), 0);
	cr_assert_eq(top[-PAGE], 0, "its pages were returned");
	cr_assert(readable(top - REGION), "its G0 marker went with them");
	cr_assert_eq(wt_stack_ended((uintptr_t)top - PAGE), WT_ENDED_JOINED);
	struct wt_task *u = alloc(1, 0);
	cr_assert_eq(u->slot, s, "given back cold, lowest k first");
	cr_assert_not(readable(top - REGION), "G0 installed again");
}

/* A region's PMD page goes only with a mapping of the whole region: a
 * stack mapped afresh on its own (the program remapped it) leaves it.
 * A second after such a cold release sysmon maps every used, all-cold
 * region afresh whole. */
Test(stack, sysmon_sweeps_all_cold_regions_whole)
{
	/* 4 KiB of PMD page a region; the margins leave room for page
	 * tables a sanitizer's shadow memory may add meanwhile. */
	enum { N = 16 };
	long before = status_kb("VmPTE");
	for (int i = 0; i < N; i++) {
		/* Two slots each, in the region of its home slot; the lower
		 * one touched, so that its page tables exist. */
		struct wt_task *t = alloc(i, 100 * MIB);
		cr_assert_eq(t->lowslot, t->slot - 1);
		t->stack_top[-SLOT - PAGE] = 1;
		atomic_store(&t->stack_dirty, true);
	}
	long used = status_kb("VmPTE");
	cr_assert_geq(used - before, N * 8, "PMD + PT pages: %ld -> %ld kB", before, used);
	for (int i = 0; i < N; i++)
		wt_stack_free(&tasks[i], NULL, WT_ENDED_JOINED);
	int64_t now = wt_nanotime();
	wt_stack_scavenge(now);                 /* a sweep in a second */
	wt_stack_scavenge(now + 500000000ll);   /* not yet */
	long kept = status_kb("VmPTE");
	cr_assert_geq(kept - before, N * 3, "their PMD pages stay: %ld -> %ld kB", before, kept);
	wt_stack_scavenge(now + 1500000000ll);
	long swept = status_kb("VmPTE");
	cr_assert_leq(swept, kept - N * 3, "PMD pages returned: %ld -> %ld kB", kept, swept);
	/* The regions serve again. */
	struct wt_task *u = alloc(20, 0);
	u->stack_top[-PAGE] = 3;
	cr_assert_eq(u->stack_top[-PAGE], 3);
	cr_assert_not(readable(u->stack_top - REGION), "G0 installed");
}

/* An ended task's DTV stays in its home slot for the slot's next task;
 * a slot the program remapped frees it; the scavenger hands the DTVs of
 * the slots it trims to the next idle worker, which frees them. */
Test(stack, a_home_slot_keeps_its_dtv_for_the_next_task)
{
	struct wt_p *p = &stub_procs[0];
	stub_curp = p;
	static long dtv1[4], dtv2[4], dtv3[4];
	struct wt_task *a = alloc(0, 0);
	cr_assert_null(stub_dtv_given, "a fresh slot has none");
	a->dtv_keep = dtv1;
	wt_stack_free(a, p, WT_ENDED_JOINED);
	cr_assert_null(a->dtv_keep);
	cr_assert_null(stub_dtv_freed);
	alloc(1, 0);
	cr_assert_eq(stub_dtv_given, dtv1, "the slot's next task gets it");
	tasks[1].dtv_keep = dtv2;
	atomic_store(&tasks[1].stack_dirty, true);
	wt_stack_free(&tasks[1], p, WT_ENDED_JOINED);
	cr_assert_eq(stub_dtv_freed, dtv2, "mapped afresh: freed");
	alloc(2, 0);
	cr_assert_null(stub_dtv_given);
	/* To the ring, trimmed after a second: freed by an idle worker. */
	stub_curp = NULL;
	tasks[2].dtv_keep = dtv3;
	wt_stack_free(&tasks[2], NULL, WT_ENDED_JOINED);
	stub_dtv_freed = NULL;
	wt_stack_scavenge(wt_nanotime() + 2000000000ll);
	cr_assert_null(stub_dtv_freed, "not by sysmon");
	wt_stack_idle_trim();
	cr_assert_eq(stub_dtv_freed, dtv3);
	alloc(3, 0);
	cr_assert_null(stub_dtv_given, "a trimmed slot has none");
}

Test(stack, small_fixed_stacks_are_packed_and_keep_their_guards)
{
	/* 64 KiB stacks with a 4 KiB guard: units of 68 KiB side by side
	 * in one slot, each guard under its stack. */
	struct wt_task *t[3];
	for (int i = 0; i < 3; i++) {
		t[i] = &tasks[i];
		memset(t[i], 0, sizeof *t[i]);
		cr_assert_eq(wt_stack_alloc(t[i], 64 << 10, PAGE, true), 0);
		cr_assert(t[i]->stack_packed);
		cr_assert_eq(t[i]->stack_lo, t[i]->stack_top - (64 << 10));
		cr_assert_eq(t[i]->guard, t[i]->stack_lo - PAGE);
		cr_assert_not(readable(t[i]->guard));
		cr_assert(readable(t[i]->stack_lo));
		cr_assert_eq(wt_stack_owner((uintptr_t)t[i]->guard), t[i]);
		cr_assert_eq(wt_stack_owner((uintptr_t)t[i]->stack_top - 1), t[i]);
	}
	cr_assert_eq(t[1]->slot, t[0]->slot);
	cr_assert_eq(t[1]->guard, t[0]->stack_top, "adjacent units");
	cr_assert_eq(t[2]->guard, t[1]->stack_top);
	struct wt_overflow info;
	cr_assert_eq(wt_stack_grow(t[1], (uintptr_t)t[1]->guard + 8, &info), WT_OVERFLOW);
	char *g1 = t[1]->guard, *top1 = t[1]->stack_top;
	top1[-PAGE] = 7;
	wt_stack_free(t[1], NULL, WT_ENDED_DETACHED);
	cr_assert_null(wt_stack_owner((uintptr_t)top1 - 1));
	cr_assert_eq(wt_stack_ended((uintptr_t)top1 - 1), WT_ENDED_DETACHED);
	/* Reused at once, warm, guard kept. */
	struct wt_task *u = &tasks[3];
	memset(u, 0, sizeof *u);
	cr_assert_eq(wt_stack_alloc(u, 64 << 10, PAGE, true), 0);
	cr_assert_eq(u->guard, g1);
	cr_assert_eq(top1[-PAGE], 7, "warm: its pages kept");
	cr_assert_not(readable(g1));
	cr_assert_eq(wt_stack_ended((uintptr_t)top1 - 1), WT_ENDED_UNKNOWN);
	/* Another geometry gets a pack of its own. */
	struct wt_task *v = &tasks[4];
	memset(v, 0, sizeof *v);
	cr_assert_eq(wt_stack_alloc(v, 128 << 10, 2 * PAGE, true), 0);
	cr_assert(v->stack_packed);
	cr_assert_neq(v->slot, t[0]->slot);
	/* Bigger than a pack takes: a slot of its own. */
	struct wt_task *w = &tasks[5];
	memset(w, 0, sizeof *w);
	cr_assert_eq(wt_stack_alloc(w, 1 * MIB, PAGE, true), 0);
	cr_assert_not(w->stack_packed);
}

/* The join or detach of a task that left a small record (core/task.c:
 * wt_task_unjoined_end). */
static void end_unjoined(uintptr_t tp, int ended)
{
	struct wt_unjoined *u = wt_unjoined_take(tp);
	cr_assert_not_null(u, "a record for %#lx", (unsigned long)tp);
	cr_assert_eq(u->tp, tp);
	wt_unjoined_free(u);
	wt_stack_unjoined_end(tp, ended);
}

static bool unjoined_has(uintptr_t tp)
{
	struct wt_unjoined u;
	return wt_unjoined_find(tp, &u) && u.tp == tp;
}

/* What a task's exit does before its join (core/task.c: after_exit): its home
 * slot goes back warm at once; its pthread_t (the TCB address) stays
 * reserved, so the slot's next owner puts its TCB one alignment lower. */
Test(stack, an_unjoined_exit_gives_the_slot_back_and_keeps_its_pthread_t)
{
	struct wt_p *p = &stub_procs[0];
	stub_curp = p;
	struct wt_task *a = alloc(0, 0);
	int s = a->slot;
	uintptr_t pa = a->tp;
	char *top = a->stack_top;
	top[-PAGE] = 5;
	a->stack_size = 8u << 20;
	cr_assert(wt_stack_exit_release(a, p));
	cr_assert_eq(a->slot, -1);
	cr_assert_null(wt_stack_owner(pa), "the slot is free");
	struct wt_unjoined ua;
	cr_assert(wt_unjoined_find(pa, &ua));
	cr_assert_eq(ua.stack_top, top, "the small record keeps the stack it reports");
	cr_assert_eq(ua.stack_size, 8u << 20);
	cr_assert(wt_stack_in_arena(pa));
	struct wt_task *b = alloc(1, 0);
	cr_assert_eq(b->slot, s, "reused at once");
	cr_assert_eq(top[-PAGE], 5, "warm");
	cr_assert_eq(b->tp, pa - 64, "its TCB one alignment lower");
	cr_assert_eq(b->stack_top, top, "the reported stack is the slot's");
	cr_assert_eq(wt_stack_owner(pa), b);
	/* b exits unjoined too; a's join frees a's place for the next owner. */
	cr_assert(wt_stack_exit_release(b, p));
	cr_assert(unjoined_has(pa - 64));
	cr_assert_eq(alloc(2, 0)->tp, pa - 128);
	end_unjoined(pa, WT_ENDED_JOINED);
	cr_assert_not(unjoined_has(pa));
	wt_stack_free(&tasks[2], p, WT_ENDED_JOINED);
	cr_assert_eq(wt_stack_ended(pa), WT_ENDED_JOINED);
	cr_assert_eq(alloc(3, 0)->tp, pa, "the top place again");
	end_unjoined(pa - 64, WT_ENDED_DETACHED);
	cr_assert_not(unjoined_has(pa - 64));
}

/* A slot holds at most 511 unjoined pthread_t's (512 places but the one
 * kept for fixed stacks): then its owner keeps its stack until its join,
 * and a new owner's TCB goes below them all.  A fixed stack's TCB takes
 * one of the top 64 places or, when they are held, that kept place, and
 * never leaves a pthread_t there.  A pack never takes a slot that holds
 * one (a unit's TCB has one place). */
Test(stack, a_slot_holds_511_unjoined_pthread_ts)
{
	struct wt_p *p = &stub_procs[0];
	stub_curp = p;
	struct wt_task *t = alloc(0, 0);
	int s = t->slot;
	uintptr_t p0 = t->tp;
	for (int i = 1; i <= 511; i++) {
		cr_assert(wt_stack_exit_release(t, p), "exit %d", i);
		t = alloc(i, 0);
		cr_assert_eq(t->slot, s);
		cr_assert_eq(t->tp, p0 - (uintptr_t)(i < 64 ? i : i + 1) * 64, "owner %d", i);
	}
	cr_assert_not(wt_stack_exit_release(t, p), "all 511 places held");
	cr_assert_eq(t->slot, s, "it keeps its stack");
	stub_curp = NULL;
	wt_stack_free(t, NULL, WT_ENDED_JOINED); /* to the ring, where a pack looks */
	struct wt_task *u = &tasks[600];
	memset(u, 0, sizeof *u);
	cr_assert_eq(wt_stack_alloc(u, 64 << 10, PAGE, true), 0);
	cr_assert(u->stack_packed);
	cr_assert_neq(u->slot, s, "a pack skips the slot");
	struct wt_task *f = &tasks[601];
	memset(f, 0, sizeof *f);
	cr_assert_eq(wt_stack_alloc(f, 4 * MIB, PAGE, true), 0);
	cr_assert_eq(f->slot, s, "a fixed stack takes the slot");
	cr_assert_eq(f->tp, p0 - 64 * 64, "at the kept place, under the top 64");
	cr_assert_not(wt_stack_exit_release(f, NULL), "the kept place is never reserved");
	wt_stack_free(f, NULL, WT_ENDED_JOINED);
	for (int i = 0; i <= 511; i++)
		if (i != 64)
			end_unjoined(p0 - (uintptr_t)i * 64, WT_ENDED_JOINED);
	cr_assert_not(unjoined_has(p0));
	cr_assert_eq(alloc(602, 0)->slot, s, "the ring still has it");
	cr_assert_eq(tasks[602].tp, p0);
}

Test(stack, scavenger_trims_free_units_and_remaps_an_empty_pack)
{
	struct wt_task *t[3];
	for (int i = 0; i < 3; i++) {
		t[i] = &tasks[i];
		memset(t[i], 0, sizeof *t[i]);
		cr_assert_eq(wt_stack_alloc(t[i], 64 << 10, PAGE, true), 0);
		t[i]->stack_top[-PAGE] = 9;
	}
	char *top0 = t[0]->stack_top, *g0 = t[0]->guard;
	wt_stack_free(t[0], NULL, WT_ENDED_JOINED);
	wt_stack_scavenge(wt_nanotime());
	cr_assert_eq(top0[-PAGE], 9, "too soon: stays warm");
	wt_stack_scavenge(wt_nanotime() + 2000000000ll);
	cr_assert_eq(top0[-PAGE], 0, "a free unit's pages go back");
	cr_assert_not(readable(g0), "its guard stays");
	cr_assert_eq(t[1]->stack_top[-PAGE], 9, "units in use untouched");
	wt_stack_free(t[1], NULL, WT_ENDED_JOINED);
	wt_stack_free(t[2], NULL, WT_ENDED_JOINED);
	wt_stack_scavenge(wt_nanotime() + 2000000000ll);
	cr_assert(readable(g0), "an empty pack is mapped afresh, guards and all");
	struct wt_task *u = &tasks[3];
	memset(u, 0, sizeof *u);
	cr_assert_eq(wt_stack_alloc(u, 64 << 10, PAGE, true), 0);
	cr_assert_eq(u->guard, g0, "the pack's first unit again");
	cr_assert_not(readable(g0), "guard installed again");
}

/* ---- concurrent: spawners, growers and the scavenger claim by CAS ----
 * Each thread allocates a stack, takes every slot it got in a table of its
 * own (a CAS that finds the entry taken means two live tasks were given the
 * same slot), maybe grows it by a slot or two, checks wt_stack_owner, and
 * frees it.  Freed slots go through per-thread proc caches, the warm ring
 * and (the scavenger thread) the cold list, so spawns and growths keep
 * claiming the same slots. */

#define CTHREADS 4
#define CITER 3000
static _Atomic(struct wt_task *) *holder;
static _Atomic int conflicts, wrong_owner, grown_into, blocked, cdone;
static struct wt_p cprocs[CTHREADS];

static void take(struct wt_task *t, int s)
{
	struct wt_task *none = NULL;
	if (!atomic_compare_exchange_strong(&holder[s], &none, t))
		atomic_fetch_add(&conflicts, 1);
}

static void check_owner(struct wt_task *t)
{
	for (int s = t->lowslot; s <= t->slot; s++)
		if (wt_stack_owner((uintptr_t)slot_base(t, s) + 64) != t)
			atomic_fetch_add(&wrong_owner, 1);
}

static void *spawner(void *arg)
{
	int me = (int)(intptr_t)arg;
	struct wt_task *mine = calloc(8, sizeof *mine);
	unsigned r = 777u * (unsigned)(me + 1);
	stub_curp = me % 2 ? &cprocs[me] : NULL;
	for (int it = 0; it < CITER; it++) {
		r = r * 1103515245 + 12345;
		struct wt_task *t = &mine[(r >> 16) % 8];
		if (t->stack_lo) { /* live: release it */
			for (int s = t->lowslot; s <= t->slot; s++)
				atomic_store(&holder[s], NULL);
			wt_stack_free(t, stub_curp, WT_ENDED_JOINED);
			continue;
		}
		memset(t, 0, sizeof *t);
		if (wt_stack_alloc(t, 0, 0, false) != 0) {
			atomic_fetch_add(&conflicts, 1000);
			break;
		}
		for (int s = t->lowslot; s <= t->slot; s++)
			take(t, s);
		check_owner(t);
		int g = (int)((r >> 20) % 3);
		struct wt_overflow info;
		for (int i = 0; i < 2 * g; i++) {
			int low = t->lowslot;
			int res = grow(t, &info);
			if (res == WT_GROWN && t->lowslot != low) {
				take(t, t->lowslot);
				atomic_fetch_add(&grown_into, 1);
			} else if (res == WT_OVERFLOW) {
				atomic_fetch_add(&blocked, 1);
				if (info.blocker == t)
					atomic_fetch_add(&wrong_owner, 1);
				break;
			}
		}
		check_owner(t);
	}
	for (int i = 0; i < 8; i++)
		if (mine[i].stack_lo) {
			for (int s = mine[i].lowslot; s <= mine[i].slot; s++)
				atomic_store(&holder[s], NULL);
			wt_stack_free(&mine[i], stub_curp, WT_ENDED_JOINED);
		}
	free(mine);
	atomic_fetch_add(&cdone, 1);
	return NULL;
}

static void *scavenger(void *arg)
{
	while (atomic_load(&cdone) < CTHREADS)
		wt_stack_scavenge(wt_nanotime() + 10ll * 1000000000);
	return NULL;
}

Test(stack, concurrent_claims_never_share_a_slot, .timeout = 60)
{
	struct wt_task *first = alloc(0, 0); /* the arena, to size the table */
	long n = nslots();
	holder = calloc((size_t)n, sizeof *holder);
	cr_assert(holder);
	take(first, first->slot);
	pthread_t th[CTHREADS], sc;
	for (int i = 0; i < CTHREADS; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, spawner, (void *)(intptr_t)i), 0);
	cr_assert_eq(pthread_create(&sc, NULL, scavenger, NULL), 0);
	for (int i = 0; i < CTHREADS; i++)
		pthread_join(th[i], NULL);
	pthread_join(sc, NULL);
	cr_assert_eq(atomic_load(&conflicts), 0, "a slot was handed to two live tasks");
	cr_assert_eq(atomic_load(&wrong_owner), 0, "wt_stack_owner disagreed with a claim");
	cr_assert_gt(atomic_load(&grown_into), 0, "no stack grew into a slot below");
	cr_assert_eq(nlive(), 1, "only the first task is live");
	long held = 0;
	for (long s = 0; s < n; s++)
		held += atomic_load(&holder[s]) != NULL;
	cr_assert_eq(held, 1);
	free(holder);
}
