/*
 * syscall.c — private futex waits through libc's syscall() park tasks.
 *
 * libstdc++ implements std::future, std::atomic::wait, std::barrier,
 * std::latch and std::counting_semaphore with syscall(SYS_futex, ...).  A
 * task's FUTEX_WAIT / FUTEX_WAIT_BITSET on a private futex parks in weft's
 * parking lot instead of blocking its worker; the kernel's check "still
 * equal to val" becomes the park's validate, under the bucket lock.  Any
 * caller's FUTEX_WAKE / FUTEX_WAKE_BITSET wakes parked tasks first and the
 * kernel's waiters (threads that are not tasks) with what is left.  Bitsets
 * are ignored on wake (a waiter may wake spuriously, which futex users
 * allow).  libstdc++ does not pass FUTEX_PRIVATE_FLAG, so "shared" futexes
 * are handled too: a wake also wakes the kernel's shared waiters, and a
 * parked wait on a shared futex re-checks the word every 10 ms, in case the
 * word is in memory shared with another process whose wake we cannot see.
 * Every other system call passes through.
 * Futex calls made with an inline `syscall` instruction (libgomp, glibc's
 * own locks) cannot be seen here: sysmon's blocked-worker detection
 * hands their procs on.
 */
#include <linux/futex.h>
#include <stdarg.h>
#include <sys/syscall.h>

#include "shim.h"
#include "../sched/task.h"

static bool futex_same(const void *addr, uintptr_t val)
{
	return __atomic_load_n((const int *)addr, __ATOMIC_RELAXED) == (int)val;
}

static long fail(int e)
{
	errno = e;
	return -1;
}

static long futex(int *uaddr, int op, int val, const struct timespec *ts, bool *handled)
{
	int cmd = op & FUTEX_CMD_MASK;
	bool shared = !(op & FUTEX_PRIVATE_FLAG);
	*handled = false;
	if (cmd == FUTEX_WAKE || cmd == FUTEX_WAKE_BITSET) {
		if (val <= 0)
			return 0; /* let the kernel judge */
		*handled = true;
		int n = wt_unpark(uaddr, val);
		if (n < val) {
			long k = wt_futex_wake((_Atomic int *)uaddr, val - n, shared);
			if (k > 0)
				n += (int)k;
		}
		return n;
	}
	if ((cmd != FUTEX_WAIT && cmd != FUTEX_WAIT_BITSET) || !wt_cur())
		return 0;
	*handled = true;
	int64_t deadline = -1;
	if (ts) {
		if (!wt_ts_valid(ts) || ts->tv_sec < 0)
			return fail(EINVAL);
		if (cmd == FUTEX_WAIT)
			deadline = wt_nanotime() + (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
		else
			deadline = wt_abs_to_mono(op & FUTEX_CLOCK_REALTIME ? CLOCK_REALTIME
									: CLOCK_MONOTONIC, ts);
	}
	for (;;) {
		int64_t until = deadline;
		if (shared) {
			int64_t poll = wt_nanotime() + 10000000;
			if (until < 0 || poll < until)
				until = poll;
		}
		wt_wait_reason("futex");
		int r = wt_park(uaddr, futex_same, (uintptr_t)(unsigned)val, until, false);
		if (r == WT_PARK_INVALID)
			return fail(EAGAIN);
		if (r == WT_PARK_WOKEN)
			return 0;
		if (r == WT_PARK_INTR)
			return fail(EINTR);
		if (deadline >= 0 && wt_nanotime() >= deadline)
			return fail(ETIMEDOUT);
		if (!futex_same(uaddr, (uintptr_t)(unsigned)val))
			return 0; /* changed: a wake we could not see */
	}
}

WT_EXPORT long syscall(long nr, ...)
{
	va_list ap;
	va_start(ap, nr);
	long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
	long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_futex && wt_runtime_on()) {
		bool handled;
		long r = futex((int *)a, (int)b, (int)c, (const struct timespec *)d, &handled);
		if (handled)
			return r;
	}
	wt_real_init();
	return real.syscall(nr, a, b, c, d, e, f);
}
