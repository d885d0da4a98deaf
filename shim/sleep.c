/*
 * sleep.c — the sleep family parks the task on a timer.
 *
 * nanosleep, clock_nanosleep, usleep and sleep are all interposed: glibc's
 * sleep and usleep call its nanosleep internally, past the PLT.  A thread
 * that is not a task sleeps in the kernel as usual.  Sleeps are
 * cancellation points.  A signal sent to the task (pthread_kill) ends the
 * sleep with EINTR after its handler, as natively.
 */
#include <sys/syscall.h>
#include <unistd.h>

#include "shim.h"
#include "process/cpuclock.h"
#include "core/task.h"

/* Parks until deadline (mono ns).  Returns 0, or EINTR when a signal's
 * handler ran (it ran as the task resumed, sched/signal/sigtask.c). */
static int park_until(int64_t deadline)
{
	for (;;) {
		wt_wait_reason("sleep");
		int r = wt_park_sleep(deadline);
		if (r == WT_PARK_CANCELED)
			wt_cancel_act();
		if (r == WT_PARK_TIMEDOUT || wt_nanotime() >= deadline)
			return 0;
		if (r == WT_PARK_INTR)
			return EINTR;
	}
}

static void set_rem(struct timespec *rem, int64_t left)
{
	if (left < 0)
		left = 0;
	rem->tv_sec = left / 1000000000;
	rem->tv_nsec = left % 1000000000;
}

/* Another task's CPU clock: parks until the task has used the time, in
 * sleeps of what it still lacks (it cannot use CPU time faster than the
 * wall clock runs), checking again after each.  A task that ends meanwhile
 * ends the sleep. */
static int task_clock_sleep(clockid_t clk, int flags, const struct timespec *req,
			    struct timespec *rem)
{
	int64_t now;
	if (!wt_ts_valid(req) || req->tv_sec < 0)
		return EINVAL;
	int64_t want = (int64_t)req->tv_sec * 1000000000 + req->tv_nsec;
	if (wt_cpuclock_read(clk, &now) < 0)
		return EINVAL;
	int64_t target = flags & TIMER_ABSTIME ? want : now + want;
	wt_testcancel();
	while (wt_cpuclock_read(clk, &now) > 0 && now < target) {
		if (park_until(wt_nanotime() + (target - now)) == EINTR) {
			if (rem && !(flags & TIMER_ABSTIME))
				set_rem(rem, wt_cpuclock_read(clk, &now) > 0 ? target - now : 0);
			return EINTR;
		}
	}
	return 0;
}

/* A clock weft does not park on.  The caller's own CPU clock is refused as
 * glibc and the kernel refuse it (EINVAL); another task's is waited for
 * here; any other clock is the kernel's (a process CPU clock sleeps there,
 * with the proc handed to other tasks; an unknown clock is EINVAL, one
 * that cannot sleep ENOTSUP). */
static int other_clock(struct wt_task *t, clockid_t clk, int flags, const struct timespec *req,
		       struct timespec *rem)
{
	int64_t ns;
	if (clk == CLOCK_THREAD_CPUTIME_ID || wt_cpuclock_is_own(clk, t))
		return EINVAL;
	if (clk < 0 && wt_cpuclock_read(clk, &ns) != 0)
		return task_clock_sleep(clk, flags, req, rem);
	wt_testcancel();
	long r = BRACKETED(wt_syscall6_sigok(SYS_clock_nanosleep, clk, flags, (long)req,
					     (long)rem, 0, 0));
	if (r == -EINTR)
		wt_testcancel();
	return (int)-r;
}

WT_EXPORT int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
			      struct timespec *rem)
{
	struct wt_task *t = wt_cur();
	if (!t) {
		if (clk == CLOCK_THREAD_CPUTIME_ID)
			return EINVAL; /* glibc's answer; the kernel's is EOPNOTSUPP */
		return (int)-wt_syscall6_sigok(SYS_clock_nanosleep, clk, flags, (long)req, (long)rem,
					       0, 0);
	}
	if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC && clk != CLOCK_BOOTTIME &&
	    clk != CLOCK_TAI)
		return other_clock(t, clk, flags, req, rem);
	if (!wt_ts_valid(req) || req->tv_sec < 0)
		return EINVAL;
	wt_testcancel();
	int64_t deadline;
	if (flags & TIMER_ABSTIME)
		deadline = wt_abs_to_mono(clk == CLOCK_MONOTONIC ? CLOCK_MONOTONIC : clk, req);
	else
		deadline = wt_nanotime() + (int64_t)req->tv_sec * 1000000000 + req->tv_nsec;
	int r = park_until(deadline);
	if (r && rem && !(flags & TIMER_ABSTIME)) /* as the kernel: only when interrupted */
		set_rem(rem, deadline - wt_nanotime());
	return r;
}
WT_OWN(clock_nanosleep);

WT_EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	int r = clock_nanosleep(CLOCK_MONOTONIC, 0, req, rem);
	if (r) {
		errno = r;
		return -1;
	}
	return 0;
}

WT_EXPORT int usleep(useconds_t us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };
	return nanosleep(&ts, NULL);
}

WT_EXPORT unsigned sleep(unsigned s)
{
	struct timespec ts = { s, 0 }, rem = { 0, 0 };
	if (nanosleep(&ts, &rem) < 0)
		return (unsigned)rem.tv_sec;
	return 0;
}
