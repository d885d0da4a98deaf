/*
 * affinity.c — CPU masks of tasks.
 *
 * sched_setaffinity and pthread_setaffinity_np on a task record the mask
 * in the task (t->aff, under alllock), restricted to the CPUs the process
 * had at start (the kernel restricts to the cpuset's), and read it back;
 * a new task inherits its creator's, or its attribute's.  A task is not
 * bound to the CPUs of its mask: weft runs it on any worker.  What weft
 * does with the masks is for the process as a whole: every worker's
 * kernel mask is the union of the live tasks' masks, and the number of
 * procs (GOMAXPROCS, when not set in the environment) is at most the
 * number of CPUs in it.  So a program that pins itself to one CPU before
 * it creates threads runs its tasks one at a time on that CPU, as
 * natively; one that pins each thread to a CPU of its own keeps all of
 * them.
 *
 * The union is recomputed at each change by a walk of all tasks (changes
 * are rare); a task that exits keeps its CPUs in the union until the next
 * change.
 */
#include <errno.h>
#include <sys/syscall.h>

#include "core/runtime.h"
#include "affinity.h"
#include "cgroup.h"
#include "core/config.h"
#include "core/proc.h"
#include "base/slab.h"

static uint64_t start_mask[WT_AFF_WORDS]; /* [alllock; written once] the process's at start */
static bool start_read;                   /* [alllock] */
static _Atomic int union_ncpu;            /* [atomic, relaxed] 0 = no task set one */
static uint64_t union_mask[WT_AFF_WORDS]; /* [alllock] last given to the workers */

/* [alllock] */
static void read_start(void)
{
	if (start_read)
		return;
	start_read = true;
	if (wt_syscall6(SYS_sched_getaffinity, 0, sizeof start_mask, (long)start_mask, 0, 0, 0) < 0)
		for (int i = 0; i < WT_AFF_WORDS; i++)
			start_mask[i] = ~0ull;
}

/* The masks tasks set (t->aff). */
static struct wt_slab mask_slab = WT_SLAB_INIT(sizeof(uint64_t) * WT_AFF_WORDS);

bool wt_aff_of(struct wt_task *t, uint64_t out[WT_AFF_WORDS])
{
	wt_lock(&wt_sched.alllock);
	read_start();
	const uint64_t *src = t->aff ? t->aff : start_mask;
	for (int i = 0; i < WT_AFF_WORDS; i++)
		out[i] = src[i];
	bool own = t->aff != NULL;
	wt_unlock(&wt_sched.alllock);
	return own;
}

bool wt_aff_own(struct wt_task *t, uint64_t out[WT_AFF_WORDS])
{
	/* Most tasks have none: no lock (a setter fills the mask, then
	 * publishes it). */
	if (!__atomic_load_n(&t->aff, __ATOMIC_ACQUIRE))
		return false;
	return wt_aff_of(t, out);
}

/* Gives t (not yet or no longer seen by others, or under alllock) the
 * mask m; false when out of memory. */
static bool mask_set(struct wt_task *t, const uint64_t m[WT_AFF_WORDS])
{
	uint64_t *a = t->aff;
	if (!a && !(a = wt_slab_alloc(&mask_slab)))
		return false;
	for (int i = 0; i < WT_AFF_WORDS; i++)
		a[i] = m[i];
	__atomic_store_n(&t->aff, a, __ATOMIC_RELEASE);
	return true;
}

bool wt_aff_start(struct wt_task *t, const uint64_t m[WT_AFF_WORDS])
{
	return mask_set(t, m);
}

void wt_aff_release(struct wt_task *t)
{
	if (!t->aff)
		return;
	wt_lock(&wt_sched.alllock);
	uint64_t *m = t->aff;
	__atomic_store_n(&t->aff, NULL, __ATOMIC_RELAXED);
	wt_unlock(&wt_sched.alllock);
	wt_slab_free(&mask_slab, m);
}

int wt_aff_check(const uint64_t in[WT_AFF_WORDS], uint64_t out[WT_AFF_WORDS])
{
	wt_lock(&wt_sched.alllock);
	read_start();
	uint64_t any = 0;
	for (int i = 0; i < WT_AFF_WORDS; i++)
		any |= out[i] = in[i] & start_mask[i];
	wt_unlock(&wt_sched.alllock);
	return any ? 0 : -EINVAL;
}

int wt_aff_set(struct wt_task *t, size_t len, const void *mask)
{
	uint64_t in[WT_AFF_WORDS] = { 0 }, m[WT_AFF_WORDS];
	if (len > sizeof in)
		len = sizeof in;
	if (len && !mask)
		return -EFAULT;
	__builtin_memcpy(in, mask, len);
	int r = wt_aff_check(in, m);
	if (r)
		return r;
	wt_lock(&wt_sched.alllock);
	bool ok = mask_set(t, m);
	wt_unlock(&wt_sched.alllock);
	if (!ok)
		return -ENOMEM;
	wt_aff_apply();
	return 0;
}

int wt_aff_get(struct wt_task *t, size_t len, void *mask)
{
	uint64_t m[WT_AFF_WORDS];
	/* The kernel's answer for len (and its mask size) from the caller's
	 * own thread, then t's mask in its place. */
	long n = wt_syscall6(SYS_sched_getaffinity, 0, len, (long)mask, 0, 0, 0);
	if (n < 0)
		return (int)n;
	wt_aff_of(t, m);
	size_t k = (size_t)n < sizeof m ? (size_t)n : sizeof m;
	__builtin_memcpy(mask, m, k);
	return (int)n;
}

int wt_aff_ncpu(void)
{
	return atomic_load_explicit(&union_ncpu, memory_order_relaxed);
}

void wt_aff_apply(void)
{
	uint64_t u[WT_AFF_WORDS] = { 0 };
	bool changed = false;
	int n = 0;
	wt_lock(&wt_sched.alllock);
	read_start();
	for (struct wt_task *t = wt_sched.alltasks; t; t = t->alllink) {
		const uint64_t *src = t->aff ? t->aff : start_mask;
		for (int i = 0; i < WT_AFF_WORDS; i++)
			u[i] |= src[i];
	}
	for (int i = 0; i < WT_AFF_WORDS; i++) {
		changed |= u[i] != union_mask[i];
		union_mask[i] = u[i];
		n += __builtin_popcountll(u[i]);
	}
	atomic_store_explicit(&union_ncpu, n, memory_order_relaxed);
	wt_unlock(&wt_sched.alllock);
	if (!changed || n == 0)
		return;
	/* Every worker's kernel mask (a new worker inherits its creator's). */
	wt_lock(&wt_sched.lock);
	struct wt_m *all = atomic_load_explicit(&wt_sched.allm, memory_order_acquire);
	wt_unlock(&wt_sched.lock);
	for (struct wt_m *m = all; m; m = m->alllink)
		if (m->ostid)
			wt_syscall6(SYS_sched_setaffinity, m->ostid, sizeof u, (long)u, 0, 0, 0);
	if (wt_cfg.gomaxprocs_set)
		return;
	int procs = wt_procs_default(wt_sched.maxprocs, wt_cgroup_limit());
	if (n < procs)
		procs = n;
	if (procs != atomic_load_explicit(&wt_sched.nprocs, memory_order_relaxed))
		wt_procs_resize(procs);
}
