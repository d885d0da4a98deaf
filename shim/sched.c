/*
 * sched.c — scheduling policy, priority, niceness and CPU masks of
 * threads: pthread_setschedparam and family, sched_setscheduler and
 * family, setpriority/getpriority, the affinity calls.
 *
 * On a task they read and change the task's own values (sched/process/prio.c,
 * sched/process/affinity.c), never its worker's.  A thread is named by its
 * pthread_t, or by an id: 0 (the caller), the id in its TCB, the id
 * gettid() gives a task (sched/process/cpuclock.c), the process id (the main task,
 * as natively the initial thread's id is the process's), or another
 * worker's id (the task running there now; ESRCH when it runs none, so
 * that nothing reaches a worker).  Any other id is another process's
 * thread (or one weft did not create): the kernel answers.  The same
 * calls made through syscall() (wt_shim_sched_syscall) answer in the
 * kernel's own form, and sched_setattr/sched_getattr, which glibc 2.36
 * does not wrap, act on a task's policy, priority and nice value.
 */
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim.h"
#include "process/affinity.h"
#include "process/cpuclock.h"
#include "process/prio.h"
#include "signal/sighandler.h"

struct wt_task wt_shim_no_task; /* an id of weft's worker that runs no task */

struct wt_task *wt_shim_task_of_id(pid_t id)
{
	struct wt_task *cur = wt_cur();
	if (!wt_runtime_on())
		return NULL;
	if (id == 0)
		return cur;
	if (cur && (id == cur->tid || id == cur->m->ostid || id == wt_task_kernel_id(cur)))
		return cur;
	if (wt_main_task && id == (pid_t)wt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0))
		return wt_task_dead(wt_main_task) ? NULL : wt_main_task;
	struct wt_task *t;
	wt_lock(&wt_sched.alllock);
	for (t = wt_sched.alltasks; t && t->tid != id; t = t->alllink)
		;
	if (!t)
		t = wt_task_by_kernel_id_locked(id);
	wt_unlock(&wt_sched.alllock);
	if (t)
		return t;
	for (struct wt_m *m = atomic_load_explicit(&wt_sched.allm, memory_order_acquire); m;
	     m = m->alllink)
		if (m->ostid == id) {
			t = __atomic_load_n(&m->curg, __ATOMIC_RELAXED);
			return t ? t : &wt_shim_no_task;
		}
	return NULL;
}

/* A call on a task that took weft's locks returns to the program: a
 * signal whose handler came while the task held them (deferred,
 * sched/signal/sighandler.c) runs now, before the program goes on, as natively
 * it would have run within the call, and so does a preemption sysmon
 * asked for meanwhile (RETURN_POINT).  A loop of these calls that never
 * switches would otherwise leave both to sysmon's pokes, which mostly
 * land inside weft again.  r passes through.  A macro: RETURN_POINT names
 * the exported function's return address. */
#define unlocked(r)                 \
	({                          \
		int r_ = (r);       \
		wt_sig_unlocked();  \
		RETURN_POINT();     \
		r_;                 \
	})

/* A change of policy, priority, niceness or CPU mask on a dormant
 * process's initial thread (sched/core/start.c) starts the runtime first: the
 * main task keeps what was set from then on, as glibc keeps the policy
 * pthread_setschedparam set (a later start would find only the kernel's,
 * and a thread would then inherit another policy than natively). */
static void start_for_set(void)
{
	if (unlikely(wt_dormant_self()) && !wt_runtime_on())
		(void)wt_runtime_start();
}

/* -errno to the system-call contract: -1 and errno. */
static int sys_ret(long r)
{
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (int)r;
}

/* A pthread_t of weft's whose task has exited and is not joined: its
 * record kept for its join, a small one left (sched/core/unjoined.c), or ended
 * detached.  glibc's descriptor of such a thread holds tid 0 (the kernel
 * cleared it at the exit), and -1 once a join took it: the calls that
 * check it (the pthread_*sched* family) say ESRCH for both; the affinity
 * calls pass 0 to the kernel, which takes it for the caller. */
#define GONE_UNJOINED (-1)

/* A pthread_t of weft's whose task ended: ESRCH, or GONE_UNJOINED.  0:
 * not weft's at all. */
static int ended(pthread_t th)
{
	int e = wt_task_ended(th);
	if (e < 0)
		return 0;
	return e == WT_ENDED_UNJOINED || e == WT_ENDED_DETACHED ? GONE_UNJOINED : ESRCH;
}

/* The live task th names, or NULL with *e set: ESRCH or GONE_UNJOINED for
 * a task that ended, 0 for a thread weft did not make (the libc table is
 * then ready for the caller's fallback to glibc).  A task found is used
 * inside a lookup section (sched/core/task.c), which the caller ends
 * (wt_task_lookup_end). */
static struct wt_task *task_of_pthread(pthread_t th, int *e)
{
	wt_task_lookup_begin();
	struct wt_task *t = wt_task_from_pthread(th);
	if (t && wt_task_dead(t)) {
		/* Exited, its record kept for its join. */
		wt_task_lookup_end();
		*e = GONE_UNJOINED;
		return NULL;
	}
	if (!t) {
		wt_task_lookup_end();
		*e = ended(th);
		if (!*e)
			wt_real_init();
	}
	return t;
}

WT_EXPORT int pthread_setschedparam(pthread_t th, int policy, const struct sched_param *sp)
{
	start_for_set();
	int e;
	struct wt_task *t = task_of_pthread(th, &e);
	if (!t)
		return e ? ESRCH : real.pthread_setschedparam(th, policy, sp);
	int r = -wt_prio_pthread_set(t, policy, sp);
	wt_task_lookup_end();
	return unlocked(r);
}

WT_EXPORT int pthread_getschedparam(pthread_t th, int *policy, struct sched_param *sp)
{
	int e;
	struct wt_task *t = task_of_pthread(th, &e);
	if (!t)
		return e ? ESRCH : real.pthread_getschedparam(th, policy, sp);
	int pol, prio;
	wt_prio_pthread_get(t, &pol, &prio);
	wt_task_lookup_end();
	*policy = pol;
	sp->sched_priority = prio;
	return unlocked(0);
}

WT_EXPORT int pthread_setschedprio(pthread_t th, int prio)
{
	start_for_set();
	int e;
	struct wt_task *t = task_of_pthread(th, &e);
	if (!t)
		return e ? ESRCH : real.pthread_setschedprio(th, prio);
	struct sched_param sp = { .sched_priority = prio };
	int r = -wt_prio_pthread_set(t, WT_PRIO_KEEP, &sp);
	wt_task_lookup_end();
	return unlocked(r);
}

WT_EXPORT int sched_setscheduler(pid_t pid, int policy, const struct sched_param *sp)
{
	start_for_set();
	if (!sp || pid < 0)
		return sys_ret(-EINVAL);
	struct wt_task *t = wt_shim_task_of_id(pid);
	if (t == &wt_shim_no_task)
		return sys_ret(-ESRCH);
	if (!t)
		return sys_ret(wt_syscall6(SYS_sched_setscheduler, pid, policy, (long)sp, 0, 0, 0));
	return sys_ret(unlocked(wt_prio_set(t, policy, sp)));
}

WT_EXPORT int sched_setparam(pid_t pid, const struct sched_param *sp)
{
	start_for_set();
	if (!sp || pid < 0)
		return sys_ret(-EINVAL);
	struct wt_task *t = wt_shim_task_of_id(pid);
	if (t == &wt_shim_no_task)
		return sys_ret(-ESRCH);
	if (!t)
		return sys_ret(wt_syscall6(SYS_sched_setparam, pid, (long)sp, 0, 0, 0, 0));
	return sys_ret(unlocked(wt_prio_set(t, WT_PRIO_KEEP, sp)));
}

WT_EXPORT int sched_getscheduler(pid_t pid)
{
	if (pid < 0)
		return sys_ret(-EINVAL);
	struct wt_task *t = wt_shim_task_of_id(pid);
	if (t == &wt_shim_no_task)
		return sys_ret(-ESRCH);
	if (!t)
		return sys_ret(wt_syscall6(SYS_sched_getscheduler, pid, 0, 0, 0, 0, 0));
	int pol, prio;
	wt_prio_get(t, &pol, &prio);
	return pol;
}

WT_EXPORT int sched_getparam(pid_t pid, struct sched_param *sp)
{
	if (!sp || pid < 0)
		return sys_ret(-EINVAL);
	struct wt_task *t = wt_shim_task_of_id(pid);
	if (t == &wt_shim_no_task)
		return sys_ret(-ESRCH);
	if (!t)
		return sys_ret(wt_syscall6(SYS_sched_getparam, pid, (long)sp, 0, 0, 0, 0));
	int pol, prio;
	wt_prio_get(t, &pol, &prio);
	sp->sched_priority = prio;
	return 0;
}

WT_EXPORT int sched_rr_get_interval(pid_t pid, struct timespec *ts)
{
	if (pid < 0)
		return sys_ret(-EINVAL);
	struct wt_task *t = wt_shim_task_of_id(pid);
	if (t == &wt_shim_no_task)
		return sys_ret(-ESRCH);
	if (!t)
		return sys_ret(wt_syscall6(SYS_sched_rr_get_interval, pid, (long)ts, 0, 0, 0, 0));
	return sys_ret(wt_prio_rr_interval(t, ts));
}

WT_EXPORT int setpriority(__priority_which_t which, id_t who, int prio)
{
	start_for_set();
	struct wt_task *t = which == PRIO_PROCESS && (int)who >= 0 ? wt_shim_task_of_id((pid_t)who) : NULL;
	if (t == &wt_shim_no_task)
		return sys_ret(-ESRCH);
	if (!t)
		return sys_ret(wt_syscall6(SYS_setpriority, which, who, prio, 0, 0, 0));
	return sys_ret(wt_nice_set(t, prio));
}

WT_EXPORT int getpriority(__priority_which_t which, id_t who)
{
	struct wt_task *t = which == PRIO_PROCESS && (int)who >= 0 ? wt_shim_task_of_id((pid_t)who) : NULL;
	if (t == &wt_shim_no_task)
		return sys_ret(-ESRCH);
	if (!t) {
		long r = wt_syscall6(SYS_getpriority, which, who, 0, 0, 0, 0);
		return r < 0 ? sys_ret(r) : 20 - (int)r; /* the kernel's 40..1 */
	}
	return wt_nice_get(t);
}

WT_EXPORT int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
	start_for_set();
	struct wt_task *t = pid >= 0 ? wt_shim_task_of_id(pid) : NULL;
	if (t == &wt_shim_no_task)
		return sys_ret(-ESRCH);
	if (!t)
		return sys_ret(wt_syscall6(SYS_sched_setaffinity, pid, size, (long)set, 0, 0, 0));
	return sys_ret(unlocked(wt_aff_set(t, size, set)));
}

/* glibc's: the bytes past the kernel's mask size are zeroed. */
static long aff_get(struct wt_task *t, pid_t pid, size_t size, cpu_set_t *set)
{
	size_t len = size > INT32_MAX ? INT32_MAX : size;
	long r = t ? wt_aff_get(t, len, set)
		   : wt_syscall6(SYS_sched_getaffinity, pid, len, (long)set, 0, 0, 0);
	if (r >= 0 && (size_t)r < size)
		__builtin_memset((char *)set + r, 0, size - (size_t)r);
	return r < 0 ? r : 0;
}

size_t wt_shim_attr_aff(struct wt_task *t, cpu_set_t *set, size_t size)
{
	if (!t)
		t = wt_cur();
	for (size_t n = 32; n <= size; n *= 2) {
		long r = aff_get(t, 0, n, set);
		if (r != -EINVAL)
			return r < 0 ? 0 : n;
	}
	return 0;
}

WT_EXPORT int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set)
{
	struct wt_task *t = pid >= 0 ? wt_shim_task_of_id(pid) : NULL;
	if (t == &wt_shim_no_task)
		return sys_ret(-ESRCH);
	return sys_ret(aff_get(t, pid, size, set));
}

WT_EXPORT int pthread_setaffinity_np(pthread_t th, size_t size, const cpu_set_t *set)
{
	start_for_set();
	int e;
	struct wt_task *t = task_of_pthread(th, &e);
	if (!t && e == GONE_UNJOINED) {
		/* glibc's sched_setaffinity(0): the caller's mask changes. */
		if (!(t = wt_cur()))
			return (int)-wt_syscall6(SYS_sched_setaffinity, 0, size, (long)set, 0, 0, 0);
		return unlocked(-wt_aff_set(t, size, set));
	}
	if (!t)
		return e ? e : real.pthread_setaffinity_np(th, size, set);
	int r = -wt_aff_set(t, size, set);
	wt_task_lookup_end();
	return unlocked(r);
}

WT_EXPORT int pthread_getaffinity_np(pthread_t th, size_t size, cpu_set_t *set)
{
	int e;
	struct wt_task *t = task_of_pthread(th, &e);
	if (!t && e == GONE_UNJOINED) /* glibc's sched_getaffinity(0): the caller's */
		return (int)-aff_get(wt_cur(), 0, size, set);
	if (!t)
		return e ? e : real.pthread_getaffinity_np(th, size, set);
	int r = (int)-aff_get(t, 0, size, set);
	wt_task_lookup_end();
	return r;
}

/* The kernel's struct sched_attr (SCHED_ATTR_SIZE_VER1). */
struct kattr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
	uint32_t util_min, util_max;
};

#define ATTR_VER0 48
#define F_RESET_ON_FORK 0x01
#define F_KEEP_POLICY 0x08
#define F_KEEP_PARAMS 0x10

/* A policy whose nice value sched_setattr sets (the kernel's
 * fair_policy: not SCHED_IDLE, whose nice stays). */
static bool fair(int pol)
{
	pol &= ~SCHED_RESET_ON_FORK;
	return pol == SCHED_OTHER || pol == SCHED_BATCH;
}

static bool rt(int pol)
{
	pol &= ~SCHED_RESET_ON_FORK;
	return pol == SCHED_FIFO || pol == SCHED_RR;
}

/* sched_setattr on task t, the kernel's checks on the attribute first.
 * SCHED_DEADLINE, its flags and utilization clamps are not a task's: EINVAL. */
static long setattr(struct wt_task *t, const struct kattr *ua)
{
	uint32_t size = ua->size ? ua->size : ATTR_VER0;
	if (size < ATTR_VER0 || size > 4096)
		return -E2BIG;
	struct kattr a = { 0 };
	__builtin_memcpy(&a, ua, size < sizeof a ? size : sizeof a);
	if ((int)a.policy < 0 || (a.flags & ~(uint64_t)(F_RESET_ON_FORK | F_KEEP_POLICY | F_KEEP_PARAMS)))
		return -EINVAL;
	int pol, prio;
	wt_prio_get(t, &pol, &prio);
	int newpol = (a.flags & F_KEEP_POLICY) ? WT_PRIO_KEEP
			: (int)a.policy | ((a.flags & F_RESET_ON_FORK) ? SCHED_RESET_ON_FORK : 0);
	struct sched_param sp = { .sched_priority = (a.flags & F_KEEP_PARAMS) ? prio : (int)a.priority };
	long r = wt_prio_set(t, newpol, &sp);
	if (r == 0 && !(a.flags & F_KEEP_PARAMS) && fair(newpol == WT_PRIO_KEEP ? pol : newpol))
		r = wt_nice_set(t, a.nice);
	return r;
}

/* sched_getattr of task t: the kernel's answer for the calling thread
 * (its size and utilization clamps), with t's policy, flags, nice value
 * and priority. */
static long getattr(struct wt_task *t, struct kattr *ua, uint32_t usize)
{
	if (!ua || usize < ATTR_VER0 || usize > 4096)
		return -EINVAL;
	struct kattr a = { 0 };
	long r = wt_syscall6(SYS_sched_getattr, 0, (long)&a, sizeof a, 0, 0, 0);
	if (r < 0)
		return r;
	int pol, prio;
	wt_prio_get(t, &pol, &prio);
	a.policy = (uint32_t)(pol & ~SCHED_RESET_ON_FORK);
	a.flags = (pol & SCHED_RESET_ON_FORK) ? F_RESET_ON_FORK : 0;
	a.priority = (uint32_t)prio;
	a.nice = rt(pol) ? 0 : wt_nice_get(t);
	a.runtime = a.deadline = a.period = 0;
	uint32_t n = usize < a.size ? usize : a.size;
	a.size = n;
	__builtin_memcpy(ua, &a, n);
	return 0;
}

long wt_shim_sched_syscall(long nr, const long *a)
{
	pid_t pid = (pid_t)a[0];
	struct wt_task *t;
	switch (nr) {
	case SYS_sched_setaffinity:
		return sched_setaffinity(pid, (size_t)a[1], (const cpu_set_t *)a[2]);
	case SYS_sched_getaffinity:
		/* The kernel's form: the bytes written, the rest untouched. */
		t = pid >= 0 ? wt_shim_task_of_id(pid) : NULL;
		if (t == &wt_shim_no_task)
			return sys_ret(-ESRCH);
		if (!t)
			break;
		return sys_ret(wt_aff_get(t, (size_t)a[1] > INT32_MAX ? INT32_MAX : (size_t)a[1],
					  (void *)a[2]));
	case SYS_sched_setscheduler:
		return sched_setscheduler(pid, (int)a[1], (const struct sched_param *)a[2]);
	case SYS_sched_getscheduler:
		return sched_getscheduler(pid);
	case SYS_sched_setparam:
		return sched_setparam(pid, (const struct sched_param *)a[1]);
	case SYS_sched_getparam:
		return sched_getparam(pid, (struct sched_param *)a[1]);
	case SYS_sched_rr_get_interval:
		return sched_rr_get_interval(pid, (struct timespec *)a[1]);
	case SYS_setpriority:
		return setpriority((__priority_which_t)a[0], (id_t)a[1], (int)a[2]);
	case SYS_getpriority:
		/* The kernel's form: 20 - nice, never negative. */
		t = a[0] == PRIO_PROCESS && (int)a[1] >= 0 ? wt_shim_task_of_id((pid_t)a[1]) : NULL;
		if (t == &wt_shim_no_task)
			return sys_ret(-ESRCH);
		if (!t)
			break;
		return 20 - wt_nice_get(t);
	case SYS_sched_setattr:
		if (!a[1] || pid < 0 || a[2])
			return sys_ret(-EINVAL);
		t = wt_shim_task_of_id(pid);
		if (t == &wt_shim_no_task)
			return sys_ret(-ESRCH);
		if (!t)
			break;
		return sys_ret(setattr(t, (const struct kattr *)a[1]));
	case SYS_sched_getattr:
		if (!a[1] || pid < 0 || a[3])
			return sys_ret(-EINVAL);
		t = wt_shim_task_of_id(pid);
		if (t == &wt_shim_no_task)
			return sys_ret(-ESRCH);
		if (!t)
			break;
		return sys_ret(getattr(t, (struct kattr *)a[1], (uint32_t)a[2]));
	}
	return sys_ret(wt_syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]));
}
