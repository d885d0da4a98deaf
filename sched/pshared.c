/*
 * pshared.c — who owns a process-shared lock.
 *
 * glibc's mutexes, condition variables and rwlocks record their owner as
 * the tid field of the caller's TCB, and weft leaves the process-shared ones
 * to glibc (the kernel's futex protocols, the robust list).  A task's tid
 * field holds a fake tid (0x40000000 | id, never a kernel tid) that is
 * unique in the process but not across processes: the main task's is the
 * same everywhere, and a fork child's task keeps its parent's.  Natively a
 * kernel tid is unique on the system, so a lock held in the parent is not
 * the child's.  Around glibc's call on a process-shared object (shim:
 * PSHARED) the TCB's tid field therefore holds the task's process-shared
 * owner id:
 *   - the first thread's task (main; in a fork child the forking task, whose
 *     TCB glibc registers as the child's robust list): the process id, which
 *     is that OS thread's kernel tid.  A robust mutex it holds sits on the
 *     kernel-registered robust list with that tid, so the kernel marks it
 *     FUTEX_OWNER_DIED when the process dies, as natively;
 *   - any other task: 2^22 + pid * 255 + slot, slot < 255 held until the
 *     task exits.  2^22 is the kernel's largest possible pid count, and the
 *     value stays under 2^30 (the futex word's tid mask): never a kernel
 *     tid, unique among live processes.  glibc puts a robust mutex such a
 *     task holds on that task's TCB list, which no OS thread registers with
 *     the kernel: if the process dies holding it, nobody is told
 *     (wt_pshared_robust_locked says so once).  Past 255 such tasks at once,
 *     slots repeat (said once too).
 * The fake tid is back in the TCB when glibc's call returns: private locks
 * (weft's own, shim/pthread_mutex.c) keep using it.
 */
#include "pshared.h"
#include "print.h"
#include "sigtask.h"

#define NSLOT 255
#define PSHARED_BASE (1 << 22)

static struct wt_task *anchor;          /* [const; fork child] the first thread's task */
static _Atomic uint64_t slots[4];       /* [atomic] bit s: slot s taken */
static _Atomic unsigned wrap;           /* [atomic] slots handed out past NSLOT */
static _Atomic bool said_robust, said_wrap; /* [atomic] each message once */

void wt_pshared_init(struct wt_task *main_task)
{
	anchor = main_task;
}

void wt_pshared_fork_reset(struct wt_task *t)
{
	anchor = t;
	for (int i = 0; i < 4; i++)
		atomic_store_explicit(&slots[i], 0, memory_order_relaxed);
	/* Every task's id moves with the pid: t's is recomputed. */
	t->psid = 0;
}

static int take_slot(void)
{
	for (int s = 0; s < NSLOT; s++) {
		_Atomic uint64_t *w = &slots[s / 64];
		uint64_t bit = 1ull << (s % 64);
		uint64_t v = atomic_load_explicit(w, memory_order_relaxed);
		while (!(v & bit)) {
			if (atomic_compare_exchange_weak_explicit(w, &v, v | bit, memory_order_relaxed,
								  memory_order_relaxed))
				return s;
		}
	}
	if (!atomic_exchange_explicit(&said_wrap, true, memory_order_relaxed))
		wt_print("weft: more than %d threads use process-shared locks at once: "
			 "their owner ids repeat\n", NSLOT);
	return -1 - (int)(atomic_fetch_add_explicit(&wrap, 1, memory_order_relaxed) % NSLOT);
}

int wt_pshared_id(struct wt_task *t)
{
	if (t->psid)
		return t->psid;
	if (t == anchor) {
		t->psid = wt_pid;
	} else {
		int s = take_slot();
		t->pslot = s;
		if (s < 0)
			s = -1 - s;
		t->psid = PSHARED_BASE + (wt_pid % PSHARED_BASE) * NSLOT + s;
	}
	return t->psid;
}

void wt_pshared_release(struct wt_task *t)
{
	if (t->psid && t != anchor && t->pslot >= 0)
	atomic_fetch_and_explicit(&slots[t->pslot / 64], ~(1ull << (t->pslot % 64)),
				  memory_order_relaxed);
}

void wt_pshared_robust_locked(void)
{
	struct wt_task *t = wt_cur();
	if (!t || t == anchor)
		return;
	if (!atomic_exchange_explicit(&said_robust, true, memory_order_relaxed))
		wt_print("weft: a process-shared robust mutex is held by a thread other than the "
			 "first: if this process dies holding it, other processes are not told "
			 "(no EOWNERDEAD)\n");
}
