/*
 * tls_static.c — how much static TLS a task keeps under its thread
 * pointer, and keeping every task's static TLS right when dlopen adds to it.
 *
 * glibc sizes every thread's static TLS block for the modules loaded at
 * start plus a surplus (1,664 bytes here) that later dlopens may claim:
 * modules with initial-exec TLS (libgomp, libGL, the sanitizers) must get
 * it.  Below the TCB (2,368 bytes) that makes 4,224 bytes, so a task whose
 * stack started under the whole block would touch two pages even when
 * parked at once: the TCB page, and the page its first frames fall in.
 *
 * Compact layout (WEFT_STATIC_TLS=compact, the default).  A task keeps the
 * static TLS in use (hw) plus SPARE bytes, and its stack starts right
 * there, in the TCB's page: a parked shallow task touches one data page.
 *      top of slot ─┐
 *      TCB (struct pthread)        2368
 *      static TLS in use (hw)      224 here (libc, weft, libunwind)
 *      spare for later dlopens     >= SPARE (512: glibc's own budget for
 *                                  optional static TLS)
 *      stack ↓                     about 1 KiB left in the page
 * glibc knows nothing of tasks, so two things are weft's to do when a
 * dlopen claims static TLS (hw grows):
 *  - give the new modules' TLS its initial values in every live task, as
 *    glibc does for its own threads (_dl_init_static_tls).  This also closes
 *    the gap the full layout always had: tasks created before the dlopen
 *    saw zeroes where .tdata should be.
 *  - a live task whose spare cannot hold the new TLS would have it overlap
 *    its stack: weft says so and aborts.  It takes more than 512 bytes of
 *    initial-exec TLS loaded after threads exist; WEFT_STATIC_TLS=full then
 *    gives every task the whole surplus (two pages per parked task).
 *
 * Variant I (static TLS above the thread pointer, struct pthread under it:
 * arch.h WT_ARCH_TLS_ABOVE_TP) is the same trade turned over: a task's
 * block keeps room for the TLS in use at start plus SPARE above its thread
 * pointer (`room`, fixed at start, so every slot's TCB sits at the same
 * place), its struct pthread under that, its stack under that; glibc's
 * surplus beyond `room` would lie past the top of the slot.  A dlopen that
 * needs more than `room` gets the same message and abort.
 *
 * Seeing every dlopen, including glibc's own (NSS, iconv), with dlopen's
 * caller kept (it picks the RUNPATH searched and the namespace): libc's
 * dlopen calls ld.so through the _dl_open pointer in _rtld_global_ro, two
 * slots after the exported _dl_mcount.  weft wraps that pointer, then checks
 * the wrap by a dlopen of libc with RTLD_NOLOAD.  A module's static offset
 * is read from its link_map, at the field where every module loaded at
 * start holds exactly the offset dl_iterate_phdr shows (libc and weft always
 * have TLS, so at least two agree).  Whatever of this cannot be found or
 * checked, weft uses the full layout and says so in scheddetail's output.
 */
#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "core/runtime.h"
#include "core/config.h"
#include "base/print.h"
#include "base/slab.h"
#include "base/throw.h"
#include "tls.h"
#include "tls_static.h"

#define SPARE 512       /* static TLS kept free under every task */
#define FRAMES_MIN 512  /* compact only if the stack keeps this much of the page */
#define PAGE 4096ul

const char *wt_tls_layout = "full";
static bool compact;
static _Atomic size_t hw;        /* static TLS in use: the largest offset */
static size_t done;              /* [sync_lock] hw whose TLS every task has */
static size_t room;              /* [const after init] variant I: compact block above tp */
static wt_lock_t sync_lock = WT_LOCK_INIT(WT_RANK_TLS_SYNC);
static int off_field = -1;       /* link_map word holding l_tls_offset */
static unsigned long long seen_adds;

typedef void *(*dl_open_fn)(const char *, int, const void *, long, int, char **, char **);
static dl_open_fn *open_slot;
static dl_open_fn orig_open;
static _Atomic int hook_calls;

uintptr_t wt_tls_tp_under(uintptr_t top, bool allow_compact)
{
	if (!WT_ARCH_TLS_ABOVE_TP)
		return WT_ALIGN_DOWN(top - wt_tcb_size, wt_tls_static_align);
	size_t above = allow_compact && compact ? room : wt_tls_static_size;
	return WT_ALIGN_DOWN(top - above, wt_tls_static_align);
}

/* Where a task's stack starts under the TCB at tp: compact when allowed,
 * else under glibc's whole static TLS block.  Variant I: under struct
 * pthread (wt_tls_tp_under made the block compact). */
char *wt_tls_stack_hi(uintptr_t tp, bool allow_compact)
{
	if (WT_ARCH_TLS_ABOVE_TP)
		return (char *)WT_ALIGN_DOWN(wt_tls_pd(tp), 64);
	uintptr_t full = WT_ALIGN_DOWN(tp + wt_tcb_size - wt_tls_static_size, 64);
	if (!allow_compact || !compact)
		return (char *)full;
	size_t used = atomic_load_explicit(&hw, memory_order_acquire);
	uintptr_t hi = WT_ALIGN_DOWN(tp - used - SPARE, 64);
	if (hi <= full || hi - WT_ALIGN_DOWN(tp - used, PAGE) < FRAMES_MIN)
		return (char *)full;
	return (char *)hi;
}

/* ---- static offsets of modules ---- */
struct mod { size_t *lm; size_t off; };

/* A module's first program header of the type, or NULL. */
static const ElfW(Phdr) *phdr_of(struct dl_phdr_info *info, uint32_t type)
{
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == type)
			return &info->dlpi_phdr[i];
	return NULL;
}

static uintptr_t tls_module_addr(struct dl_phdr_info *info)
{
	const ElfW(Phdr) *ph = phdr_of(info, PT_LOAD);
	return ph ? info->dlpi_addr + ph->p_vaddr : 0;
}

/* The size of a module's TLS block (0: none). */
static size_t tls_memsz(struct dl_phdr_info *info)
{
	const ElfW(Phdr) *ph = phdr_of(info, PT_TLS);
	return ph ? ph->p_memsz : 0;
}

/* How far from the thread pointer a module's static block reaches, given
 * its offset as glibc keeps it (l_tls_offset): the offset itself in
 * variant II (the block ends at tp - offset + size <= tp), offset + size
 * in variant I. */
static size_t reach(size_t off, size_t memsz)
{
	return WT_ARCH_TLS_ABOVE_TP ? off + memsz : off;
}

/* A module's link map, as words: the entry of ld.so's list whose dynamic
 * section is the module's, a walk of a few entries; else (a module of
 * another namespace) dladdr1's, which searches the module's whole symbol
 * table.  Context: a dl_iterate_phdr callback (the list does not change). */
static size_t *link_map_of(struct dl_phdr_info *info)
{
	const ElfW(Phdr) *ph = phdr_of(info, PT_DYNAMIC);
	uintptr_t dyn = ph ? info->dlpi_addr + ph->p_vaddr : 0;
	for (struct link_map *l = _r_debug.r_map; dyn && l; l = l->l_next)
		if ((uintptr_t)l->l_ld == dyn)
			return (size_t *)l;
	Dl_info di;
	struct link_map *lm = NULL;
	uintptr_t addr = tls_module_addr(info);
	if (!addr || !dladdr1((void *)addr, &di, (void **)&lm, RTLD_DL_LINKMAP))
		return NULL;
	return (size_t *)lm;
}

/* At start: modules with static TLS, by where dl_iterate_phdr says their
 * block is in this (glibc-made) thread. */
struct start_scan { uintptr_t tp; struct mod m[16]; int n; size_t max; };

static int scan_start(struct dl_phdr_info *info, size_t sz, void *arg)
{
	(void)sz;
	struct start_scan *s = arg;
	uintptr_t d = (uintptr_t)info->dlpi_tls_data;
	if (!info->dlpi_tls_modid || !d)
		return 0;
	size_t off = WT_ARCH_TLS_ABOVE_TP ? d - s->tp : s->tp - d;
	if ((WT_ARCH_TLS_ABOVE_TP ? d < s->tp : d >= s->tp) ||
	    reach(off, tls_memsz(info)) > wt_tls_static_size)
		return 0;
	if (reach(off, tls_memsz(info)) > s->max)
		s->max = reach(off, tls_memsz(info));
	if (s->n < 16)
		s->m[s->n++] = (struct mod){ link_map_of(info), off };
	return 0;
}

#define LINK_MAP_WORDS 160 /* sizeof(struct link_map) is about 1,150 bytes */

static int find_offset_field(struct start_scan *s)
{
	for (int i = 0; i < s->n; i++)
		if (!s->m[i].lm)
			return -1;
	int found = -1;
	for (int f = 5; f < LINK_MAP_WORDS; f++) {
		int ok = 0;
		for (int i = 0; i < s->n; i++) {
			if (s->m[i].lm[f] != s->m[i].off)
				break;
			ok++;
		}
		if (ok == s->n) {
			if (found >= 0)
				return -1; /* two candidates: not sure */
			found = f;
		}
	}
	return found;
}

/* After a dlopen: the largest static offset of any module, unless
 * nothing was loaded since the last look (dlpi_adds counts loads). */
struct sync_scan { size_t max; unsigned long long adds; bool first, same; };

static int scan_now(struct dl_phdr_info *info, size_t sz, void *arg)
{
	(void)sz;
	struct sync_scan *s = arg;
	if (s->first) {
		s->first = false;
		s->adds = info->dlpi_adds;
		if (s->adds == __atomic_load_n(&seen_adds, __ATOMIC_RELAXED)) {
			s->same = true;
			return 1;
		}
	}
	size_t memsz = tls_memsz(info);
	if (!info->dlpi_tls_modid || !memsz)
		return 0;
	size_t *lm = link_map_of(info);
	if (!lm)
		return 0;
	size_t off = lm[off_field];
	/* 0: no static offset yet; -1: forced dynamic. */
	size_t most = WT_ARCH_TLS_ABOVE_TP ? wt_tls_static_size : wt_tls_static_size - wt_tcb_size;
	if (off && off != (size_t)-1 && reach(off, memsz) <= most && reach(off, memsz) > s->max)
		s->max = reach(off, memsz);
	return 0;
}

static int read_adds(struct dl_phdr_info *info, size_t sz, void *arg)
{
	(void)sz;
	*(unsigned long long *)arg = info->dlpi_adds;
	return 1;
}

/* How far from its thread pointer task t's block has room for static TLS:
 * glibc's whole block where the task has one of its own (a program-supplied
 * stack); else down to its stack (variant II), or up to `room` in the
 * compact layout (variant I). */
static size_t task_room(const struct wt_task *t)
{
	if (t->tls_block)
		return wt_tls_static_size;
	if (WT_ARCH_TLS_ABOVE_TP)
		return compact ? room : wt_tls_static_size;
	return t->tp - (uintptr_t)t->stack_hi;
}

/* Gives live tasks the initial values of TLS that dlopen put in static
 * TLS; aborts if a task's spare cannot hold it.  Context: any, holding no
 * weft lock (it takes sync_lock, then the task list's). */
static void sync_tasks(size_t to)
{
	static char *scratch;
	size_t scratch_size = WT_ALIGN_UP(wt_tls_static_size, PAGE) + PAGE;
	if (!scratch && !(scratch = wt_mmap_anon(scratch_size)))
		wt_throw("out of memory initialising static TLS after dlopen");
	uintptr_t stp = wt_tls_tp_under((uintptr_t)scratch + scratch_size, false);
	memset((void *)wt_tls_pd(stp), 0, wt_tcb_size + WT_TCB_HEADER);
	if (!wt_tls_alloc_dtv(stp))
		wt_throw("out of memory initialising static TLS after dlopen");
	atomic_store_explicit(&hw, to, memory_order_release);
	long bad = 0, live = 0;
	size_t least = wt_tls_static_size;
	wt_lock(&wt_sched.alllock);
	for (struct wt_task *t = wt_sched.alltasks; t; t = t->alllink) {
		if (t->main || !t->tp)
			continue;
		live++;
		/* A task whose TCB is in a block of its own (a program-supplied
		 * stack) has glibc's whole static TLS there. */
		size_t has = task_room(t);
		if (to > has) {
			if (has < least)
				least = has;
			bad++;
			continue;
		}
		if (WT_ARCH_TLS_ABOVE_TP)
			memcpy((char *)t->tp + done, (char *)stp + done, to - done);
		else
			memcpy((char *)t->tp - to, (char *)stp - to, to - done);
	}
	wt_unlock(&wt_sched.alllock);
	wt_tls_free(stp);
	done = to;
	if (bad) {
		wt_print("weft: a library loaded now puts static TLS %zu bytes %s the thread "
			 "pointer; %ld of %ld running threads have room for %zu there; "
			 "run with WEFT_STATIC_TLS=full\n", to, WT_ARCH_TLS_ABOVE_TP ? "above" : "under",
			 bad, live, least);
		wt_throw("static TLS would overlap task stacks");
	}
}

/* Context: any, holding no weft lock.  The scan runs outside sync_lock:
 * dl_iterate_phdr takes ld.so's load lock, which a dlopen running
 * constructors holds while a nested dlopen comes here. */
void wt_tls_static_sync(void)
{
	if (off_field < 0)
		return;
	struct sync_scan s = { .first = true };
	dl_iterate_phdr(scan_now, &s);
	if (s.same)
		return;
	wt_lock(&sync_lock);
	if (s.max > done)
		sync_tasks(s.max);
	if (s.adds > seen_adds)
		__atomic_store_n(&seen_adds, s.adds, __ATOMIC_RELAXED);
	wt_unlock(&sync_lock);
}

static void *hooked_open(const char *file, int mode, const void *caller, long nsid, int argc,
			 char **argv, char **env)
{
	void *r = orig_open(file, mode, caller, nsid, argc, argv, env);
	atomic_fetch_add_explicit(&hook_calls, 1, memory_order_relaxed);
	wt_tls_static_sync();
	return r;
}

static bool set_slot(dl_open_fn fn)
{
	uintptr_t pg = WT_ALIGN_DOWN((uintptr_t)open_slot, PAGE);
	if (wt_syscall6(SYS_mprotect, (long)pg, PAGE, PROT_READ | PROT_WRITE, 0, 0, 0))
		return false;
	__atomic_store_n(open_slot, fn, __ATOMIC_RELEASE);
	wt_syscall6(SYS_mprotect, (long)pg, PAGE, PROT_READ, 0, 0, 0);
	return true;
}

/* Finds and wraps ld.so's _dl_open.  Context: start, one thread. */
static bool hook_dl_open(void)
{
	void **ro = dlsym(RTLD_DEFAULT, "_rtld_global_ro");
	void *mcount = dlsym(RTLD_DEFAULT, "_dl_mcount");
	Dl_info a, b;
	if (!ro || !mcount || !dladdr(mcount, &a))
		return false;
	for (int j = 0; j < 256; j++) {
		if (ro[j] != mcount)
			continue;
		if (!ro[j + 2] || !dladdr(ro[j + 2], &b) || b.dli_fbase != a.dli_fbase)
			return false;
		open_slot = (dl_open_fn *)&ro[j + 2];
		orig_open = (dl_open_fn)ro[j + 2];
		break;
	}
	if (!open_slot || !set_slot(hooked_open))
		return false;
	void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	if (h)
		dlclose(h);
	if (atomic_load(&hook_calls) == 0) {
		set_slot(orig_open);
		return false;
	}
	return true;
}

/* Context: wt_tls_init, at start. */
void wt_tls_static_init(void)
{
	struct start_scan s = { .tp = wt_arch_get_tp() };
	dl_iterate_phdr(scan_start, &s);
	atomic_store(&hw, s.max);
	done = s.max;
	dl_iterate_phdr(read_adds, &seen_adds);
	if (s.n < 2 || (off_field = find_offset_field(&s)) < 0 || !hook_dl_open()) {
		off_field = -1;
		wt_tls_layout = "full (static TLS offsets not found; dlopen'ed TLS not initialised in tasks)";
		return;
	}
	compact = !wt_cfg.static_tls_full;
	if (WT_ARCH_TLS_ABOVE_TP) {
		room = WT_ALIGN_UP(s.max + SPARE, 64);
		if (room >= wt_tls_static_size)
			compact = false;
	}
	wt_tls_layout = compact ? "compact" : "full";
}

/* Fork child: a thread that held the lock is gone. */
void wt_tls_static_fork_reset(void)
{
	atomic_store_explicit(&sync_lock.v, 0, memory_order_relaxed);
}

/* A task just linked into the list of all tasks: a dlopen that raced with
 * its creation may have outgrown its spare after sync_tasks looked. */
void wt_tls_static_check(struct wt_task *t)
{
	size_t used = atomic_load_explicit(&hw, memory_order_acquire);
	if (t->main || !t->tp || t->tls_block)
		return;
	size_t has = task_room(t);
	if (used > has) {
		wt_print("weft: a library loaded while a thread was being created puts static TLS "
			 "%zu bytes %s the thread pointer; the thread has room for %zu there; "
			 "run with WEFT_STATIC_TLS=full\n", used,
			 WT_ARCH_TLS_ABOVE_TP ? "above" : "under", has);
		wt_throw("static TLS would overlap a new task's stack");
	}
}
