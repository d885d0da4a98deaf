/*
 * getrandom.c — glibc's per-thread getrandom states under tasks.
 *
 * glibc 2.41 and later give each thread a vDSO getrandom state at its
 * first call of getrandom, arc4random or a temporary-name function
 * (mkstemp, mkdtemp, mktemp, tempnam; tmpfile where the file system has
 * no O_TMPFILE), kept in a pointer of its struct pthread (getrandom_buf),
 * and take it back into their pool when the thread exits.  Two things
 * follow for tasks, whose struct pthread is weft's:
 *
 * The first call's window.  With every signal blocked glibc takes a state
 * from its pool, and when the pool is empty counts the CPUs, maps a page
 * of states and may name it: reads of TLS between system calls.  In trap
 * mode (tls.c) a kernel switch there makes the next read a fault with
 * SIGSEGV blocked, and the kernel kills the process (1 run in 40 of a test
 * whose main calls mkstemp once beside busy threads, on glibc 2.41; 6 in
 * 10 of one whose threads each make a first call beside busy processes).
 * So a call runs pinned (tls.c: wt_tls_pin) while its task has no state.
 *
 * The state at a task's end.  glibc's thread exit gives it back; a task
 * never runs that code, so each task that drew random numbers would keep
 * its state (a few hundred bytes, never reused) after it ended.  weft
 * keeps them instead: a dead task's state goes to a list here, and a
 * task's first call gets one from the list, stored in its struct pthread
 * before glibc looks (then glibc takes none, blocks no signal, and no pin
 * is needed).  A state is never in two places: it leaves the dead task's
 * TCB as it goes on the list, and the list under its lock.
 *
 * Where the pointer is.  struct pthread is glibc's own and its layout
 * changes between versions (2.41 put getrandom_buf before the rseq area,
 * 2.42 made it the last member), so weft finds it: around a call that
 * surely takes a state and does nothing else (getrandom, arc4random), by
 * a task that had none, the one 8-byte word of the struct's last 512
 * bytes that went from zero to an even, non-zero value is it.  Two such
 * calls (two tasks' first) that agree fix the offset; until then (and
 * forever on a glibc before 2.41, which keeps no such pointer and is not
 * observed) a task's calls run pinned in trap mode until one that takes a
 * state (t->rng_pinned), and states are not kept.  One task observes at a
 * time, 16 calls at most.
 *
 * A fork child: glibc's child handler of a threaded parent gives every
 * state back to its pool and clears the forking thread's pointer, so the
 * list is emptied (fork.c calls wt_rng_fork_reset).
 */
#include <gnu/libc-version.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "core/runtime.h"
#include "getrandom.h"
#include "base/lock.h"
#include "tls.h"

static _Atomic ptrdiff_t off = -1; /* [atomic] getrandom_buf's offset in struct pthread; -1 unknown */
static ptrdiff_t cand = -1;        /* [observing] the first observation's offset */
static _Atomic bool observing;     /* [atomic] a task observes a call */
static _Atomic int tries;          /* [atomic] observations made: 16 at most (a kernel
                                    * without vDSO getrandom never gives a state) */
static uint64_t snap[1024];        /* [observing] struct pthread before the call */

static wt_lock_t lock = WT_LOCK_INIT(WT_RANK_RNG);
static void **kept;                /* [lock] states of ended tasks */
static size_t nkept, cap;          /* [lock] */

static void *pop(void)
{
	void *s = NULL;
	wt_lock(&lock);
	if (nkept)
		s = kept[--nkept];
	wt_unlock(&lock);
	return s;
}

/* Context: g0, a task's end.  Grows the list with mmap (never the
 * program's malloc); a state that finds no room stays out of use. */
static void push(void *s)
{
	wt_lock(&lock);
	if (nkept == cap) {
		size_t ncap = cap ? cap * 2 : 512;
		void *p = (void *)wt_syscall6(SYS_mmap, 0, ncap * sizeof *kept, PROT_READ | PROT_WRITE,
					      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if ((long)p < 0 && (long)p > -4096) {
			wt_unlock(&lock);
			return;
		}
		if (kept) {
			memcpy(p, kept, cap * sizeof *kept);
			wt_syscall6(SYS_munmap, (long)kept, cap * sizeof *kept, 0, 0, 0, 0);
		}
		kept = p;
		cap = ncap;
	}
	kept[nkept++] = s;
	wt_unlock(&lock);
}

/* glibc 2.41 or later: its threads may keep a getrandom state. */
static bool keeps_states(void)
{
	static _Atomic int v; /* 0 not looked, 1 yes, -1 no */
	int k = atomic_load_explicit(&v, memory_order_relaxed);
	if (!k) {
		const char *s = gnu_get_libc_version();
		char *e;
		long major = strtol(s, &e, 10), minor = *e == '.' ? strtol(e + 1, NULL, 10) : 0;
		k = major > 2 || (major == 2 && minor >= 41) ? 1 : -1;
		atomic_store_explicit(&v, k, memory_order_relaxed);
	}
	return k > 0;
}

struct wt_rng wt_rng_enter(int kind)
{
	bool takes = kind >= WT_RNG_TAKES;
	struct wt_rng r = { { 0, 0, 0 }, false };
	struct wt_task *t = wt_cur();
	if (!t)
		return r;
	uintptr_t pd = wt_tls_pd(t->tp);
	ptrdiff_t o = atomic_load_explicit(&off, memory_order_acquire);
	if (o >= 0) {
		void **f = (void **)(pd + (uintptr_t)o);
		if (!*f)
			*f = pop();
		if (*f || !wt_tls_trap)
			return r;
		r.pin = wt_tls_pin();
		return r;
	}
	if (t->rng_pinned)
		return r; /* it took its state already */
	if (kind == WT_RNG_PURE && atomic_load_explicit(&tries, memory_order_relaxed) < 16 &&
	    wt_tcb_size <= sizeof snap && keeps_states() && !atomic_exchange(&observing, true)) {
		atomic_fetch_add_explicit(&tries, 1, memory_order_relaxed);
		memcpy(snap, (void *)pd, wt_tcb_size);
		r.observe = true;
	}
	t->rng_pinned = takes;
	if (wt_tls_trap)
		r.pin = wt_tls_pin();
	return r;
}

void wt_rng_leave(struct wt_rng r)
{
	wt_tls_unpin(r.pin);
	if (!r.observe)
		return;
	const uint64_t *now = (const uint64_t *)wt_tls_pd(wt_cur()->tp);
	ptrdiff_t found = -1;
	int n = 0;
	for (size_t i = wt_tcb_size > 512 ? (wt_tcb_size - 512) / 8 : 0; i < wt_tcb_size / 8; i++)
		if (!snap[i] && now[i] && !(now[i] & 1)) {
			found = (ptrdiff_t)(i * 8);
			n++;
		}
	if (n == 1) {
		if (found == cand)
			atomic_store_explicit(&off, found, memory_order_release);
		cand = found;
	}
	atomic_store(&observing, false);
}

void wt_rng_task_end(uintptr_t tp)
{
	ptrdiff_t o = atomic_load_explicit(&off, memory_order_acquire);
	if (o < 0)
		return;
	void **f = (void **)(wt_tls_pd(tp) + (uintptr_t)o);
	void *s = *f;
	*f = NULL;
	if (s && !((uintptr_t)s & 1)) /* odd: glibc's mark of a call under way */
		push(s);
}

void wt_rng_fork_reset(void)
{
	lock = (wt_lock_t)WT_LOCK_INIT(WT_RANK_RNG);
	nkept = 0;
	atomic_store(&observing, false);
}
