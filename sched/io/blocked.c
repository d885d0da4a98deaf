/*
 * blocked.c — is a worker's thread blocked in the kernel, in a system call
 * weft did not intercept (stdio's internal read, an inline `syscall`
 * instruction, glibc's internal lock waits)?  sysmon asks (core/preempt.c:
 * wt_sysmon_preempt) when a proc's tick has not moved for a tick of its own
 * and the worker's CPU clock stood still.
 *
 *   - The CPU clock (wt_thread_cpu_ns): the kernel's per-thread scheduler
 *     clock of the worker's thread, read by clock id (what
 *     pthread_getcpuclockid returns), so sysmon needs no handle to it;
 *     its watch reads it for every busy proc, to tell a task that runs
 *     from a worker that does not.
 *   - The probe (wt_blocked_restartable): /proc/self/task/TID/syscall
 *     names the call the thread sleeps in, its arguments and its pc.  The
 *     answer is yes only for a call outside weft's code that the kernel
 *     restarts after a handled signal (read, write, accept, wait4, an
 *     untimed futex wait, ...).  A thread runnable but descheduled
 *     ("running"), not in a system call, in weft's own code (whose futex
 *     waits keep the proc on purpose), or in a call that a handled signal
 *     would end with EINTR (poll, epoll_wait, nanosleep, sigtimedwait, a
 *     timed futex wait, ...) gets no; without /proc the answer is yes,
 *     since the signal handler decides in the end (core/preempt.c: it enters
 *     the implicit call only on a system call outside weft).  So it is
 *     under qemu-user, whose /proc shows its host's calls (proc_ours).
 * Neither reads nor writes scheduler state: both only look at the thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <time.h>

#include "core/runtime.h"
#include "blocked.h"
#include "base/print.h"
#include "readfile.h"
#include "core/text.h"

/* Context: any.  tid's CPU time in ns, -1 if the kernel says no. */
int64_t wt_thread_cpu_ns(int tid)
{
	struct timespec ts;
	/* The kernel's per-thread scheduler clock of tid (what
	 * pthread_getcpuclockid returns): ~tid << 3 | CPUCLOCK_PERTHREAD |
	 * CPUCLOCK_SCHED. */
	long clk = (long)((~(unsigned long)(unsigned)tid) << 3) | 6;
	if (wt_syscall6(SYS_clock_gettime, clk, (long)&ts, 0, 0, 0, 0) < 0)
		return -1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* One number of /proc/.../syscall: decimal, or hex with 0x, maybe negative. */
static long hexnum(const char **s)
{
	const char *p = *s;
	while (*p == ' ')
		p++;
	bool neg = *p == '-';
	if (neg)
		p++;
	int base = 10;
	if (p[0] == '0' && p[1] == 'x') {
		base = 16;
		p += 2;
	}
	unsigned long v = 0;
	for (;; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0'
			: base == 16 && *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
		if (d < 0)
			break;
		v = v * base + d;
	}
	*s = p;
	return neg ? -(long)v : (long)v;
}

/* Whether /proc's syscall lines describe this program's machine: under
 * qemu-user they are the emulator's own (its host's system call numbers,
 * a pc in its code), which the program cannot see.  Decided at the first
 * line read, by the kernel's view of that pc: a path read from it faults
 * only where it is not the program's memory.  0 unknown, 1 yes, -1 no. */
static int proc_ours;

/* Is m's thread asleep in a system call outside weft that restarts after
 * a handled signal?  Unknown (no /proc, or /proc speaks of an emulator's
 * host): yes, the handler re-checks.
 * Context: sysmon; reads a /proc file, does not allocate. */
bool wt_blocked_restartable(struct wt_m *m)
{
	char path[64], buf[256];
	wt_snprintf(path, sizeof path, "/proc/self/task/%d/syscall", m->ostid);
	if (wt_read_file(path, buf, sizeof buf) <= 0)
		return true;
	if (buf[0] < '0' || buf[0] > '9')
		return false; /* "running" (descheduled, not blocked), or "-1 sp pc" */
	/* "nr a0 a1 a2 a3 a4 a5 sp pc" */
	const char *s = buf;
	long a[9];
	for (int i = 0; i < 9; i++)
		a[i] = hexnum(&s);
	long nr = a[0];
	if (!proc_ours)
		proc_ours = wt_syscall6(SYS_faccessat, AT_FDCWD, a[8], F_OK, 0, 0, 0) == -EFAULT ? -1 : 1;
	if (proc_ours < 0)
		return true;
	if (wt_pc_in_weft((uintptr_t)a[8]))
		return false;
	switch (nr) {
	case SYS_read: case SYS_write: case SYS_pread64: case SYS_pwrite64:
	case SYS_readv: case SYS_writev: case SYS_preadv: case SYS_pwritev:
	case SYS_accept: case SYS_accept4: case SYS_recvfrom: case SYS_recvmsg:
	case SYS_sendto: case SYS_sendmsg: case SYS_sendmmsg: case SYS_wait4:
	case SYS_waitid: case SYS_fcntl: case SYS_flock: case SYS_openat:
#ifdef SYS_open /* not on architectures that have only openat */
	case SYS_open:
#endif
	case SYS_splice: case SYS_tee: case SYS_sendfile:
	case SYS_copy_file_range:
		return true;
	case SYS_futex: {
		int cmd = (int)a[2] & FUTEX_CMD_MASK;
		return (cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_LOCK_PI) &&
		       a[4] == 0; /* untimed waits restart; timed ones return EINTR */
	}
	default:
		return false; /* EINTR-prone (poll, epoll_wait, nanosleep, ...) or unknown */
	}
}
