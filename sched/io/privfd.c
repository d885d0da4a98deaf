/*
 * privfd.c — weft's own files never take a number in the program's
 * descriptor table, and the two descriptors of weft's that must be there
 * appear without a window the program can see.
 *
 * A number is the program's once it is free: a program may dup2 onto any
 * number it does not use, and a daemon closes every number it does not
 * know.  weft opens files at moments the program cannot predict (sysmon's
 * look at a blocked worker's /proc/self/task/TID/syscall, the cgroup
 * limit about once a second, the credential change's listing of
 * /proc/self/task, the symbols and the output of a dump, the trace file).
 * In the program's table each such open takes the lowest free number for
 * a moment.  Measured with a thread in a raw blocking read and the main
 * thread dup2-ing a pipe onto the lowest free numbers for 10 s: under
 * weft the program's dup2 failed with EBUSY (the kernel's answer for a
 * number being installed), sysmon read the program's pipe and closed the
 * program's descriptors; a fork child that filled its free numbers and
 * waited on a socket hung for good, sysmon asleep in a read of that
 * socket having taken the byte the child waited for.
 *
 * The private table.  close_range(0, ~0U, CLOSE_RANGE_UNSHARE) (Linux 5.9)
 * gives the calling thread a new, empty table atomically: the kernel copies
 * only the descriptors below the first one closed, none, so the thread
 * never holds a reference to a file of the program's (a pipe's write end
 * held even briefly would delay its reader's end of file).  Numbers in that
 * table are nobody else's; the process shares memory, so a buffer filled
 * there is every thread's, and a mapping made there (observe/symbol.c's ELF files)
 * is usable by all.  POSIX record locks belong to the table that took
 * them, so closes there never drop the program's locks.
 *
 * Who has one:
 *   - the helper, one raw thread of weft's (core/thread.c: wt_thread_raw's
 *     halves), every signal blocked but SIGSEGV and SIGBUS (trap mode's
 *     repairs), made at the first request and kept:
 *     sysmon cannot own a private table (the workers it starts must share
 *     the program's), nor can a worker's g0 or a task.  Its stack and TCB
 *     are made at start (wt_privfd_init: the DTV comes from malloc, safe
 *     only there), so that the clone itself allocates nothing and may come
 *     from sysmon, g0 or a task.  A program that never needs it never has
 *     it; with GOMAXPROCS unset sysmon's first cgroup lookup needs it
 *     once the program has a second task (core/sysmon.c), so most threaded
 *     processes have one more OS thread ("weft-files").
 *     It counts in wt_nthreads: at WEFT_MAXTHREADS it is not made, and
 *     the requests fail (-ENOSYS) until a thread is free: sysmon's probe
 *     then answers "unknown" (the signal handler decides), the cgroup
 *     limit is not re-read, a change of credentials lists the threads
 *     weft knows.
 *   - weft's own threads that never need the program's descriptors take
 *     one at their start (wt_privfd_own): a dump's thread (keeping a copy
 *     of descriptor 2 for SIGQUIT's output; libunwind's pipe and libdw's
 *     opens land in it too) and the trace's writer.
 *
 * Protocol (the mailbox; one request at a time under `mbox`):
 *   1. the caller, holding mbox, makes the helper if there is none
 *      (hstate NONE -> STARTING, the clone, then waits for UP or FAILED);
 *   2. it stores fn and arg, `done` = 0, `posted` = 1 (release), bumps
 *      `bell` and wakes it;
 *   3. the helper reads `bell`, looks at a credential change (process/setxid.c:
 *      it blocks SIGURG, as sysmon does, and is kicked instead), then if
 *      `posted` (acquire) runs fn, stores the result, `done` = 1 (release)
 *      and wakes it; then sleeps on `bell` unless it moved since its read,
 *      so a bell rung after the read is never lost;
 *   4. the caller waits on `done`, takes the result, lets mbox go.
 * fn runs raw system calls only: the caller holds its locks meanwhile, so
 * fn takes none.  While crashing (wt_privfd_dying) an existing helper is
 * still asked (mbox tried for 100 ms), and none is made: without one the
 * call runs on the dying thread.
 *
 * Fork: the child has no helper, and its files were in the parent's
 * helper's table, which the child does not inherit; its first request
 * makes its own from the same stack and TCB (the child has no other
 * thread).  A fork that runs no handler of weft's (syscall(SYS_fork), a
 * raw clone) leaves the child the parent's helper state and gate counts
 * (gate_pid tells): its requests run on its own thread, and its dup2
 * passes a gate a maker of its parent had shut (it waited for ever: 2-3
 * children in 300 beside threads polling, tests/preload/fd_rawfork_gate).  vfork: the child has a table of its own and the parent waits,
 * so the child runs fn itself.  Before start: the only thread runs it.
 * Kernels before 5.9: unshare(CLONE_FILES), then every copied descriptor
 * closed (listed in /proc/thread-self/fd) — the helper holds references
 * to the program's files for those few microseconds.
 * Credentials: the helper takes every change (process/setxid.c kicks it), so its
 * opens are checked against the ids the program has.  Secure-execution
 * mode changes nothing here: the helper is a thread of the process, and
 * /proc/self is open to it as to any of the process's threads.
 *
 * The epoll and io_uring instances are the exceptions: tasks pass them to
 * epoll_ctl and io_uring_enter on workers, whose table is the program's.
 * Each is made once, at the lowest free number, then moved to 100 or above
 * (F_DUPFD_CLOEXEC) and the low number closed.  The gate makes that
 * invisible to the calls that name a free number: the program's dup2, dup3
 * and close_range (through libc or syscall()) enter the gate (a count),
 * the maker closes it (a flag) and waits for the count to reach 0 before
 * it creates, and opens it after its close; a call that finds it closed
 * waits for it.  Each side adds itself before it reads the other's
 * (sequentially consistent), so one of the two sees the other.  Not
 * covered: a program's open made meanwhile may get the next number up (as
 * beside any other thread's open), and a dup2 made by an inline system
 * call or inside libc (freopen's) does not enter.
 *
 * Rejected:
 *   - open, then F_DUPFD to a high number: the low number is the program's
 *     to see between the two (the dup2 failures and the stolen bytes
 *     above), and the high one is taken from the program too;
 *   - a persistent descriptor per worker (opened once, read with pread):
 *     the same window at each open, and 10,000 descriptors at the thread
 *     cap;
 *   - a sysmon with a private table: the workers sysmon starts share its
 *     table, and must share the program's;
 *   - a copy of the program's table for the helper (clone without
 *     CLONE_FILES): it holds a reference to every file of the program's
 *     until it closes them;
 *   - making the epoll and io_uring instances at start or at the second
 *     task's creation (when no other program code runs): the ring's
 *     completion queue is 256 KiB populated, too much for every threaded
 *     process; and its number would be taken from processes that never
 *     wait on a descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "core/runtime.h"
#include "base/lock.h"
#include "privfd.h"
#include "process/setxid.h"
#include "core/thread.h"
#include "core/timer.h"
#include "process/vfork.h"
#include "core/worker.h"

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

#define HELPER_STACK (64 << 10) /* raw system calls and /proc parsing only */

enum { H_NONE, H_STARTING, H_UP, H_FAILED };

/* This thread's table is weft's own (the helper, wt_privfd_own). */
static __thread bool self_private __attribute__((tls_model("initial-exec")));
/* The OS thread ids of those threads, for wt_privfd_self, which may not
 * read TLS.  An entry is never removed: a thread that later has the id
 * of one that exited says its messages the long way, still to stderr. */
static _Atomic int private_tid[4];      /* [atomic] */

static void mark_private(void)
{
	self_private = true;
	int tid = (int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	for (int i = 0; i < 4; i++) {
		int seen = 0;
		if (atomic_compare_exchange_strong(&private_tid[i], &seen, tid) || seen == tid)
			return;
	}
	atomic_store(&private_tid[3], tid); /* more than four: the newest */
}

bool wt_privfd_self(void)
{
	if (!atomic_load_explicit(&private_tid[0], memory_order_relaxed))
		return false;
	int tid = (int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	for (int i = 0; i < 4; i++)
		if (atomic_load_explicit(&private_tid[i], memory_order_relaxed) == tid)
			return true;
	return false;
}

static struct wt_raw raw;               /* [start; fork child] the helper's stack and TCB */
static _Atomic bool prepared;           /* [atomic] raw is ready: the runtime started */
static _Atomic int hstate;              /* [atomic; mbox for NONE -> STARTING] H_*; futex word */
static _Atomic int htid;                /* [atomic] the helper's OS thread id, 0 none */
static _Atomic bool dying;              /* [atomic] no helper is made any more */

static wt_lock_t mbox = WT_LOCK_INIT(WT_RANK_PRIVFD);
static long (*req_fn)(void *);          /* [mbox] */
static void *req_arg;                   /* [mbox] */
static long req_ret;                    /* [helper between posted and done; then mbox] */
static _Atomic int posted;              /* [atomic] a request waits for the helper */
static _Atomic int done;                /* [atomic] futex word: the request is served */
static _Atomic int bell;                /* [atomic] futex word the helper sleeps on */
/* [atomic] The process the helper and the gate's counts belong to: set at
 * start and in a fork child (wt_privfd_fork_reset).  A child made by a
 * fork that ran no handler of weft's (syscall(SYS_fork), a raw clone)
 * keeps its parent's pid here, and its parent's state: a helper that is
 * not in the child, mbox maybe held, a maker's "shut" with nobody in the
 * child to open it.  There requests run on the calling thread, the
 * program's calls pass the gate, and the first maker starts the gate's
 * counts afresh. */
static _Atomic int gate_pid;

static int getpid_raw(void)
{
	return (int)wt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
}

/* Empties the calling thread's table but for copies of 0..keep-1.
 * 0 or -errno.  Context: the thread itself, holding no lock. */
static int unshare_table(int keep)
{
	long r = wt_syscall6(SYS_close_range, keep, ~0U, CLOSE_RANGE_UNSHARE, 0, 0, 0);
	if (r != -ENOSYS && r != -EINVAL)
		return (int)r;
	/* Before Linux 5.9: a copy, then every copied number above keep
	 * closed.  The listing's own descriptor is the last one closed. */
	r = wt_syscall6(SYS_unshare, CLONE_FILES, 0, 0, 0, 0, 0);
	if (r != 0)
		return (int)r;
	long dfd = wt_syscall6(SYS_openat, AT_FDCWD, (long)"/proc/thread-self/fd",
			       O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
	if (dfd < 0)
		return (int)dfd;
	char buf[4096];
	long got;
	while ((got = wt_syscall6(SYS_getdents64, dfd, (long)buf, sizeof buf, 0, 0, 0)) > 0) {
		for (long off = 0; off < got;) {
			struct { unsigned long ino; long off; unsigned short reclen; unsigned char type;
				 char name[]; } *d = (void *)(buf + off);
			off += d->reclen;
			long fd = 0;
			const char *p = d->name;
			if (*p < '0' || *p > '9')
				continue;
			for (; *p >= '0' && *p <= '9'; p++)
				fd = fd * 10 + (*p - '0');
			if (fd >= keep && fd != dfd)
				wt_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
		}
	}
	wt_syscall6(SYS_close, dfd, 0, 0, 0, 0, 0);
	return 0;
}

void wt_privfd_say(const char *buf, size_t n)
{
	if (!self_private) {
		wt_syscall6(SYS_write, 2, (long)buf, (long)n, 0, 0, 0);
		return;
	}
	/* A table of weft's own has no descriptor 2 (a trace writer keeps
	 * none: a copy would keep the program's pipe open after it closed
	 * its end).  A copy taken for the one write. */
	long pfd = wt_syscall6(SYS_pidfd_open, wt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0), 0, 0, 0, 0, 0);
	if (pfd < 0)
		return;
	long fd = wt_syscall6(SYS_pidfd_getfd, pfd, 2, 0, 0, 0, 0);
	wt_syscall6(SYS_close, pfd, 0, 0, 0, 0, 0);
	if (fd < 0)
		return;
	wt_syscall6(SYS_write, fd, (long)buf, (long)n, 0, 0, 0);
	wt_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
}

int wt_privfd_own(int keep)
{
	int err = unshare_table(keep);
	if (!err)
		mark_private();
	return err;
}

/* The helper: every signal but the faults blocked (wt_thread_raw_clone), no proc, no
 * lock held across its sleep. */
static int helper(void *arg)
{
	(void)arg;
	wt_syscall6(SYS_prctl, PR_SET_NAME, (long)"weft-files", 0, 0, 0, 0);
	int err = unshare_table(0);
	atomic_store(&htid, (int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0));
	if (err) {
		atomic_store(&htid, 0);
		atomic_fetch_sub(&wt_nthreads, 1);
		atomic_store(&hstate, H_FAILED);
		wt_futex_wake(&hstate, INT_MAX, false);
		for (;;)
			wt_syscall6(SYS_exit, 0, 0, 0, 0, 0, 0);
	}
	mark_private();
	atomic_store(&hstate, H_UP);
	wt_futex_wake(&hstate, INT_MAX, false);
	for (;;) {
		int b = atomic_load(&bell);
		wt_setxid_poll();
		/* Acquire: pairs with the caller's release of posted (fn, arg). */
		if (atomic_load_explicit(&posted, memory_order_acquire)) {
			atomic_store_explicit(&posted, 0, memory_order_relaxed);
			req_ret = req_fn(req_arg);
			/* Release: req_ret before done; pairs with the caller. */
			atomic_store_explicit(&done, 1, memory_order_release);
			wt_futex_wake(&done, 1, false);
		}
		wt_futex_wait(&bell, b, NULL, false);
	}
	return 0;
}

void wt_privfd_init(void)
{
	atomic_store(&gate_pid, getpid_raw());
	if (wt_thread_raw_prepare(HELPER_STACK, &raw) == 0)
		atomic_store_explicit(&prepared, true, memory_order_release);
}

/* [mbox] The helper is up, made now if need be. */
static bool up(bool crashing)
{
	int s = atomic_load(&hstate);
	if (s == H_UP)
		return true;
	if (s == H_FAILED || crashing || !wt_thread_count_in())
		return false; /* at WEFT_MAXTHREADS: asked again next time */
	atomic_store(&hstate, H_STARTING);
	if (wt_thread_raw_clone(helper, NULL, &raw) != 0) {
		/* No thread now (the kernel's limits): asked again next time. */
		atomic_fetch_sub(&wt_nthreads, 1);
		atomic_store(&hstate, H_NONE);
		return false;
	}
	while ((s = atomic_load(&hstate)) == H_STARTING)
		wt_futex_wait(&hstate, H_STARTING, NULL, false);
	return s == H_UP;
}

long wt_privfd_run(long (*fn)(void *), void *arg)
{
	if (self_private || wt_vfork_child() ||
	    !atomic_load_explicit(&prepared, memory_order_acquire) ||
	    atomic_load(&gate_pid) != getpid_raw())
		return fn(arg);
	bool crashing = atomic_load(&dying);
	if (crashing) {
		/* The holder may be the dying thread itself: tried for 100 ms. */
		int64_t until = wt_nanotime() + 100000000;
		bool got;
		while (!(got = wt_trylock(&mbox)) && wt_nanotime() < until)
			wt_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
		if (!got)
			return fn(arg);
	} else {
		wt_lock(&mbox);
	}
	if (!up(crashing)) {
		wt_unlock(&mbox);
		return crashing ? fn(arg) : -ENOSYS;
	}
	req_fn = fn;
	req_arg = arg;
	atomic_store_explicit(&done, 0, memory_order_relaxed);
	/* Release: fn and arg before posted; pairs with the helper. */
	atomic_store_explicit(&posted, 1, memory_order_release);
	atomic_fetch_add(&bell, 1);
	wt_futex_wake(&bell, 1, false);
	while (!atomic_load_explicit(&done, memory_order_acquire))
		wt_futex_wait(&done, 0, NULL, false);
	long r = req_ret;
	wt_unlock(&mbox);
	return r;
}

struct sc {
	long nr, a[6];
};

static long run_syscall(void *p)
{
	struct sc *s = p;
	return wt_syscall6(s->nr, s->a[0], s->a[1], s->a[2], s->a[3], s->a[4], s->a[5]);
}

long wt_privfd_syscall(long nr, long a, long b, long c, long d, long e, long f)
{
	struct sc s = { nr, { a, b, c, d, e, f } };
	return wt_privfd_run(run_syscall, &s);
}

long wt_privfd_write(int fd, const void *buf, size_t n)
{
	return wt_privfd_syscall(SYS_write, fd, (long)buf, (long)n, 0, 0, 0);
}

int wt_privfd_tid(void)
{
	return atomic_load(&htid);
}

void wt_privfd_kick(void)
{
	if (atomic_load(&hstate) != H_UP)
		return;
	atomic_fetch_add(&bell, 1);
	wt_futex_wake(&bell, 1, false);
}

void wt_privfd_dying(void)
{
	atomic_store(&dying, true);
}

/* ---- the gate ---- */

static _Atomic int gate_users;  /* [atomic] program calls inside; futex word */
static _Atomic int gate_shut;   /* [atomic] makers inside; futex word */
/* [atomic] program calls asleep on gate_shut: the maker wakes them only
 * then (seq_cst: the count, then gate_shut read by the futex wait, against
 * gate_shut changed, then the count read). */
static _Atomic int gate_waiting;
void wt_fdgate_enter(void)
{
	if (wt_vfork_child())
		return; /* its table is its own */
	for (;;) {
		atomic_fetch_add(&gate_users, 1);
		int s = atomic_load(&gate_shut);
		if (__builtin_expect(!s, 1))
			return;
		if (atomic_load(&gate_pid) != getpid_raw())
			return; /* shut in the parent: nobody here opens it */
		/* Back out and wait for the maker: the last one out wakes it. */
		if (atomic_fetch_sub(&gate_users, 1) == 1)
			wt_futex_wake(&gate_users, INT_MAX, false);
		atomic_fetch_add(&gate_waiting, 1);
		wt_futex_wait(&gate_shut, s, NULL, false);
		atomic_fetch_sub(&gate_waiting, 1);
	}
}

void wt_fdgate_leave(void)
{
	if (wt_vfork_child())
		return;
	if (atomic_fetch_sub(&gate_users, 1) == 1 && atomic_load(&gate_shut))
		wt_futex_wake(&gate_users, INT_MAX, false);
}

bool wt_fdgate_close(void)
{
	int pid = getpid_raw();
	if (atomic_load(&gate_pid) != pid) {
		/* The parent's counts (gate_pid): its threads are not here. */
		atomic_store(&gate_shut, 0);
		atomic_store(&gate_users, 0);
		atomic_store(&gate_waiting, 0);
		atomic_store(&gate_pid, pid);
	}
	atomic_fetch_add(&gate_shut, 1);
	int64_t until = wt_nanotime() + 10000000;
	struct timespec ts = { until / 1000000000, until % 1000000000 };
	for (int u; (u = atomic_load(&gate_users)) != 0 && wt_nanotime() < until;)
		wt_futex_wait(&gate_users, u, &ts, false);
	if (atomic_load(&gate_users) == 0)
		return true;
	wt_fdgate_open();
	return false;
}

void wt_fdgate_open(void)
{
	atomic_fetch_sub(&gate_shut, 1);
	if (atomic_load(&gate_waiting))
		wt_futex_wake(&gate_shut, INT_MAX, false);
}

long wt_fdgate_make(long nr, long a, long b, long c)
{
	if (!wt_fdgate_close())
		return -EAGAIN;
	long fd = wt_fd_move_high(wt_syscall6(nr, a, b, c, 0, 0, 0));
	wt_fdgate_open();
	return fd;
}

void wt_privfd_fork_reset(void)
{
	atomic_store_explicit(&mbox.v, 0, memory_order_relaxed);
	atomic_store(&posted, 0);
	atomic_store(&done, 0);
	atomic_store(&bell, 0);
	atomic_store(&htid, 0);
	if (atomic_load(&hstate) != H_FAILED)
		atomic_store(&hstate, H_NONE);
	atomic_store(&gate_users, 0);
	atomic_store(&gate_shut, 0);
	atomic_store(&gate_waiting, 0);
	atomic_store(&gate_pid, getpid_raw());
}
