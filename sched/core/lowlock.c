/*
 * lowlock.c — a long wait for one of glibc's internal locks parks its
 * task instead of holding an OS thread.
 *
 * glibc guards its own state (malloc's arenas, every stdio FILE, the
 * atexit list, the locale, the resolver's and getpwnam's tables) with a
 * low-level lock: an int that is 0 (free), 1 (held) or 2 (held, maybe
 * waited for).  Taking one is an inline compare-and-swap; only the slow
 * paths are functions, both in libc and both exported as GLIBC_PRIVATE:
 * __lll_lock_wait_private(int *) stores 2 and sleeps in FUTEX_WAIT until
 * it takes the lock, __lll_lock_wake_private(int *) is called by an
 * unlock that found 2, and does one FUTEX_WAKE.  libc calls them
 * directly, never through a PLT, so no preload can interpose them, and
 * their futex calls are inline instructions.  A task waiting there holds
 * its worker; once sysmon sees the worker asleep (1 ms and more) it hands
 * the proc to another worker, a new thread if none is idle.  So 1,000
 * threads printing to a stdout that is a pipe nobody reads yet (the
 * holder of the FILE's lock parks in write, the rest wait for the lock)
 * made 616 OS threads under weft, 976 natively.
 *
 * At start, while the initial thread is the process's only thread, weft
 * writes a jump over the start of each function (arch/:
 * wt_arch_jump_write) to its own below, which keep the word's protocol
 * exactly:
 *   - wait: as glibc's (exchange 2 in until the old value was 0), but a
 *     task first spins about a microsecond for a free word, then sleeps
 *     in the kernel as glibc does for 1 ms at most (a timed FUTEX_WAIT),
 *     then parks while the word is 2 (the kernel's "still equal" check is
 *     the park's validate, under the bucket lock).  Most waits are short
 *     (a malloc, a line of stdio) and end in the first two steps exactly
 *     as natively: parked, a woken waiter would wait for its proc behind
 *     whatever runs there (a Rust pipeline whose stages free each other's
 *     channel blocks: 0.62-0.72 s parking at once, 0.55 s parking after
 *     50 µs, 0.42-0.44 s with the kernel's waits or with this, 0.35 s
 *     natively; 8,000-20,000 waits a run, 60-110 of them park).  A
 *     signal for a parked task runs its handler and the loop goes on, as
 *     glibc's does after EINTR.  In the kernel as before, untimed, wait:
 *     a thread that is not a task; a context holding a weft lock (weft's
 *     own code, which must not switch); a task inside a system call,
 *     bracketed or one sysmon took the proc of (m->insyscall: parking
 *     there, before the call is settled as a shim entry settles it, left a
 *     proc owned by a worker that had exited, and popen with fgets hung
 *     every run); a task between weft's fork handlers, holding glibc's
 *     fork locks (process/fork.c).
 *   - wake: one parked waiter, else, if a thread waits in the kernel
 *     (kwaiters), the kernel's FUTEX_WAKE of one.  Waking one of either
 *     kind is all the protocol needs: the woken one stores 2 as it takes
 *     the lock, so the next unlock wakes again; a kernel waiter not woken
 *     looks again when its millisecond is over.  In a fork child, glibc
 *     unlocks its atfork lock before weft's child handler has rebuilt
 *     the runtime: that wake is skipped (fork_child_early).  In a vfork
 *     child (the parent's memory) the parked waiter is readied without
 *     starting a worker (wt_ready_quiet).
 * Only the two exported functions are replaced; glibc's pthread-style
 * internal locks (the loader's recursive lock) keep their kernel waits.
 * The patch is checked before it is written: the symbols must be libc's
 * functions, each long enough for the jump (its ELF size); otherwise, if
 * the text cannot be made writable (a policy that forbids it), or with
 * WEFT_LIBC_LOCKS=kernel, nothing is written and the waits stay glibc's.
 * The written page becomes a private copy of libc's text (a page per
 * process that starts the runtime); a fork child inherits it, exec maps
 * libc afresh, and a dormant process (start.c) never gets here.
 */
#include <dlfcn.h>
#include <link.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "base/lock.h"
#include "base/throw.h"
#include "config.h"
#include "lowlock.h"
#include "park.h"
#include "proc.h"
#include "process/vfork.h"
#include "stack/tls.h"
#include "task.h"
#include "timer.h"

#define SPIN 200              /* rounds of the pause hint, about 1 µs */
#define KERNEL_NS 1000000     /* the kernel's wait before the park */

static _Atomic int kwaiters;  /* [atomic] threads in kernel_wait */

static bool word_is_2(const void *addr, uintptr_t unused)
{
	(void)unused;
	return __atomic_load_n((const int *)addr, __ATOMIC_RELAXED) == 2;
}

/* The kernel's wait while the word is 2, for at most ns (0: no limit). */
static void kernel_wait(int *w, long ns)
{
	struct timespec ts = { 0, ns };
	atomic_fetch_add(&kwaiters, 1);
	wt_syscall6(SYS_futex, (long)w, FUTEX_WAIT_PRIVATE, 2, ns ? (long)&ts : 0, 0, 0);
	atomic_fetch_sub(&kwaiters, 1);
}

/* Replaces __lll_lock_wait_private.  Context: any thread, libc's caller. */
static void lowlock_wait(int *w)
{
	struct wt_task *t = wt_cur();
	bool park = t && wt_locks_held == 0 && !t->in_fork && !t->m->insyscall &&
		    !atomic_load_explicit(&t->m->implicit, memory_order_relaxed);
	int64_t since = 0;
	for (int i = 0; i < SPIN; i++) {
		if (__atomic_load_n(w, __ATOMIC_RELAXED) == 0 &&
		    __atomic_exchange_n(w, 2, __ATOMIC_ACQUIRE) == 0)
			return;
		wt_arch_pause();
	}
	if (__atomic_load_n(w, __ATOMIC_RELAXED) == 2)
		goto wait;
	while (__atomic_exchange_n(w, 2, __ATOMIC_ACQUIRE) != 0) {
wait:
		if (!park) {
			kernel_wait(w, 0);
			continue;
		}
		int64_t now = wt_nanotime();
		if (!since)
			since = now;
		if (now - since < KERNEL_NS) {
			kernel_wait(w, KERNEL_NS - (now - since));
		} else {
			wt_wait_reason("libc lock");
			wt_park(w, word_is_2, 0, -1, false);
		}
	}
}

/* A fork child before weft's child handler rebuilt the runtime: glibc
 * unlocks its atfork lock before it runs the first child handler, and the
 * parking lot there is the parent's, copied as it was (a bucket lock
 * another worker held stays held).  The kernel wrote the child's own tid
 * into the forking task's TCB (CLONE_CHILD_SETTID); weft's is the task's
 * id until the handler puts it back. */
static bool fork_child_early(struct wt_task *t)
{
	return t->in_fork && *(int *)(wt_tls_pd(t->tp) + wt_off_tid) != t->tid;
}

/* Replaces __lll_lock_wake_private.  Context: any thread, libc's caller
 * (the lock's word was just stored 0). */
static void lowlock_wake(int *w)
{
	struct wt_task *t = wt_cur();
	if (unlikely(t && t->in_fork) && fork_child_early(t))
		return; /* the child's only thread: nobody waits */
	int n;
	if (unlikely(wt_vfork_child())) {
		/* The parent's runtime: its parked waiter is readied, but no
		 * worker is started from here. */
		struct wt_task *list = NULL;
		n = wt_unpark_collect(w, 1, &list);
		for (struct wt_task *q; (q = list);) {
			list = q->schedlink;
			wt_ready_quiet(q);
		}
	} else {
		n = wt_unpark(w, 1);
	}
	/* After the unlock's store: a waiter that counted itself in later
	 * finds the word changed in the kernel. */
	atomic_thread_fence(memory_order_seq_cst);
	if (n == 0 && atomic_load_explicit(&kwaiters, memory_order_relaxed))
		wt_syscall6(SYS_futex, (long)w, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
}

/* libc's function `name`, if it is long enough for a jump to target. */
static uintptr_t site_of(const char *name, uintptr_t target)
{
	void *f = dlsym(RTLD_DEFAULT, name);
	Dl_info info;
	const ElfW(Sym) *sym = NULL;
	if (!f || !dladdr1(f, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || !info.dli_fname ||
	    !strstr(info.dli_fname, "libc.so") || ELF64_ST_TYPE(sym->st_info) != STT_FUNC)
		return 0;
	uintptr_t site = (uintptr_t)f;
	if (sym->st_size < wt_arch_jump_size(site, target))
		return 0;
	return site;
}

/* Makes the whole pages under [site, site + n) writable (on) or back to
 * text (off); false if the kernel refuses. */
static bool text_writable(uintptr_t site, size_t n, bool on)
{
	uintptr_t pg = (uintptr_t)getauxval(AT_PAGESZ);
	uintptr_t lo = site & ~(pg - 1), hi = (site + n + pg - 1) & ~(pg - 1);
	int prot = PROT_READ | PROT_EXEC | (on ? PROT_WRITE : 0);
	return wt_syscall6(SYS_mprotect, (long)lo, (long)(hi - lo), prot, 0, 0, 0) == 0;
}

/* Writes the jump; *old keeps the bytes it replaced (n of them). */
static bool write_jump(uintptr_t site, uintptr_t target, unsigned char old[16], size_t *n)
{
	*n = wt_arch_jump_size(site, target);
	if (!text_writable(site, *n, true))
		return false;
	memcpy(old, (void *)site, *n);
	wt_arch_jump_write(site, target);
	text_writable(site, *n, false);
	return true;
}

/* Puts back what write_jump replaced. */
static void unwrite(uintptr_t site, const unsigned char *old, size_t n)
{
	if (!text_writable(site, n, true))
		wt_throw("cannot undo the jump over glibc's lock wake");
	memcpy((void *)site, old, n);
	wt_arch_code_written(site, n);
	text_writable(site, n, false);
}

void wt_lowlock_init(void)
{
	if (!wt_cfg.libc_locks_park)
		return;
	uintptr_t wait = site_of("__lll_lock_wait_private", (uintptr_t)lowlock_wait);
	uintptr_t wake = site_of("__lll_lock_wake_private", (uintptr_t)lowlock_wake);
	if (!wait || !wake)
		return;
	/* Both or neither: a parked waiter needs the new wake, and a kernel
	 * waiter the new wake does not count needs the old one. */
	unsigned char old[16];
	size_t n;
	if (!write_jump(wake, (uintptr_t)lowlock_wake, old, &n))
		return;
	unsigned char old2[16];
	size_t n2;
	if (!write_jump(wait, (uintptr_t)lowlock_wait, old2, &n2))
		unwrite(wake, old, n);
}

void wt_lowlock_fork_child(void)
{
	atomic_store_explicit(&kwaiters, 0, memory_order_relaxed);
}
