/*
 * tid.c — the system calls that take or give a thread id, made through
 * libc's syscall() (shim/syscall.c sends them here while weft runs): on a
 * task they name tasks by the ids gettid() gives, as the libc-level calls
 * do.
 *   gettid, tkill, tgkill           clock.c's interposed calls
 *   rt_tgsigqueueinfo               queued to the task with its siginfo
 *   set_tid_address                 the task's own clear-tid word
 *   get_robust_list, set_robust_list  the task's own robust list
 *                                   (both sched/process/tidaddr.c; never the worker's)
 *   prctl                           pthread_create.c's (PR_GET_TID_ADDRESS,
 *                                   PR_SET_NAME, PR_GET_NAME)
 *   sched_*, setpriority,
 *   getpriority                     sched.c (the task's values)
 *   clock_gettime, clock_getres,
 *   clock_nanosleep                 clock.c and sleep.c, for a CPU clock id
 *                                   (a task's, or the caller's own)
 *   process_vm_readv/writev,
 *   prlimit64, move_pages,
 *   migrate_pages, kcmp             a task's id names this process, as
 *                                   natively any of its threads' ids does
 *   pidfd_open                      a task other than main leads no thread
 *                                   group: the kernel's error for that; a pidfd
 *                                   for the task itself (PIDFD_THREAD) cannot
 *                                   be: ESRCH
 * Every other call, a thread weft did not create, and an id no task has
 * get the kernel's answer (no OS thread has a task's id: ESRCH).
 */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim.h"
#include "process/cpuclock.h"
#include "io/privfd.h"
#include "process/tidaddr.h"

#define PIDFD_NONBLOCK O_NONBLOCK /* <linux/pidfd.h>, which clashes with <fcntl.h> */
#define PIDFD_THREAD O_EXCL

static long fail(int e)
{
	errno = e;
	return -1;
}

static long sys_ret(long r)
{
	return r < 0 ? fail((int)-r) : r;
}

/* The process id, if id is a live task's (the process id itself is). */
static pid_t process_of(pid_t id)
{
	if (!wt_is_task_id(id))
		return id;
	wt_lock(&wt_sched.alllock);
	struct wt_task *t = wt_task_by_kernel_id_locked(id);
	bool live = t && !wt_task_dead(t);
	wt_unlock(&wt_sched.alllock);
	return live ? (pid_t)wt_pid : id;
}

static long tgsigqueueinfo(const long *a)
{
	int tgid = (int)a[0], tid = (int)a[1], sig = (int)a[2];
	const siginfo_t *ui = (const siginfo_t *)a[3];
	if (tgid <= 0 || tid <= 0)
		return fail(EINVAL);
	if (tgid != wt_pid || (!wt_is_task_id(tid) && tid != wt_pid) || !ui)
		return real.syscall(SYS_rt_tgsigqueueinfo, a[0], a[1], a[2], a[3]);
	siginfo_t si;
	memcpy(&si, ui, sizeof si);
	/* The kernel's rule: only the thread whose id is tgid may claim to be
	 * the kernel or kill/tgkill. */
	if ((si.si_code >= 0 || si.si_code == SI_TKILL) && gettid() != tgid)
		return fail(EPERM);
	si.si_signo = sig;
	int r = wt_tid_kill(tgid, tid, sig, &si);
	if (r > 0)
		return real.syscall(SYS_rt_tgsigqueueinfo, a[0], a[1], a[2], a[3]);
	return sys_ret(r);
}

static long get_robust(const long *a)
{
	pid_t pid = (pid_t)a[0];
	struct wt_task *t = wt_shim_task_of_id(pid);
	if (t == &wt_shim_no_task || (!t && wt_is_task_id(pid)))
		return fail(ESRCH); /* a worker that runs no task; a task that ended */
	if (!t)
		return real.syscall(SYS_get_robust_list, a[0], a[1], a[2]);
	uintptr_t head;
	size_t len;
	wt_robust_get(t, &head, &len);
	if (!a[1] || !a[2])
		return fail(EFAULT);
	*(size_t *)a[2] = len;
	*(uintptr_t *)a[1] = head;
	return 0;
}

/* pidfd_open of a thread that leads no thread group, without PIDFD_THREAD:
 * the kernel's error for it (EINVAL before Linux 6.9, ENOENT since), asked
 * with a worker's id that is not the process's. */
static long not_leader(void)
{
	for (struct wt_m *m = atomic_load_explicit(&wt_sched.allm, memory_order_acquire); m;
	     m = m->alllink) {
		if (m->ostid == wt_pid)
			continue;
		/* In weft's own table (io/privfd.h): a pidfd it made would
		 * otherwise take a number of the program's for a moment. */
		long r = wt_privfd_syscall(SYS_pidfd_open, m->ostid, 0, 0, 0, 0, 0);
		if (r >= 0) {
			wt_privfd_syscall(SYS_close, r, 0, 0, 0, 0, 0);
			break;
		}
		if (r == -ENOSYS)
			break; /* no table of weft's to ask in */
		return fail((int)-r);
	}
	return fail(EINVAL);
}

long wt_shim_tid_syscall(long nr, const long *a)
{
	struct wt_task *t = wt_cur();
	switch (nr) {
	case SYS_gettid:
	case SYS_tkill:
	case SYS_tgkill:
		return wt_shim_id_syscall(nr, a[0], a[1], a[2]);
	case SYS_rt_tgsigqueueinfo:
		return tgsigqueueinfo(a);
	case SYS_set_tid_address:
		if (!t)
			break;
		return wt_tidaddr_set(t, (int *)a[0]);
	case SYS_set_robust_list:
		if (!t)
			break;
		return sys_ret(wt_robust_set(t, (uintptr_t)a[0], (size_t)a[1]));
	case SYS_get_robust_list:
		return get_robust(a);
	case SYS_prctl:
		return prctl((int)a[0], a[1], a[2], a[3], a[4]);
	case SYS_clock_gettime:
		return clock_gettime((clockid_t)a[0], (struct timespec *)a[1]);
	case SYS_clock_getres:
		return clock_getres((clockid_t)a[0], (struct timespec *)a[1]);
	case SYS_clock_nanosleep: {
		if ((clockid_t)a[0] >= 0) /* no thread's clock: as it was made */
			break;
		int e = clock_nanosleep((clockid_t)a[0], (int)a[1], (const struct timespec *)a[2],
					(struct timespec *)a[3]);
		return e ? fail(e) : 0;
	}
	case SYS_kcmp:
		return real.syscall(nr, process_of((pid_t)a[0]), process_of((pid_t)a[1]), a[2], a[3],
				    a[4]);
	case SYS_prlimit64:
		if (a[2]) { /* a new limit */
			long r = real.syscall(nr, process_of((pid_t)a[0]), a[1], a[2], a[3], a[4], a[5]);
			wt_prio_creds_changed();
			return r;
		}
		return real.syscall(nr, process_of((pid_t)a[0]), a[1], a[2], a[3], a[4], a[5]);
	case SYS_process_vm_readv:
	case SYS_process_vm_writev:
	case SYS_move_pages:
	case SYS_migrate_pages:
		return real.syscall(nr, process_of((pid_t)a[0]), a[1], a[2], a[3], a[4], a[5]);
	case SYS_pidfd_open:
		if ((int)a[0] != wt_pid && process_of((pid_t)a[0]) == wt_pid &&
		    !(a[1] & ~(long)(PIDFD_NONBLOCK | PIDFD_THREAD)))
			return a[1] & PIDFD_THREAD ? fail(ESRCH) : not_leader();
		break;
	default:
		return wt_shim_sched_syscall(nr, a);
	}
	return real.syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
