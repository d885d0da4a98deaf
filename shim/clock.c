/*
 * clock.c — the clocks and ids that name a thread, for a task: its CPU
 * clock (CLOCK_THREAD_CPUTIME_ID, pthread_getcpuclockid's ids, clock_getres
 * on them), getrusage(RUSAGE_THREAD), timer_create on a thread CPU clock,
 * gettid, and tgkill/tkill to a task's id.  The runtime side, and what the
 * ids are, is sched/process/cpuclock.c.  Every other clock, and a thread weft did
 * not create, gets libc's answer.
 */
#include <sys/syscall.h>

#include "shim.h"
#include "process/cpuclock.h"
#include "base/print.h"

static void to_ts(int64_t ns, struct timespec *ts)
{
	ts->tv_sec = ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
}

static int fail(int e)
{
	errno = e;
	return -1;
}

static int gettime(clockid_t clk, struct timespec *ts)
{
	if (likely(clk >= 0 && clk != CLOCK_THREAD_CPUTIME_ID) || !wt_runtime_on())
		return real.clock_gettime(clk, ts);
	int64_t ns;
	if (clk == CLOCK_THREAD_CPUTIME_ID) {
		if (!wt_cur())
			return real.clock_gettime(clk, ts);
		ns = wt_cpu_self_ns();
	} else {
		int r = wt_cpuclock_read(clk, &ns);
		if (r == 0)
			return real.clock_gettime(clk, ts);
		if (r < 0)
			return fail(-r);
	}
	to_ts(ns, ts);
	return 0;
}

/* Programs poll the clock in loops that run nothing else. */
WT_EXPORT int clock_gettime(clockid_t clk, struct timespec *ts)
{
	wt_real_init();
	int r = gettime(clk, ts);
	RETURN_POINT();
	return r;
}

WT_EXPORT int clock_getres(clockid_t clk, struct timespec *res)
{
	wt_real_init();
	int64_t ns;
	int r = clk < 0 && wt_runtime_on() ? wt_cpuclock_read(clk, &ns) : 0;
	if (r == 0)
		return real.clock_getres(clk, res);
	if (r < 0)
		return fail(-r);
	if (res) /* the kernel's resolution of a thread CPU clock */
		to_ts(1, res);
	return 0;
}

WT_EXPORT int pthread_getcpuclockid(pthread_t th, clockid_t *clk)
{
	wt_real_init();
	if (!wt_runtime_on())
		return real.pthread_getcpuclockid(th, clk);
	wt_task_lookup_begin();
	struct wt_task *t = wt_task_from_pthread(th);
	bool dead = t && wt_task_dead(t);
	clockid_t id = t && !dead ? wt_cpuclock_id(t) : 0;
	wt_task_lookup_end();
	if (dead) /* exited, its record kept for its join: glibc's tid 0 is ESRCH */
		return ESRCH;
	if (!t) {
		/* Exited (its TCB's memory may be another task's now): as
		 * glibc answers for a thread it no longer knows. */
		if (wt_task_ended(th) >= 0)
			return ESRCH;
		return real.pthread_getcpuclockid(th, clk);
	}
	wt_cpu_acct_start();
	*clk = id;
	return 0;
}

static int64_t tv_ns(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
}

static struct timeval ns_tv(int64_t ns)
{
	return (struct timeval){ ns / 1000000000, (ns % 1000000000) / 1000 };
}

/* RUSAGE_THREAD on a task: its CPU time, split between user and system
 * time as its worker thread's is; the other fields are the worker
 * thread's. */
WT_EXPORT int getrusage(__rusage_who_t who, struct rusage *ru)
{
	wt_real_init();
	int r = real.getrusage(who, ru);
	if (r != 0 || who != RUSAGE_THREAD || !wt_cur())
		return r;
	int64_t ns = wt_cpu_self_ns();
	int64_t u = tv_ns(ru->ru_utime), s = tv_ns(ru->ru_stime);
	int64_t user = u + s > 0 ? (int64_t)((double)ns * u / (double)(u + s)) : ns;
	ru->ru_utime = ns_tv(user);
	ru->ru_stime = ns_tv(ns - user);
	return 0;
}

/* A SIGEV_THREAD timer: glibc's first one starts its helper thread from
 * the caller, every signal blocked (SIGSEGV too) around its own
 * pthread_create, which reads the caller's TCB: in trap mode (sched/stack/tls.c)
 * a kernel switch there would make that read a fault that kills.  So the
 * call runs pinned, as posix_spawn does (spawn.c).  Context: a task or a
 * thread weft did not create. */
static int timer_create_real(clockid_t clk, struct sigevent *sev, timer_t *id)
{
	if (!sev || sev->sigev_notify != SIGEV_THREAD || !wt_runtime_on())
		return real.timer_create(clk, sev, id);
	struct wt_pin pin = wt_tls_pin();
	int r = real.timer_create(clk, sev, id);
	wt_tls_unpin(pin);
	return r;
}

/* A timer on a thread CPU clock is the kernel's, which knows only the
 * worker threads: on the caller's own clock it counts its worker's time
 * (one weft: line says so); on another task's clock id it cannot be made. */
WT_EXPORT int timer_create(clockid_t clk, struct sigevent *sev, timer_t *id)
{
	wt_real_init();
	/* A SIGEV_THREAD timer's helper thread is a second thread: a dormant
	 * process starts the runtime first (sched/core/start.c). */
	if (sev && sev->sigev_notify == SIGEV_THREAD && !wt_runtime_on())
		(void)wt_runtime_start();
	if (likely(clk >= 0 && clk != CLOCK_THREAD_CPUTIME_ID) || !wt_runtime_on())
		return timer_create_real(clk, sev, id);
	int64_t ns;
	int r = clk == CLOCK_THREAD_CPUTIME_ID ? (wt_cur() ? 2 : 0) : wt_cpuclock_read(clk, &ns);
	if (r > 0) {
		static _Atomic bool said;
		if (!atomic_exchange(&said, true))
			wt_print("weft: timer_create on a thread CPU clock: weft's timers count "
				 "a worker thread's CPU time, not the task's\n");
		if (r == 1)
			return fail(EINVAL);
	}
	return timer_create_real(clk, sev, id);
}

WT_EXPORT pid_t gettid(void)
{
	struct wt_task *t = wt_cur();
	if (!t)
		return (pid_t)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	return wt_task_kernel_id(t);
}

static int kill_id(int tgid, int tid, int sig)
{
	int r = wt_tid_kill(tgid, tid, sig, NULL);
	if (r <= 0)
		return r ? fail(-r) : 0;
	long k = tgid == -1 ? wt_syscall6(SYS_tkill, tid, sig, 0, 0, 0, 0)
			    : wt_syscall6(SYS_tgkill, tgid, tid, sig, 0, 0, 0);
	return k < 0 ? fail((int)-k) : 0;
}

WT_EXPORT int tgkill(pid_t tgid, pid_t tid, int sig)
{
	if (tgid <= 0)
		return fail(EINVAL);
	return kill_id(tgid, tid, sig);
}

/* syscall(SYS_gettid / SYS_tgkill / SYS_tkill) from shim/syscall.c. */
long wt_shim_id_syscall(long nr, long a, long b, long c)
{
	if (nr == SYS_gettid)
		return gettid();
	if (nr == SYS_tkill)
		return kill_id(-1, (int)a, (int)b);
	return tgkill((pid_t)a, (pid_t)b, (int)c);
}
