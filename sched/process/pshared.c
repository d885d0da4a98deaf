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
 *   - any other task: 2^22 + T * 255 + s, for a kernel tid T the process
 *     holds and a slot s < 255 held until the task exits.  2^22 is the
 *     kernel's largest possible pid count, and the value stays under 2^30
 *     (the futex word's tid mask): never a kernel tid.  T is first the
 *     process id (a block of 255 slots, a bitmap without a lock); when
 *     those are taken, the tid of a holder: an OS thread of weft's that
 *     only sleeps, started for the purpose, whose tid no other process can
 *     have while it lives, and so neither the block of ids it stands for.
 *     A holder exits once its last slot is given back (a task exits), so a
 *     program that used many ids at once keeps no extra thread afterwards;
 *     1,000 tasks at once hold three.  Holders count against
 *     WEFT_MAXTHREADS (core/worker.c) as workers do; at the cap none starts.
 *     glibc puts a robust mutex such a
 *     task holds on that task's TCB list, which no OS thread registers with
 *     the kernel: if the process dies holding it, nobody is told
 *     (wt_pshared_robust_locked says so once).  Only when no holder can be
 *     had (no thread to be made) do ids repeat (said once).
 * Rejected: a block per process sized by pid_max (/proc/sys/kernel/pid_max
 * is 4,194,304 wherever systemd sets it, leaving the 255 slots above; and
 * processes that read it before and after a change would lay their ids out
 * differently); a tid lent by a worker (workers exit when idle: core/worker.c).
 * The fake tid is back in the TCB when glibc's call returns: private locks
 * (weft's own, shim/pthread_mutex.c) keep using it.
 */
#include <linux/futex.h>
#include <setjmp.h>
#include <string.h>
#include <sys/syscall.h>

#include "core/config.h"
#include "signal/crash.h"
#include "pshared.h"
#include "shmap.h"
#include "base/print.h"
#include "signal/sigtask.h"
#include "base/slab.h"
#include "base/lock.h"
#include "core/worker.h"

#define NSLOT 255
#define PSHARED_BASE (1 << 22)
#define NBLOCK 4096 /* holders: 4,095 * 255 = 1,044,225 more tasks at once */

/* A block of NSLOT ids beyond the process id's: a holder thread's. */
struct block {
	_Atomic int tid;        /* [lk; atomic for the holder] its holder's tid, 0: none */
	/* [atomic] holders of generations up to this one exit (they wait on
	 * it): one that was told may not have run yet when the block gets its
	 * next holder. */
	_Atomic int quit;
	int gen;                /* [lk] its holder's generation */
	int used;               /* [lk] slots taken */
	uint64_t bits[4];       /* [lk] bit s: slot s taken */
};

static struct wt_task *anchor;          /* [const; fork child] the first thread's task */
static _Atomic uint64_t slots[4];       /* [atomic] bit s: slot s of the pid's block taken */
static _Atomic unsigned wrap;           /* [atomic] ids handed out with no block free */
static _Atomic bool said_robust, said_wrap; /* [atomic] each message once */
static wt_lock_t lk = WT_LOCK_INIT(WT_RANK_PSHARED);
static struct block *blocks;            /* [lk] NBLOCK of them, made at first need; [0] unused */
static int nblocks = 1;                 /* [lk] blocks[1..nblocks) may have a holder */

void wt_pshared_init(struct wt_task *main_task)
{
	anchor = main_task;
}

void wt_pshared_fork_reset(struct wt_task *t)
{
	anchor = t;
	for (int i = 0; i < 4; i++)
		atomic_store_explicit(&slots[i], 0, memory_order_relaxed);
	/* The holders are the parent's threads: none is the child's. */
	lk = (wt_lock_t)WT_LOCK_INIT(WT_RANK_PSHARED);
	if (blocks)
		memset(blocks, 0, sizeof *blocks * NBLOCK);
	nblocks = 1;
	/* Every task's id moves with the pid: t's is recomputed. */
	t->psid = 0;
}

/* Context: a holder thread of weft's, started by new_holder; it runs no
 * program code, so it takes no program signal, but SIGURG stays open for a
 * change of ids (setxid.c).  Waits until its block is empty, then exits. */
static void *holder(void *arg)
{
	struct block *b = arg;
	int gen = b->gen; /* set before this thread was made; stable until its tid is out */
	wt_sig_block_program();
	/* Release: pairs with new_holder's acquire. */
	atomic_store_explicit(&b->tid, (int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0),
			      memory_order_release);
	wt_futex_wake(&b->tid, 1, false);
	/* Acquire: pairs with release_block_slot's release store of quit. */
	for (int q; (q = atomic_load_explicit(&b->quit, memory_order_acquire)) < gen;)
		wt_futex_wait_sigok(&b->quit, q, NULL);
	atomic_fetch_sub(&wt_nthreads, 1); /* new_holder counted it in */
	return NULL;
}

/* A holder for b, which has none.  Context: a task, lk held (the thread is
 * started and its tid known before anyone else may use b). */
static bool new_holder(struct block *b)
{
	/* A thread like any other of weft's: counted against WEFT_MAXTHREADS. */
	if (!wt_thread_count_in())
		return false;
	b->gen++;
	atomic_store_explicit(&b->tid, 0, memory_order_relaxed);
	if (wt_thread_spawn(holder, b, 64 << 10) != 0) {
		atomic_fetch_sub(&wt_nthreads, 1);
		return false;
	}
	/* Acquire: pairs with the holder's release store of its tid. */
	while (!atomic_load_explicit(&b->tid, memory_order_acquire))
		wt_futex_wait(&b->tid, 0, NULL, false);
	return true;
}

/* A slot beyond the pid's block: index block * NSLOT + s, or -1.
 * Context: a task; takes lk, may start a thread. */
static int take_block_slot(void)
{
	int r = -1;
	wt_lock(&lk);
	if (!blocks && !(blocks = wt_mmap_anon(sizeof *blocks * NBLOCK)))
		goto out;
	int free_b = 0;
	for (int i = 1; i < nblocks && r < 0; i++) {
		struct block *b = &blocks[i];
		if (!atomic_load_explicit(&b->tid, memory_order_relaxed)) {
			if (!free_b)
				free_b = i;
			continue;
		}
		if (b->used == NSLOT)
			continue;
		for (int s = 0; s < NSLOT; s++)
			if (!(b->bits[s / 64] & (1ull << (s % 64)))) {
				b->bits[s / 64] |= 1ull << (s % 64);
				b->used++;
				r = i * NSLOT + s;
				break;
			}
	}
	if (r < 0) {
		int i = free_b ? free_b : nblocks < NBLOCK ? nblocks : 0;
		if (i && new_holder(&blocks[i])) {
			if (i == nblocks)
				nblocks++;
			blocks[i].bits[0] = 1;
			blocks[i].used = 1;
			r = i * NSLOT;
		}
	}
out:
	wt_unlock(&lk);
	return r;
}

/* Gives slot back (from take_block_slot); the last of a block ends its
 * holder.  Context: the exiting task; takes lk. */
static void release_block_slot(int slot)
{
	wt_lock(&lk);
	struct block *b = &blocks[slot / NSLOT];
	int s = slot % NSLOT;
	b->bits[s / 64] &= ~(1ull << (s % 64));
	if (--b->used == 0) {
		/* Release: pairs with the holder's acquire load of quit. */
		atomic_store_explicit(&b->quit, b->gen, memory_order_release);
		wt_futex_wake(&b->quit, 0x7fffffff, false);
		atomic_store_explicit(&b->tid, 0, memory_order_relaxed);
	}
	wt_unlock(&lk);
}

/* A slot: index < NSLOT in the pid's block, else in a holder's; < 0 when
 * none is free (the id then repeats one in the pid's block). */
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
	int r = take_block_slot();
	if (r >= 0)
		return r;
	if (!atomic_exchange_explicit(&said_wrap, true, memory_order_relaxed))
		wt_print("weft: more than %d threads use process-shared locks at once and no "
			 "thread could be started to hold more owner ids (WEFT_MAXTHREADS=%d): their "
			 "owner ids repeat\n",
			 NSLOT, wt_cfg.maxthreads);
	return -1 - (int)(atomic_fetch_add_explicit(&wrap, 1, memory_order_relaxed) % NSLOT);
}

int wt_pshared_id(struct wt_task *t)
{
	if (t->psid)
		return t->psid;
	if (t == anchor) {
		t->psid = wt_pid;
		return t->psid;
	}
	int s = take_slot();
	t->pslot = s;
	int tid = wt_pid, i = s;
	if (s < 0) {
		i = -1 - s;
	} else if (s >= NSLOT) {
		tid = atomic_load_explicit(&blocks[s / NSLOT].tid, memory_order_relaxed);
		i = s % NSLOT;
	}
	t->psid = PSHARED_BASE + (tid % PSHARED_BASE) * NSLOT + i;
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
				wt_shmap_wake((_Atomic int *)w, 1);
			return;
		}
	}
}

/* A robust list read as the kernel's walk reads it (get_user): stopping
 * at memory that is not mapped, and marking a lock word only if it holds
 * tid.  A list the program registered may have its head in a frame since
 * returned (stress-ng's pthread stressor does): then the words are
 * anything, and the walk goes to the kernel's bound through them.  Reads
 * go straight to memory with a fault caught (signal/crash.c), at the cost of a
 * load each: one system call a word made a thread's exit take
 * milliseconds there.  glibc's own list, in the TCB, takes the same walk. */
static void walk(struct wt_m *m, uintptr_t *head, uint32_t tid)
{
	sigjmp_buf jb;
	if (sigsetjmp(jb, 0))
		return; /* a fault: the catch is over */
	wt_catch_begin(m, &jb);
	uintptr_t h[3];
	wt_catch_at(m, head, sizeof h);
	memcpy(h, (const void *)head, sizeof h);
	long off = (long)h[1];
	uintptr_t pending = h[2] & ~1ul;
	uintptr_t e = h[0];
	for (int n = 0; e && (e & ~1ul) != (uintptr_t)head && n < ROBUST_LIMIT; n++) {
		const volatile uintptr_t *link = (const volatile uintptr_t *)(e & ~1ul);
		wt_catch_at(m, link, sizeof *link);
		uintptr_t next = *link;
		if ((e & ~1ul) != pending && !(((e & ~1ul) + off) & 3)) {
			_Atomic uint32_t *w = (_Atomic uint32_t *)((e & ~1ul) + off);
			wt_catch_at(m, w, sizeof *w);
			owner_died(w, tid);
		}
		e = next;
	}
	if (pending && !((pending + off) & 3)) {
		_Atomic uint32_t *w = (_Atomic uint32_t *)(pending + off);
		wt_catch_at(m, w, sizeof *w);
		owner_died(w, tid);
	}
	wt_catch_end(m);
}

void wt_robust_walk(uintptr_t *head, uint32_t tid)
{
	struct wt_task *t = wt_cur();
	if (t && t->m)
		walk(t->m, head, tid);
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
	if (t->pslot >= NSLOT)
		release_block_slot(t->pslot);
	else if (t->pslot >= 0)
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
