/*
 * thread.c — weft's own OS threads (workers, sysmon, helpers), and glibc's
 * single-threaded mode, which a process keeps until its second task.
 *
 * glibc runs a process that never made a thread on cheaper paths: stdio
 * takes no FILE lock (a putc to /dev/null 1.7 ns against 12.5), malloc
 * takes no arena lock (a malloc and free 7 ns against 12), libstdc++
 * counts references without atomic instructions, and a C++ program that
 * reads and writes numbers through iostreams runs twice as fast.  The
 * first pthread_create switches all of that off for good
 * (__libc_single_threaded, the locks of every FILE, the creator's TCB
 * flag), and the switch is safe only while the process really has one
 * thread: a thread on malloc's or stdio's unlocked path when another
 * makes the switch would go on unlocked beside a locker.
 *
 * So the process stays single-threaded to glibc until the program makes
 * its second task:
 *   - sysmon is a raw clone (wt_thread_raw) under a TCB of weft's, not a
 *     glibc thread, and calls nothing of glibc's whose behaviour depends
 *     on the mode (no malloc, no stdio, no glibc thread) while it lasts;
 *   - the switch is glibc's own, made on the thread of the only task: a
 *     glibc thread made and joined (wt_libc_threaded) before the program's
 *     second task exists (task.c), or the glibc thread a task makes for
 *     weft (wt_thread_spawn from a task: process/pshared.c's holders, the trace's
 *     writer), as a native program's first pthread_create switches at the
 *     same point;
 *   - until then a glibc thread is never made from another thread: sysmon
 *     makes no worker (proc.c; the one task runs on worker 0, the only
 *     worker), and a task dump asks worker 0 to switch while the task
 *     waits, or runs on sysmon without backtraces (observe/dump.c).
 * A fork child keeps its parent's mode (glibc's fork does not reset it).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"
#include "signal/sigtask.h"
#include "base/real.h"
#include "base/slab.h"
#include "io/syscall.h"
#include "thread.h"
#include "text.h"
#include "stack/tls.h"

extern char __libc_single_threaded;

/* libc's own pthread_create, not the next interposer's: a sanitizer
 * runtime's wrapper takes its thread-registry lock, which a task parked in
 * the middle of that runtime's error report may hold (seen: ASan's
 * stack-overflow report symbolizing through an interposed open, handed
 * off, and the new worker's creation waiting for its lock for ever).
 * weft's threads are not the program's: no wrapper needs to see them. */
typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static _Atomic(create_fn) libc_create; /* [atomic] resolved once */

/* The unit tests, built with ThreadSanitizer, define it true: there the
 * sanitizer must see every thread it instruments. */
__attribute__((weak)) bool wt_spawn_through_interposers(void)
{
	return false;
}

static create_fn thread_create(void)
{
	create_fn f = atomic_load_explicit(&libc_create, memory_order_acquire);
	if (f)
		return f;
	if (wt_spawn_through_interposers()) {
		atomic_store_explicit(&libc_create, real.pthread_create, memory_order_release);
		return real.pthread_create;
	}
	void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	f = h ? (create_fn)dlsym(h, "pthread_create") : NULL;
	if (h)
		dlclose(h);
	if (!f)
		f = real.pthread_create;
	atomic_store_explicit(&libc_create, f, memory_order_release);
	return f;
}

/* The spawn gate: no thread of weft's is being created while a task forks.
 * A fork waits for the creations under way (process/fork.c's prepare handler, or
 * the _Fork wrapper); a creation waits for the forks under way.  The
 * kernel's fork does not need it, but qemu-user's does: it makes a guest
 * thread under a lock of its own that its fork neither takes nor resets,
 * so a child forked while another thread was inside clone finds that lock
 * held for ever when it makes its first thread (reset's sysmon), and hangs.
 * Neither side holds the other's lock: two counters, each side adding
 * itself before it reads the other's (sequentially consistent, so one of
 * the two sees the other), and a futex wait on the other's counter.  Not a
 * ranked lock: creators pass it under any lock, and the forker holds no
 * weft lock while it waits, and takes none until its parent half.  The
 * forker may switch while it holds the gate (no preemption inside libc's
 * fork, but a program's signal handler run there may yield or park), so
 * neither side waits longer than FORK_GATE_NS. */
static _Atomic int spawning; /* [atomic] creations inside the gate */
static _Atomic int forking;  /* [atomic] forks between their two halves */

/* How long a fork waits for the creations under way, and a creation for
 * the forks.  A creation may wait on the forker: sysmon starting a worker
 * runs libc's pthread_create, whose malloc may be a program's that creates
 * and joins a thread of its own (a task), which needs a worker, and the
 * forker holds its own until the fork is done.  A fork may wait on a
 * creation: the forker waits inside glibc's fork for a lock (glibc's
 * atfork lock, stdio's, malloc's) whose holder is a task that waits for a
 * worker, which only the creation would give it (a signal handler run
 * inside another task's fork switched that task out holding glibc's
 * atfork lock; the next fork's worker slept on it, and sysmon, making a
 * worker for the proc it took, waited at the gate for ever: 1 run in 30
 * of 4 threads forking under a SIGUSR1 storm).  Past this either side
 * goes ahead (what a native fork does); only qemu-user's fork can then
 * hang, as it did without the gate. */
#define FORK_GATE_NS 20000000ll /* 20 ms */

static void spawn_gate_enter(void)
{
	int64_t until = 0;
	for (;;) {
		atomic_fetch_add(&spawning, 1);
		int f = atomic_load(&forking);
		if (likely(!f))
			return;
		if (!until)
			until = wt_nanotime() + FORK_GATE_NS;
		else if (wt_nanotime() >= until)
			return; /* inside the gate all the same: see FORK_GATE_NS */
		/* Back out and wait for the forks: the last one out of spawning
		 * wakes a forker waiting for it. */
		if (atomic_fetch_sub(&spawning, 1) == 1)
			wt_futex_wake(&spawning, INT_MAX, false);
		struct timespec ts = { until / 1000000000, until % 1000000000 };
		wt_futex_wait(&forking, f, &ts, false);
	}
}

static void spawn_gate_leave(void)
{
	if (atomic_fetch_sub(&spawning, 1) == 1 && atomic_load(&forking))
		wt_futex_wake(&spawning, INT_MAX, false);
}

/* Context: the forking task, in the parent, holding no weft lock.  Returns
 * once no creation is under way, or after FORK_GATE_NS; later creations
 * wait for wt_spawn_fork_parent. */
void wt_spawn_fork_prepare(void)
{
	atomic_fetch_add(&forking, 1);
	int64_t until = wt_nanotime() + FORK_GATE_NS;
	struct timespec ts = { until / 1000000000, until % 1000000000 };
	for (int s; (s = atomic_load(&spawning)) != 0 && wt_nanotime() < until;)
		wt_futex_wait(&spawning, s, &ts, false);
}

/* Fork child: only the forking task's thread is left, outside the gate. */
void wt_spawn_fork_reset(void)
{
	atomic_store(&spawning, 0);
	atomic_store(&forking, 0);
}

/* Context: the forking task, in the parent, after the fork. */
void wt_spawn_fork_parent(void)
{
	if (atomic_fetch_sub(&forking, 1) == 1)
		wt_futex_wake(&forking, INT_MAX, false);
}

static int make(pthread_t *th, void *(*fn)(void *), void *arg, size_t stack, bool detached)
{
	pthread_attr_t a;
	create_fn create = thread_create();
	real.pthread_attr_init(&a);
	if (detached)
		real.pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	real.pthread_attr_setstacksize(&a, stack);
	spawn_gate_enter();
	struct wt_pin pin = wt_tls_pin();
	int saved_errno = errno; /* a failing pthread_create may set it */
	int err = create(th, &a, fn, arg);
	errno = saved_errno;
	wt_tls_unpin(pin);
	spawn_gate_leave();
	real.pthread_attr_destroy(&a);
	return err;
}

/* Starts fn(arg) on a new detached OS thread of weft's own: a real glibc
 * thread (real pthread_create) with a stack of `stack` bytes, created with
 * the thread pointer pinned (stack/tls.c: trap mode).  Returns 0 or -errno (the
 * caller's errno kept); the caller counts the thread in wt_nthreads and
 * says what failed.  Context: any (task, g0, sysmon), no switch while
 * pinned; glibc allocates. */
int wt_thread_spawn(void *(*fn)(void *), void *arg, size_t stack)
{
	/* Made from a thread other than the only task's, the glibc thread
	 * would switch glibc's mode beside a program that may be on an
	 * unlocked path: refused (the callers do without, as at the thread
	 * limit).  From the only task, the switch comes first. */
	if (wt_libc_single()) {
		if (!wt_cur())
			return -EAGAIN;
		int err = wt_libc_threaded(0);
		if (err)
			return err;
	}
	pthread_t th;
	return -make(&th, fn, arg, stack, true);
}

/* [atomic] glibc is in its multi-threaded mode and the switch is over.
 * __libc_single_threaded alone would not say the second: glibc clears it
 * first thing in the creating call, before it locks the FILEs. */
static _Atomic bool threaded;

void wt_libc_mode_init(void)
{
	atomic_store_explicit(&threaded, !__libc_single_threaded, memory_order_release);
}

bool wt_libc_single(void)
{
	return !atomic_load_explicit(&threaded, memory_order_acquire);
}

static void *nothing(void *arg)
{
	return arg;
}

int wt_libc_threaded(uintptr_t tp)
{
	if (!wt_libc_single())
		return 0;
	/* Already switched by a thread glibc made for the program (a
	 * SIGEV_THREAD timer, POSIX AIO): that call is over. */
	if (__libc_single_threaded) {
		pthread_t th;
		int err = make(&th, nothing, NULL, 64 << 10, false);
		if (err)
			return -err;
		int saved_errno = errno;
		real.pthread_join(th, NULL);
		errno = saved_errno;
	}
	/* The creator's own TCB flag is glibc's; the only task's is set here
	 * when another thread made the switch for it. */
	if (tp)
		wt_arch_tcb_set_threaded(tp);
	atomic_store_explicit(&threaded, true, memory_order_release);
	return 0;
}

/* A switch asked of the only worker while the only task waits (observe/dump.c):
 * the worker, idle in one of its waits that hold nothing, stays in its
 * SIGURG handler until sysmon has switched, so the task cannot be run
 * meanwhile.  [atomic] */
static _Atomic int freeze;
enum { FREEZE_NONE, FREEZE_ASKED, FREEZE_HELD, FREEZE_REFUSED };

bool wt_libc_freeze_signal(const siginfo_t *si, const ucontext_t *uc)
{
	if (si->si_code != SI_QUEUE || si->si_pid != wt_pid || si->si_value.sival_ptr != &freeze)
		return false;
	bool idle = !wt_cur() && wt_pc_in_sigok(wt_arch_uc_pc(uc));
	int asked = FREEZE_ASKED;
	if (!atomic_compare_exchange_strong(&freeze, &asked, idle ? FREEZE_HELD : FREEZE_REFUSED))
		return true; /* no longer asked */
	wt_futex_wake(&freeze, 1, false);
	while (idle && atomic_load(&freeze) == FREEZE_HELD)
		wt_futex_wait(&freeze, FREEZE_HELD, NULL, false);
	return true;
}

bool wt_libc_threaded_idle(struct wt_task *t, int ostid)
{
	if (!wt_libc_single())
		return true;
	atomic_store(&freeze, FREEZE_ASKED);
	/* SIGURG does not queue: a send while another is pending there is
	 * lost, so it is sent again, every 10 ms for 100 ms. */
	int f = FREEZE_ASKED;
	for (int i = 0; i < 10 && f == FREEZE_ASKED; i++) {
		wt_sig_urg_send(ostid, (union sigval){ .sival_ptr = &freeze });
		int64_t until = wt_nanotime() + 10000000;
		struct timespec ts = { until / 1000000000, until % 1000000000 };
		while ((f = atomic_load(&freeze)) == FREEZE_ASKED && wt_nanotime() < until)
			wt_futex_wait(&freeze, FREEZE_ASKED, &ts, false);
	}
	if (f == FREEZE_ASKED && atomic_compare_exchange_strong(&freeze, &f, FREEZE_NONE))
		return false;
	bool ok = false;
	if (f == FREEZE_HELD && atomic_load(&t->state) != WT_RUNNING)
		ok = wt_libc_threaded(t->tp) == 0;
	atomic_store(&freeze, FREEZE_NONE);
	wt_futex_wake(&freeze, 1, false);
	return ok;
}

int wt_thread_raw_prepare(size_t size, struct wt_raw *r)
{
	size_t guard = (size_t)sysconf(_SC_PAGESIZE);
	if (!r->base) {
		char *b = wt_mmap_anon(guard + size);
		if (!b)
			return -ENOMEM;
		wt_syscall6(SYS_mprotect, (long)b, (long)guard, PROT_NONE, 0, 0, 0);
		r->base = b;
		r->size = size;
	} else if (r->tp) {
		r->dtv = wt_tls_dtv_keep(r->tp); /* a fork child's: its thread is gone */
	}
	char *lo = r->base + guard, *sp;
	uintptr_t tp = wt_tls_new(lo + r->size, 0, lo, r->size, NULL, false, &sp, r->dtv);
	if (!tp)
		return -ENOMEM;
	r->tp = tp;
	r->sp = sp;
	r->dtv = NULL;
	return 0;
}

int wt_thread_raw_clone(int (*fn)(void *), void *arg, struct wt_raw *r)
{
	/* The thread starts with every signal blocked (as glibc's do): no
	 * handler of the program's may run on it before it sets its mask.
	 * But for SIGSEGV and SIGBUS, whose handler is weft's (signal/crash.c).
	 * glibc's clone reads and writes TLS (errno) meanwhile: in trap mode
	 * (stack/tls.c) a revert of this thread's base would fault, and with the
	 * fault's signal blocked kill the process silently; the base is
	 * pinned as well, so no repair is needed at all.  (Seen at start,
	 * creating sysmon, under load: 4 of 303 soak runs died with no
	 * report, and 3 of 1,250 starts of sh -c.) */
	int *tid = (int *)(wt_tls_pd(r->tp) + wt_off_tid);
	int saved_errno = errno;
	struct wt_pin pin = wt_tls_pin();
	uint64_t all = ~((1ull << (SIGSEGV - 1)) | (1ull << (SIGBUS - 1))), old;
	wt_syscall6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)&old, 8, 0, 0);
	int t = clone(fn, (void *)((uintptr_t)r->sp & ~(uintptr_t)15),
		      CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
			      CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID |
			      CLONE_CHILD_CLEARTID,
		      arg, tid, (void *)r->tp, tid);
	int err = t < 0 ? errno : 0;
	wt_syscall6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8, 0, 0);
	wt_tls_unpin(pin);
	errno = saved_errno;
	return -err;
}

int wt_thread_raw(int (*fn)(void *), void *arg, size_t size, struct wt_raw *r)
{
	int err = wt_thread_raw_prepare(size, r);
	return err ? err : wt_thread_raw_clone(fn, arg, r);
}
