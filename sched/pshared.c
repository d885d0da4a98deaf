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
#include <linux/futex.h>

#include "pshared.h"
#include "print.h"
#include "sigtask.h"
#include "lock.h"

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

#define ROBUST_LIMIT 2048 /* the kernel's bound on a list walk */

/* As the kernel does for a dying OS thread (handle_futex_death): the robust
 * mutex whose lock word is at w, if tid holds it, is marked owner-died and
 * one waiter woken; its next locker gets EOWNERDEAD.  Robust mutexes use
 * shared futex operations, process-private ones too. */
static void owner_died(_Atomic uint32_t *w, uint32_t tid)
{
	uint32_t v = atomic_load_explicit(w, memory_order_relaxed);
	while ((v & FUTEX_TID_MASK) == tid) {
		uint32_t nv = (v & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
		if (atomic_compare_exchange_weak_explicit(w, &v, nv, memory_order_release,
							  memory_order_relaxed)) {
			if (nv & FUTEX_WAITERS)
				wt_futex_wake((_Atomic int *)w, 1, true);
			return;
		}
	}
}

void wt_robust_walk(uintptr_t *head, uint32_t tid)
{
	long off = (long)head[1];
	uintptr_t pending = head[2] & ~1ul;
	uintptr_t e = head[0];
	for (int n = 0; e && (e & ~1ul) != (uintptr_t)head && n < ROBUST_LIMIT; n++) {
		uintptr_t next = *(uintptr_t *)(e & ~1ul);
		if ((e & ~1ul) != pending)
			owner_died((_Atomic uint32_t *)((e & ~1ul) + off), tid);
		e = next;
	}
	if (pending)
		owner_died((_Atomic uint32_t *)(pending + off), tid);
}

/* The robust mutexes t still holds as it exits: glibc linked them on its
 * TCB's robust list, which no OS thread registered with the kernel, so
 * weft does what the kernel does at a thread's death.  Entries point at
 * a mutex's list link (bit 0: a priority-inheritance one); the lock word
 * lies futex_offset from there. */
static void robust_exit(struct wt_task *t, uint32_t tid)
{
	uintptr_t *head = (uintptr_t *)(wt_tls_pd(t->tp) + wt_off_robust);
	wt_robust_walk(head, tid);
	head[0] = (uintptr_t)head;
	head[2] = 0;
}

void wt_pshared_release(struct wt_task *t)
{
	if (!t->psid || t == anchor)
		return;
	/* A robust mutex is locked under the owner id (shim: PSHARED). */
	if (wt_off_robust)
		robust_exit(t, (uint32_t)t->psid);
	if (t->pslot >= 0)
		atomic_fetch_and_explicit(&slots[t->pslot / 64], ~(1ull << (t->pslot % 64)),
					  memory_order_relaxed);
}

void wt_pshared_robust_locked(void)
{
	struct wt_task *t = wt_cur();
	if (!t || t == anchor)
		return;
	if (!atomic_exchange_explicit(&said_robust, true, memory_order_relaxed))
		wt_print("weft: a robust mutex is held by a thread other than the first: if "
			 "this process dies while such a thread holds one it shares with another "
			 "process, that process is not told (no EOWNERDEAD)\n");
}
