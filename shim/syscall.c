/*
 * syscall.c — futex operations through libc's syscall(): private waits park
 * tasks, shared ones go to the kernel.
 *
 * libstdc++ implements std::future, std::atomic::wait, std::barrier,
 * std::latch and std::counting_semaphore with syscall(SYS_futex, ...), and
 * programs call it directly.  The kernel keys a private futex (the
 * FUTEX_PRIVATE_FLAG) by this process's address space and a shared one by
 * the memory behind the address, and never matches a private waiter with a
 * shared wake or the reverse.  A wait's place depends on where the word
 * lies as well as on the flag:
 *   - shared (no FUTEX_PRIVATE_FLAG, on memory mapped shared: the ranges
 *     of sched/process/shmap.c): another process may wake it, and only the kernel
 *     sees both.  The wait is the kernel's, BRACKETED, so the proc goes to
 *     other tasks while the worker sleeps in the kernel.
 *   - private (the flag, or no flag on memory no other process maps:
 *     stack, heap, data, private mappings, where libstdc++'s waits built by
 *     gcc 12 are): a task's FUTEX_WAIT / FUTEX_WAIT_BITSET parks in weft's
 *     parking lot instead of blocking its worker; the kernel's check
 *     "still equal to val" becomes the park's validate, under the bucket
 *     lock.
 * A wake never asks where the word lies: it wakes the tasks parked on the
 * address first, then the kernel's waiters with what is left and the
 * caller's flag (a thread that is not a task, a futex_waitv, a waiter in
 * another process; the kernel's waiters of the other flag stay asleep, as
 * natively).  On shared memory no task is parked, and the wake is the
 * kernel's as before; a word the table called private when its waiter
 * parked is reached however the table changed since (a table that
 * overflowed calls every word shared).  The parking lot keys by address
 * alone: a flagless waiter and a private wake of the same word meet there,
 * where the kernel would not match them (a spurious wake-up for the
 * waiter, which futex users allow; a program waits on a word with one kind
 * only).  Bitsets are ignored on the parking-lot side (again a spurious
 * wake-up at worst).  FUTEX_REQUEUE / FUTEX_CMP_REQUEUE wake the parked
 * tasks they would have moved (each re-checks its word and waits again:
 * again a spurious wake-up); FUTEX_WAKE_OP does its atomic operation here
 * (on shared memory as atomic for the other process as the kernel's),
 * then the two wakes.
 *   - priority-inheritance operations (FUTEX_LOCK_PI, FUTEX_LOCK_PI2,
 *     FUTEX_TRYLOCK_PI, FUTEX_UNLOCK_PI) by a task: the word holds the id
 *     gettid gave its holder, which no OS thread has, so the kernel cannot
 *     run them.  Private ones (by the rule above) are weft's (pi_private,
 *     sched/process/pi.c); a shared one, and the requeue-PI pair, are refused
 *     (EINVAL; README, Known limits).  A thread weft did not create gets
 *     the kernel's.  futex_waitv is always the kernel's, BRACKETED.
 * The calls that take or give a thread id (gettid, tgkill, set_tid_address,
 * the sched_* family, ...) name tasks (tid.c).  Those that change what a
 * descriptor number is, or its O_NONBLOCK (close, dup2, dup3, fcntl's
 * F_SETFL and F_DUPFD, ioctl's FIONBIO), tell the poller as the libc
 * wrappers do (shim/netio.c, fallback.c, ioctl.c): it would otherwise keep
 * answering for the old file or flags (a non-blocking connect that waits
 * for the connection).  dup2, dup3 and close_range are the libc wrappers'
 * (netio.c): they spare weft's own descriptors and wait at io/privfd.c's gate
 * while weft moves one.  sigaltstack sets the task's alternate stack, as
 * libc's does (signal.c).
 * mmap, munmap, mremap, shmat and shmdt made through syscall() tell
 * sched/process/shmap.c what they mapped, as shim/mman.c's do, whether weft runs
 * the program yet or not.  Every other system call passes through.
 * Futex calls made with an inline `syscall` instruction (libgomp, glibc's
 * own locks) cannot be seen here: sysmon's blocked-worker detection
 * hands their procs on.
 */
#include <linux/futex.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "shim.h"
#include "io/netpoll.h"
#include "process/pi.h"
#include "io/privfd.h"
#include "process/shmap.h"
#include "stack/stack.h"
#include "core/task.h"
#include "io/uring.h"

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2 13
#endif
#ifndef FUTEX_CMP_REQUEUE_PI
#define FUTEX_CMP_REQUEUE_PI 12
#endif
#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif

static bool futex_same(const void *addr, uintptr_t val)
{
	return __atomic_load_n((const int *)addr, __ATOMIC_RELAXED) == (int)val;
}

static long fail(int e)
{
	errno = e;
	return -1;
}

/* The kernel's futex call, as the program made it (errno as it leaves it). */
static long kfutex(int *uaddr, int op, int val, long v2, int *uaddr2, int val3)
{
	return real.syscall(SYS_futex, uaddr, op, val, v2, uaddr2, val3);
}

/* A private wake of up to n waiters on uaddr: parked tasks, then the
 * kernel's private waiters with what is left (op: the caller's wake op). */
static int wake_private(int *uaddr, int op, int n, int val3)
{
	int woken = wt_unpark(uaddr, n);
	if (woken < n) {
		long k = wt_syscall6(SYS_futex, (long)uaddr, op, n - woken, 0, 0, val3);
		if (k > 0)
			woken += (int)k;
	}
	return woken;
}

/* A task's private FUTEX_WAIT / FUTEX_WAIT_BITSET: parks. */
static long wait_private(int *uaddr, int op, int val, const struct timespec *ts)
{
	int64_t deadline = -1;
	if (ts) {
		if (!wt_ts_valid(ts) || ts->tv_sec < 0)
			return fail(EINVAL);
		if ((op & FUTEX_CMD_MASK) == FUTEX_WAIT)
			deadline = wt_nanotime() + (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
		else
			deadline = wt_abs_to_mono(op & FUTEX_CLOCK_REALTIME ? CLOCK_REALTIME
									: CLOCK_MONOTONIC, ts);
	}
	/* A handler interrupts the wait: the kernel restarts an untimed one
	 * when every handler that ran had SA_RESTART (-ERESTARTSYS), and ends
	 * a timed one with EINTR (its restart block is never taken after a
	 * handler).  A restarted wait compares the word again. */
	struct wt_task *t = wt_cur();
	int r;
	do {
		wt_wait_reason("futex");
		wt_sig_restart_arm(t);
		r = wt_park(uaddr, futex_same, (uintptr_t)(unsigned)val, deadline, false);
	} while (r == WT_PARK_INTR && deadline < 0 && wt_sig_restarts(t));
	if (r == WT_PARK_INVALID)
		return fail(EAGAIN);
	if (r == WT_PARK_INTR)
		return fail(EINTR);
	if (r == WT_PARK_TIMEDOUT)
		return fail(ETIMEDOUT);
	return 0;
}

/* FUTEX_WAKE_OP's operation on *uaddr2, done atomically; sets *cmp_ok to the
 * comparison of the old value.  0 or -ENOSYS (an unknown op or comparison). */
static int wake_op_apply(int *uaddr2, unsigned enc, bool *cmp_ok)
{
	int opc = (enc >> 28) & 7, cmp = (enc >> 24) & 15;
	int oparg = (int)(enc << 8) >> 20, cmparg = (int)(enc << 20) >> 20;
	if (enc & (FUTEX_OP_OPARG_SHIFT << 28))
		oparg = 1 << (oparg & 31);
	if (opc > FUTEX_OP_XOR || cmp > FUTEX_OP_CMP_GE)
		return -ENOSYS;
	int old = __atomic_load_n(uaddr2, __ATOMIC_RELAXED), new;
	do {
		switch (opc) {
		case FUTEX_OP_SET: new = oparg; break;
		case FUTEX_OP_ADD: new = (int)((unsigned)old + (unsigned)oparg); break;
		case FUTEX_OP_OR: new = old | oparg; break;
		case FUTEX_OP_ANDN: new = old & ~oparg; break;
		default: new = old ^ oparg; break;
		}
		/* seq_cst, as the kernel's atomic op: a waiter's check of the word
		 * and this change are ordered. */
	} while (!__atomic_compare_exchange_n(uaddr2, &old, new, false, __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
	switch (cmp) {
	case FUTEX_OP_CMP_EQ: *cmp_ok = old == cmparg; break;
	case FUTEX_OP_CMP_NE: *cmp_ok = old != cmparg; break;
	case FUTEX_OP_CMP_LT: *cmp_ok = old < cmparg; break;
	case FUTEX_OP_CMP_LE: *cmp_ok = old <= cmparg; break;
	case FUTEX_OP_CMP_GT: *cmp_ok = old > cmparg; break;
	default: *cmp_ok = old >= cmparg; break;
	}
	return 0;
}

/* A task's private priority-inheritance operation: the word holds the
 * id gettid gives its holder, and weft runs it as its own
 * PTHREAD_PRIO_INHERIT mutexes (sched/process/pi.c): a waiter parks and lends its
 * priority to the holder.  An unlock frees the word and wakes the waiters
 * (the first to run takes it) where the kernel would hand it to the
 * highest waiter.  The kernel's answers otherwise: EDEADLK for the
 * holder's lock, EPERM for an unlock by another, EAGAIN for a trylock
 * that finds it held, ETIMEDOUT at an absolute timeout (CLOCK_REALTIME
 * for FUTEX_LOCK_PI; FUTEX_LOCK_PI2's clock by FUTEX_CLOCK_REALTIME). */
static long pi_private(int *uaddr, int op, const struct timespec *ts)
{
	_Atomic int *w = (_Atomic int *)uaddr;
	int cmd = op & FUTEX_CMD_MASK, me = gettid();
	int holder = WT_PI_TID(atomic_load_explicit(w, memory_order_relaxed)) & FUTEX_TID_MASK;
	if (cmd == FUTEX_UNLOCK_PI) {
		if (holder != me)
			return fail(EPERM);
		wt_pi_unlock(w);
		return 0;
	}
	if (holder == me)
		return fail(EDEADLK);
	if (cmd == FUTEX_TRYLOCK_PI)
		return wt_pi_trylock(w, me) ? fail(EAGAIN) : 0;
	int64_t deadline = -1;
	if (ts) {
		if (!wt_ts_valid(ts))
			return fail(EINVAL);
		bool rt = cmd == FUTEX_LOCK_PI || (op & FUTEX_CLOCK_REALTIME);
		deadline = wt_abs_to_mono(rt ? CLOCK_REALTIME : CLOCK_MONOTONIC, ts);
	}
	int r = wt_pi_lock(w, me, deadline, false);
	return r ? fail(-r) : 0;
}

/* Whether a wait on uaddr is the kernel's: a flagless one on memory
 * another process may map.  No system call: one load when nothing is
 * mapped shared.  Wakes never ask (the essay). */
static bool kernel_word(const int *uaddr, int op)
{
	return !(op & FUTEX_PRIVATE_FLAG) && wt_shmap_shared(uaddr);
}

/* syscall(SYS_futex, ...).  Context: any caller; a wait parks a task or
 * blocks a worker BRACKETED. */
static long futex(int *uaddr, int op, int val, long v2, int *uaddr2, int val3)
{
	int cmd = op & FUTEX_CMD_MASK;
	const struct timespec *ts = (const struct timespec *)v2;
	switch (cmd) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
		if (!wt_cur() || (cmd == FUTEX_WAIT_BITSET && !val3) || kernel_word(uaddr, op))
			return BRACKETED(KPRIO(kfutex(uaddr, op, val, v2, uaddr2, val3)));
		return wait_private(uaddr, op, val, ts);
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
	case FUTEX_TRYLOCK_PI:
	case FUTEX_UNLOCK_PI:
		if (wt_cur() && !kernel_word(uaddr, op))
			return pi_private(uaddr, op, ts);
		if (wt_cur())
			return fail(EINVAL); /* shared: the kernel cannot know a task's id */
		return kfutex(uaddr, op, val, v2, uaddr2, val3);
	case FUTEX_WAIT_REQUEUE_PI:
	case FUTEX_CMP_REQUEUE_PI:
		if (wt_cur())
			return fail(EINVAL); /* a PI futex of a task's is weft's: see pi_private */
		return kfutex(uaddr, op, val, v2, uaddr2, val3);
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
		if (val <= 0 || (cmd == FUTEX_WAKE_BITSET && !val3))
			break;
		return wake_private(uaddr, op, val, val3);
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE: {
		int nreq = (int)v2;
		if (val < 0 || nreq < 0)
			break;
		if (cmd == FUTEX_CMP_REQUEUE && __atomic_load_n(uaddr, __ATOMIC_SEQ_CST) != val3)
			return fail(EAGAIN);
		/* Parked tasks are woken rather than moved: up to val + nreq. */
		long want = (long)val + nreq;
		int n = wt_unpark(uaddr, want > 0x7fffffff ? 0x7fffffff : (int)want);
		int wake_left = n < val ? val - n : 0;
		int req_left = n > val ? nreq - (n - val) : nreq;
		long k = 0;
		if (wake_left + req_left > 0)
			k = wt_syscall6(SYS_futex, (long)uaddr, op, wake_left, req_left,
					(long)uaddr2, val3);
		if (k < 0) {
			if (n == 0)
				return fail((int)-k);
			k = 0;
		}
		if (cmd == FUTEX_REQUEUE) /* the count woken, not moved */
			return (n < val ? n : val) + (k < wake_left ? k : wake_left);
		return n + k;
	}
	case FUTEX_WAKE_OP: {
		int nwake2 = (int)v2;
		bool cmp_ok;
		if (val < 0 || nwake2 < 0 || ((uintptr_t)uaddr2 & 3))
			break;
		int e = wake_op_apply(uaddr2, (unsigned)val3, &cmp_ok);
		if (e)
			return fail(-e);
		int op1 = FUTEX_WAKE | (op & FUTEX_PRIVATE_FLAG);
		long n = val ? wake_private(uaddr, op1, val, 0) : 0;
		if (cmp_ok && nwake2)
			n += wake_private(uaddr2, op1, nwake2, 0);
		return n;
	}
	}
	return kfutex(uaddr, op, val, v2, uaddr2, val3);
}

/* syscall() of a call that changes what is mapped: the kernel's, then
 * sched/process/shmap.c is told (the results as the kernel gives them: an address,
 * or -1 and errno). */
static long mapping(long nr, long a, long b, long c, long d, long e, long f)
{
	long r = real.syscall(nr, a, b, c, d, e, f);
	if (r == -1) /* no mapping ends at the last byte: a failure */
		return r;
	switch (nr) {
	case SYS_mmap:
		wt_shmap_mmap((void *)r, (size_t)b, (int)d);
		if ((int)d & (MAP_FIXED | MAP_FIXED_NOREPLACE))
			wt_stack_touched((uintptr_t)r, (size_t)b);
		break;
	case SYS_munmap:
		wt_shmap_munmap((void *)a, (size_t)b);
		wt_stack_touched((uintptr_t)a, (size_t)b);
		break;
	case SYS_mremap:
		wt_shmap_mremap((void *)a, (size_t)b, (void *)r, (size_t)c, (int)d);
		wt_stack_touched((uintptr_t)a, (size_t)b);
		wt_stack_touched((uintptr_t)r, (size_t)c);
		break;
	case SYS_shmat:
		wt_shmap_shmat((void *)r, (int)a);
		break;
	case SYS_shmdt:
		wt_shmap_shmdt((const void *)a);
		break;
	}
	return r;
}

WT_EXPORT long syscall(long nr, ...)
{
	va_list ap;
	va_start(ap, nr);
	long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
	long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
	va_end(ap);
	wt_real_init();
	switch (nr) {
	case SYS_mmap:
	case SYS_munmap:
	case SYS_mremap:
	case SYS_shmat:
	case SYS_shmdt:
		return mapping(nr, a, b, c, d, e, f);
	}
	if (!wt_runtime_on())
		return real.syscall(nr, a, b, c, d, e, f);
	switch (nr) {
	case SYS_futex:
		return futex((int *)a, (int)b, (int)c, d, (int *)e, (int)f);
	case SYS_close:
		if ((int)a >= 0 && ((int)a == wt_netpoll_fd() || (int)a == wt_uring_fd())) {
			errno = EBADF; /* weft's own (close() in shim/netio.c) */
			return -1;
		}
		wt_netpoll_close((int)a); /* before: the number may come back */
		return real.syscall(nr, a, b, c, d, e, f);
	/* As the libc calls (netio.c): weft's own numbers spared, the gate
	 * kept, the poller told. */
#ifdef SYS_dup2 /* not on aarch64 */
	case SYS_dup2:
		return dup2((int)a, (int)b);
#endif
	case SYS_dup3:
		return dup3((int)a, (int)b, (int)c);
	case SYS_fcntl: {
		long r = real.syscall(nr, a, b, c, d, e, f);
		if ((int)b == F_SETFL)
			wt_fd_flags_changed((int)a);
		else if (((int)b == F_DUPFD || (int)b == F_DUPFD_CLOEXEC) && r >= 0)
			wt_fd_set_kind((int)r, WT_FD_UNKNOWN);
		return r;
	}
	case SYS_ioctl: {
		long r = real.syscall(nr, a, b, c, d, e, f);
		if ((unsigned)b == FIONBIO && r == 0)
			wt_fd_flags_changed((int)a);
		return r;
	}
	case SYS_futex_waitv:
		return BRACKETED(real.syscall(nr, a, b, c, d, e, f));
	case SYS_capset:
	case SYS_setrlimit:
	case SYS_setuid:
	case SYS_setreuid:
	case SYS_setresuid:
	case SYS_setfsuid: {
		long r = real.syscall(nr, a, b, c, d, e, f);
		wt_prio_creds_changed(); /* what the priority checks read */
		return r;
	}
	case SYS_gettid:
	case SYS_tkill:
	case SYS_tgkill:
	case SYS_rt_tgsigqueueinfo:
	case SYS_set_tid_address:
	case SYS_get_robust_list:
	case SYS_set_robust_list:
	case SYS_prctl:
	case SYS_sched_setaffinity:
	case SYS_sched_getaffinity:
	case SYS_sched_setscheduler:
	case SYS_sched_getscheduler:
	case SYS_sched_setparam:
	case SYS_sched_getparam:
	case SYS_sched_rr_get_interval:
	case SYS_sched_setattr:
	case SYS_sched_getattr:
	case SYS_setpriority:
	case SYS_getpriority:
	case SYS_clock_gettime:
	case SYS_clock_getres:
	case SYS_clock_nanosleep:
	case SYS_process_vm_readv:
	case SYS_process_vm_writev:
	case SYS_prlimit64:
	case SYS_move_pages:
	case SYS_migrate_pages:
	case SYS_kcmp:
	case SYS_pidfd_open: {
		const long v[6] = { a, b, c, d, e, f };
		return wt_shim_tid_syscall(nr, v);
	}
	case SYS_close_range:
		if (!real.close_range) { /* a libc older than the call */
			wt_fdgate_enter();
			wt_netpoll_close_range((unsigned)a, (unsigned)b);
			long r = real.syscall(nr, a, b, c, d, e, f);
			wt_fdgate_leave();
			return r;
		}
		return close_range((unsigned)a, (unsigned)b, (int)c);
	/* The task's alternate stack, not the thread's (signal.c). */
	case SYS_sigaltstack:
		return sigaltstack((const stack_t *)a, (stack_t *)b);
	}
	return real.syscall(nr, a, b, c, d, e, f);
}
