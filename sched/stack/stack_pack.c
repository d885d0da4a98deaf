/*
 * stack_pack.c — small fixed stacks packed side by side in arena slots.
 *
 * A thread created with an explicit stack size of at most WT_PACK_MAX (and a
 * guard of at most PACK_GUARD_MAX) gets a fixed stack (stack.c) exactly as
 * glibc lays one out: [top - size, top), TCB and static TLS at its top,
 * the guard under it.  Given a 64 MiB slot of its own, each such stack
 * costs a page-table page besides its data pages.  Here a slot (a "pack",
 * owned in stack.c's slot table by the pack's tagged address) is cut into
 * units of one geometry, guard + size, laid bottom up:
 *   unit i = [base + i * unit, base + (i + 1) * unit)
 *            guard at its bottom, the stack above, top = its end
 * so about 2 MiB / unit stacks share one page-table page, and a parked
 * task costs about its one data page.
 *
 * A unit's guard is installed the first time the unit is handed out and
 * kept while the unit is free and reused (the geometry never changes in a
 * pack): a spawn on a reused unit makes no system call.  Free units are
 * kept warm (their pages mapped, LIFO, reused first), then sysmon's
 * scavenger (wt_pack_scavenge) returns the pages of units free for a
 * second with MADV_DONTNEED over runs of adjacent units (guard markers
 * survive it), and maps a pack that is wholly free afresh, which returns
 * its page-table pages and guards too.
 *
 * Locking: one lock (STACK_PACK, taken before the arena's) for the packs'
 * lists; each unit's owner word is written under it and read lock-free
 * (wt_pack_owner: the pthread_t lookups, the fault handler).  A pack's
 * record is never freed: a pthread_t that points into it stays valid to
 * look up.
 */
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "core/runtime.h"
#include "base/lock.h"
#include "base/slab.h"
#include "stack.h"
#include "stack_pack.h"
#include "io/syscall.h"
#include "core/timer.h"

#define PAGE 4096ul
#define PACK_GUARD_MAX (64ul << 10) /* largest guard packed */
#define NGEOM 8                     /* geometries (size, guard) packed at once */
#define NPACKS 4096                 /* packs of one geometry */

enum { U_FRESH = 0, U_WARM, U_COLD, U_USED, U_TRIM };

struct geom;

struct pack {
	struct geom *geom;              /* [const] */
	int idx;                        /* [const] in geom->packs */
	int slot;                       /* [const] its arena slot */
	int nunits;                     /* [const] */
	size_t unit, glen;              /* [const] bytes */
	char *base;                     /* [const] the slot's base */
	int fresh;                      /* [P.lock] units [fresh, nunits) never handed out */
	int nwarm, ncold;               /* [P.lock] lengths of warm[], cold[] */
	int busy;                       /* [P.lock] units out of the lists for a trim */
	int *warm, *cold;               /* [P.lock] free units; warm: LIFO */
	uint32_t *freed;                /* [P.lock] ms a warm unit was freed, by unit */
	unsigned char *guard;           /* [P.lock] guard installed, by unit */
	_Atomic uintptr_t *owner;       /* [P.lock to store; read lock-free] task, by unit */
	_Atomic unsigned char *ended;   /* [atomic] WT_ENDED_* of a free unit's last task */
};

struct geom {
	size_t size, glen;              /* [P.lock] 0: an unused entry */
	int npacks;                     /* [P.lock] */
	int hint;                       /* [P.lock] lowest pack that may have a free unit */
	struct pack *packs[NPACKS];     /* [P.lock] */
};

static struct {
	wt_lock_t lock;
	struct geom *g[NGEOM];          /* [lock] mapped on first use */
	_Atomic long nwarm;             /* [atomic] warm units, all packs: the scavenger's look */
} P = { .lock = WT_LOCK_INIT(WT_RANK_STACK_PACK) };

static struct pack *new_pack(struct geom *g)
{
	size_t size = g->size, glen = g->glen, unit = size + glen;
	int n = (int)((WT_SLOT_SIZE) / unit);
	size_t meta = WT_ALIGN_UP(sizeof(struct pack), 64) + (size_t)n * (4 + 4 + 4 + 1 + 8 + 1) + 64;
	char *m = wt_mmap_anon(meta);
	if (!m)
		return NULL;
	struct pack *k = (struct pack *)m;
	char *x = m + WT_ALIGN_UP(sizeof(struct pack), 64);
	k->owner = (_Atomic uintptr_t *)x, x += (size_t)n * 8;
	k->warm = (int *)x, x += (size_t)n * 4;
	k->cold = (int *)x, x += (size_t)n * 4;
	k->freed = (uint32_t *)x, x += (size_t)n * 4;
	k->guard = (unsigned char *)x, x += (size_t)n;
	k->ended = (_Atomic unsigned char *)x;
	k->slot = wt_stack_slot_claim((uintptr_t)k | WT_PACK_TAG);
	if (k->slot < 0) {
		wt_syscall6(SYS_munmap, (long)m, (long)meta, 0, 0, 0, 0);
		return NULL;
	}
	k->geom = g;
	k->idx = g->npacks;
	k->base = wt_stack_slot_base(k->slot);
	k->nunits = n;
	k->unit = unit;
	k->glen = glen;
	return k;
}

/* A unit of this geometry, or -1 (*kp its pack).  [P.lock] */
static int unit_take(struct geom *g, struct pack **kp)
{
	for (int i = g->hint; i < g->npacks; i++) {
		struct pack *k = g->packs[i];
		int u = -1;
		if (k->nwarm > 0) {
			u = k->warm[--k->nwarm];
			atomic_fetch_sub_explicit(&P.nwarm, 1, memory_order_relaxed);
		} else if (k->ncold > 0) {
			u = k->cold[--k->ncold];
		} else if (k->fresh < k->nunits) {
			u = k->fresh++;
		} else {
			if (i == g->hint)
				g->hint = i + 1;
			continue;
		}
		*kp = k;
		return u;
	}
	if (g->npacks == NPACKS)
		return -1;
	struct pack *k = new_pack(g);
	if (!k)
		return -1;
	g->packs[g->npacks++] = k;
	*kp = k;
	return k->fresh++;
}

/* Gives t a packed fixed stack of `size` bytes with `glen` bytes of guard
 * under it (both page multiples); sets slot, lowslot, stack_top, stack_lo,
 * guard, guard_len.  -ENOSPC: not packed (too big, too many geometries,
 * no slot): the caller lays the stack out alone.  Context: any; may
 * allocate. */
int wt_pack_alloc(struct wt_task *t, size_t size, size_t glen)
{
	if (size > WT_PACK_MAX || glen > PACK_GUARD_MAX)
		return -ENOSPC;
	wt_lock(&P.lock);
	struct geom *g = NULL;
	for (int i = 0; i < NGEOM && !g; i++) {
		if (!P.g[i]) {
			P.g[i] = wt_mmap_anon(sizeof(struct geom));
			if (!P.g[i])
				break;
			P.g[i]->size = size;
			P.g[i]->glen = glen;
		}
		if (P.g[i]->size == size && P.g[i]->glen == glen)
			g = P.g[i];
	}
	struct pack *k = NULL;
	int u = g ? unit_take(g, &k) : -1;
	if (u < 0) {
		wt_unlock(&P.lock);
		return -ENOSPC;
	}
	atomic_store_explicit(&k->owner[u], (uintptr_t)t, memory_order_release);
	atomic_store_explicit(&k->ended[u], WT_ENDED_UNKNOWN, memory_order_relaxed);
	bool guard = k->guard[u];
	k->guard[u] = 1;
	wt_unlock(&P.lock);
	char *lo = k->base + (size_t)u * k->unit;
	if (!guard)
		wt_stack_guard(lo, glen);
	t->slot = t->lowslot = k->slot;
	t->stack_packed = true;
	t->guard = lo;
	t->guard_len = glen;
	t->stack_lo = lo + glen;
	t->stack_top = lo + k->unit;
	return 0;
}

static struct pack *pack_of(uintptr_t tag)
{
	return (struct pack *)(tag & ~(uintptr_t)WT_PACK_TAG);
}

static int unit_of(struct pack *k, uintptr_t addr)
{
	return (int)((addr - (uintptr_t)k->base) / k->unit);
}

/* Releases t's unit: warm, kept with its guard.  A unit the program
 * remapped (stack_dirty) is mapped afresh and goes back cold, without its
 * guard.  Context: as wt_stack_free. */
void wt_pack_free(struct wt_task *t, uintptr_t tag, int ended)
{
	struct pack *k = pack_of(tag);
	int u = unit_of(k, (uintptr_t)t->guard);
	bool dirty = atomic_load_explicit(&t->stack_dirty, memory_order_relaxed);
	if (dirty) {
		wt_syscall6(SYS_mmap, (long)t->guard, (long)k->unit, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
		wt_stack_remapped(t->guard, k->unit);
	}
	atomic_store_explicit(&k->ended[u], (unsigned char)ended, memory_order_relaxed);
	uint32_t ms = (uint32_t)(wt_nanotime() / 1000000);
	wt_lock(&P.lock);
	atomic_store_explicit(&k->owner[u], 0, memory_order_release);
	if (dirty) {
		k->guard[u] = 0;
		k->cold[k->ncold++] = u;
	} else {
		k->freed[u] = ms;
		k->warm[k->nwarm++] = u;
		atomic_fetch_add_explicit(&P.nwarm, 1, memory_order_relaxed);
	}
	if (k->idx < k->geom->hint)
		k->geom->hint = k->idx;
	wt_unlock(&P.lock);
	t->slot = -1;
	t->stack_packed = false;
}

/* The task whose unit (guard included) holds addr, or NULL.  Context: any. */
struct wt_task *wt_pack_owner(uintptr_t tag, uintptr_t addr)
{
	struct pack *k = pack_of(tag);
	int u = unit_of(k, addr);
	if (u >= k->nunits)
		return NULL;
	return (struct wt_task *)atomic_load_explicit(&k->owner[u], memory_order_acquire);
}

/* The program changed mappings in [lo, hi) of a pack: the tasks owning
 * units there get them mapped afresh when released (stack_dirty). */
void wt_pack_touched(uintptr_t tag, uintptr_t lo, uintptr_t hi)
{
	struct pack *k = pack_of(tag);
	for (int u = unit_of(k, lo); u < k->nunits && (uintptr_t)k->base + (size_t)u * k->unit < hi; u++) {
		struct wt_task *o = (struct wt_task *)atomic_load_explicit(&k->owner[u],
									 memory_order_acquire);
		if (o)
			atomic_store_explicit(&o->stack_dirty, true, memory_order_relaxed);
	}
}

/* How the last task of a free unit ended (WT_ENDED_*). */
int wt_pack_ended(uintptr_t tag, uintptr_t addr)
{
	struct pack *k = pack_of(tag);
	int u = unit_of(k, addr);
	if (u >= k->nunits || atomic_load_explicit(&k->owner[u], memory_order_acquire))
		return WT_ENDED_UNKNOWN;
	return atomic_load_explicit(&k->ended[u], memory_order_relaxed);
}

/* One pack's trim: warm units freed before `cut` come out of the list
 * (the pack's busy count keeps a whole-pack remap away meanwhile), their
 * pages go with one MADV_DONTNEED per run of adjacent units, and they go
 * back cold.  A pack with no unit in use is mapped afresh instead.
 * [P.lock] held on entry and exit; dropped around the system calls. */
static void pack_trim(struct pack *k, uint32_t cut, int *buf)
{
	if (k->busy)
		return;
	int n = 0, keep = 0;
	for (int i = 0; i < k->nwarm; i++) {
		int u = k->warm[i];
		if ((int32_t)(k->freed[u] - cut) < 0)
			buf[n++] = u;
		else
			k->warm[keep++] = u;
	}
	if (n == 0)
		return;
	k->nwarm = keep;
	atomic_fetch_sub_explicit(&P.nwarm, n, memory_order_relaxed);
	if (keep == 0 && k->ncold + n == k->fresh) {
		/* Every unit handed out so far is free: the whole slot afresh. */
		int f = k->fresh;
		k->fresh = k->nunits; /* nothing handed out meanwhile */
		k->ncold = 0;
		k->busy = 1;
		wt_unlock(&P.lock);
		wt_syscall6(SYS_mmap, (long)k->base, (long)WT_SLOT_SIZE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
		wt_stack_remapped(k->base, WT_SLOT_SIZE);
		wt_lock(&P.lock);
		for (int u = 0; u < f; u++)
			k->guard[u] = 0;
		k->fresh = 0;
		k->busy = 0;
		if (k->idx < k->geom->hint)
			k->geom->hint = k->idx;
		return;
	}
	k->busy = 1;
	wt_unlock(&P.lock);
	wt_sort_ints(buf, n);
	for (int i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && buf[j] == buf[j - 1] + 1; j++)
			;
		/* From above the first guard: markers survive DONTNEED anyway. */
		char *lo = k->base + (size_t)buf[i] * k->unit + k->glen;
		char *hi = k->base + (size_t)(buf[j - 1] + 1) * k->unit;
		wt_syscall6(SYS_madvise, (long)lo, (long)(hi - lo), MADV_DONTNEED, 0, 0, 0);
	}
	wt_lock(&P.lock);
	for (int i = 0; i < n; i++)
		k->cold[k->ncold++] = buf[i];
	k->busy = 0;
	if (k->idx < k->geom->hint)
		k->geom->hint = k->idx;
}

/* sysmon: the pages of units free for a second go back.  Context: sysmon
 * (buf is its own). */
void wt_pack_scavenge(int64_t now)
{
	if (atomic_load_explicit(&P.nwarm, memory_order_relaxed) == 0)
		return;
	static int buf[WT_SLOT_SIZE / (PAGE * 2)] WT_BSS_LARGE; /* a unit is 2 pages or more */
	uint32_t cut = (uint32_t)(now / 1000000) - 1000;
	wt_lock(&P.lock);
	for (int i = 0; i < NGEOM && P.g[i]; i++)
		for (int j = 0; j < P.g[i]->npacks; j++)
			pack_trim(P.g[i]->packs[j], cut, buf);
	wt_unlock(&P.lock);
}

/* Fork child: a lock held by a thread now gone; the lists may be torn
 * (their free units leak). */
void wt_pack_fork_reset(void)
{
	if (atomic_load_explicit(&P.lock.v, memory_order_relaxed))
		for (int i = 0; i < NGEOM && P.g[i]; i++)
			for (int j = 0; j < P.g[i]->npacks; j++) {
				P.g[i]->packs[j]->nwarm = P.g[i]->packs[j]->ncold = 0;
				P.g[i]->packs[j]->busy = 0;
			}
	atomic_store_explicit(&P.lock.v, 0, memory_order_relaxed);
}
