/*
 * prio.c — scheduling policy, real-time priority and niceness of tasks.
 *
 * The kernel keeps these per thread; under weft a thread is a task, and a
 * worker runs many tasks, so they live in the task (core/runtime.h: policy,
 * rtprio, nice, boost, eff, under rtq.lock) and never reach the worker:
 * every worker keeps the kernel-level policy and niceness the process
 * started with, and a task's SCHED_FIFO priority is not lent to the tasks
 * that run on its worker after it.  Among tasks weft honours them itself
 * (core/rtq.c): a runnable task with a real-time policy runs before every
 * SCHED_OTHER one, a higher priority first; SCHED_FIFO keeps its place when
 * preempted, SCHED_RR goes to the back of its list once its time slice
 * (the kernel's sched_rr_timeslice_ms) is used.  SCHED_BATCH and
 * SCHED_IDLE are recorded and read back, and scheduled as SCHED_OTHER;
 * niceness is recorded and read back, and not honoured among tasks.
 *
 * The answers are the kernel's, from the same checks in the same order
 * (sched_setscheduler(2), sched(7), setpriority(2)):
 *   EINVAL  a policy other than SCHED_OTHER, FIFO, RR, BATCH, IDLE (a
 *           SCHED_RESET_ON_FORK bit allowed); a priority outside 0..99;
 *           a real-time policy with priority 0 or another with one > 0;
 *   EPERM   without CAP_SYS_NICE in the caller's effective set: a switch to
 *           a real-time policy while RLIMIT_RTPRIO is 0, a priority above
 *           both the task's current one and RLIMIT_RTPRIO, leaving
 *           SCHED_IDLE when RLIMIT_NICE does not allow the task's nice,
 *           clearing SCHED_RESET_ON_FORK;
 *   EACCES  (setpriority) a nice below the current one that RLIMIT_NICE
 *           does not allow (20 - nice > the limit), without CAP_SYS_NICE.
 * The capability and the limits are the kernel's (capget, prlimit), read
 * again after every change weft sees ("the caller's privileges" below),
 * so a program that dropped the capability, or runs as a user, gets the
 * error a native call gets.  And, as the kernel's
 * real-time group scheduling does even for root: EPERM for a real-time
 * policy when the process's cgroup (v1 cpu controller) has no real-time
 * runtime (cpu.rt_runtime_us 0, with sched_rt_runtime_us not -1).
 *
 * The kernel does see a task's policy in one place: a wait in the kernel
 * on a futex other processes may share (wt_prio_kernel_lend) is made with
 * the worker thread at the task's real-time policy and priority, and the
 * worker's own put back after it, so that the kernel wakes such a futex's
 * waiters in priority order across processes and the woken one preempts.
 *
 * A task holding PTHREAD_PRIO_PROTECT mutexes runs at the highest of
 * their ceilings (wt_prio_protect, below): its priority is set as glibc
 * sets a native thread's, so the rules above apply to it.
 *
 * A new task inherits its creator's policy, priority, niceness and CPU
 * mask, with SCHED_RESET_ON_FORK's reset, as clone does; a
 * PTHREAD_EXPLICIT_SCHED attribute's policy and priority replace the
 * first two after the same checks (glibc sets them on the new thread and
 * pthread_create returns the error).
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "core/runtime.h"
#include "affinity.h"
#include "prio.h"
#include "core/proc.h"
#include "base/print.h"
#include "io/readfile.h"
#include "core/rtq.h"
#include "core/runq.h"
#include "base/slab.h"
#include "io/syscall.h"
#include "core/sysmon.h"
#include "core/timer.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif
#define CAP_NICE_BIT 23 /* CAP_SYS_NICE */

static bool rt_policy(int pol) { return pol == SCHED_FIFO || pol == SCHED_RR; }

static bool valid_policy(int pol)
{
	return pol == SCHED_OTHER || pol == SCHED_FIFO || pol == SCHED_RR || pol == SCHED_BATCH ||
	       pol == SCHED_IDLE;
}

/* ---- the caller's privileges ----
 * The kernel reads CAP_SYS_NICE and RLIMIT_RTPRIO / RLIMIT_NICE inside each
 * change; weft has to ask for them (capget, prlimit: two system calls
 * where the native change is one).  It keeps what it read until the
 * process changes its credentials or limits through a call weft sees
 * (wt_prio_creds_changed: the set*id family, capset, prctl, setrlimit,
 * prlimit, and their syscall() forms), and for at most CREDS_RECHECK_NS
 * (a prlimit on this process by another one, or a raw system call weft
 * does not see, takes effect within that).  A program that changes
 * priorities in its lock loop (stress-ng's mutex stressor) then makes
 * none.  Each value is read and published on its own: a reader racing a
 * refresh sees an older or a newer reading, each one the kernel gave. */
#define CREDS_RECHECK_NS 1000000000
static _Atomic uint64_t creds_gen = 1; /* [atomic] bumped by every change */
struct cred_cache {
	_Atomic uint64_t gen; /* [atomic] creds_gen when read; 0 never */
	_Atomic int64_t at;   /* [atomic] when read */
	_Atomic unsigned long val;
};
static struct cred_cache cap_cache, rtprio_cache, nice_cache;

void wt_prio_creds_changed(void)
{
	atomic_fetch_add(&creds_gen, 1);
}

static bool cached(struct cred_cache *c, unsigned long *out)
{
	uint64_t g = atomic_load_explicit(&c->gen, memory_order_acquire);
	if (g != atomic_load_explicit(&creds_gen, memory_order_relaxed) ||
	    wt_nanotime() - atomic_load_explicit(&c->at, memory_order_relaxed) >= CREDS_RECHECK_NS)
		return false;
	*out = atomic_load_explicit(&c->val, memory_order_relaxed);
	return true;
}

static void keep(struct cred_cache *c, uint64_t gen, unsigned long v)
{
	atomic_store_explicit(&c->val, v, memory_order_relaxed);
	atomic_store_explicit(&c->at, wt_nanotime(), memory_order_relaxed);
	/* Release: pairs with cached()'s acquire, which then reads v. */
	atomic_store_explicit(&c->gen, gen, memory_order_release);
}

static bool cap_sys_nice(void)
{
	unsigned long v;
	if (cached(&cap_cache, &v))
		return v;
	uint64_t gen = atomic_load(&creds_gen); /* before the read: a change meanwhile re-reads */
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	if (wt_syscall6(SYS_capget, (long)&h, (long)d, 0, 0, 0, 0) < 0)
		return false;
	v = (d[0].effective & (1u << CAP_NICE_BIT)) != 0;
	keep(&cap_cache, gen, v);
	return v;
}

static unsigned long rlim_cur(int res)
{
	struct cred_cache *c = res == RLIMIT_RTPRIO ? &rtprio_cache : &nice_cache;
	unsigned long v;
	if (cached(c, &v))
		return v;
	uint64_t gen = atomic_load(&creds_gen);
	struct rlimit r;
	if (wt_syscall6(SYS_prlimit64, 0, res, 0, (long)&r, 0, 0) < 0)
		return 0;
	keep(c, gen, r.rlim_cur);
	return r.rlim_cur;
}

static bool can_nice(int nice)
{
	return (unsigned long)(20 - nice) <= rlim_cur(RLIMIT_NICE) || cap_sys_nice();
}

static long read_long(const char *path)
{
	char buf[32];
	if (wt_read_file(path, buf, sizeof buf) <= 0)
		return LONG_MIN;
	long v = 0, sign = 1;
	const char *s = buf;
	if (*s == '-') {
		sign = -1;
		s++;
	}
	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (*s - '0');
	return sign * v;
}

/* The caller's cgroup v1 cpu controller has no real-time runtime. */
static bool rt_group_zero(void)
{
	if (read_long("/proc/sys/kernel/sched_rt_runtime_us") < 0)
		return false;
	char cg[1024], path[1200];
	if (wt_read_file("/proc/self/cgroup", cg, sizeof cg) <= 0)
		return false;
	const char *dir = NULL, *end = NULL;
	for (char *l = cg; *l && !dir;) {
		char *nl = strchr(l, '\n');
		char *c1 = strchr(l, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (c2 && (!nl || c2 < nl)) {
			/* The controller list, comma-separated, holds "cpu"? */
			for (char *c = c1 + 1; c < c2;) {
				char *e = c;
				while (e < c2 && *e != ',')
					e++;
				if (e - c == 3 && !strncmp(c, "cpu", 3)) {
					dir = c2 + 1;
					end = nl ? nl : c2 + strlen(c2);
				}
				c = e + 1;
			}
		}
		if (!nl)
			break;
		l = nl + 1;
	}
	if (!dir)
		return false;
	static const char *const mnt[] = { "/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu" };
	for (int i = 0; i < 2; i++) {
		size_t n = strlen(mnt[i]), d = (size_t)(end - dir);
		if (n + d + 24 > sizeof path)
			return false;
		memcpy(path, mnt[i], n);
		memcpy(path + n, dir, d);
		strcpy(path + n + d, "/cpu.rt_runtime_us");
		long v = read_long(path);
		if (v == LONG_MIN) { /* a cgroup namespace: its root is the mount's */
			strcpy(path + n, "/cpu.rt_runtime_us");
			v = read_long(path);
		}
		if (v != LONG_MIN)
			return v == 0;
	}
	return false;
}

/* rt_group_zero's answer, read again at most once a second: it costs three
 * file reads (about 30 µs here), and a program that changes priorities in
 * its lock loop (stress-ng's mutex stressor: 12x slower with a read per
 * change) would pay them on a path the kernel answers in one system call.
 * A cgroup's real-time runtime, or the process's cgroup, changed by an
 * administrator takes effect within that second. */
#define RT_GROUP_RECHECK_NS 1000000000
static _Atomic int64_t rt_group_at; /* [atomic] when read last; 0 never */
static _Atomic bool rt_group_was_zero; /* [atomic] what it said */

static bool rt_group_zero_cached(void)
{
	int64_t now = wt_nanotime();
	int64_t at = atomic_load_explicit(&rt_group_at, memory_order_acquire);
	if (at && now - at < RT_GROUP_RECHECK_NS)
		return atomic_load_explicit(&rt_group_was_zero, memory_order_relaxed);
	bool z = rt_group_zero();
	atomic_store_explicit(&rt_group_was_zero, z, memory_order_relaxed);
	/* Release: pairs with the acquire above, which then reads z. */
	atomic_store_explicit(&rt_group_at, now ? now : 1, memory_order_release);
	return z;
}

/* The kernel's checks of a change from (curpol, curprio, nice) to
 * (pol, prio), pol with its SCHED_RESET_ON_FORK bit.  0, -EINVAL, -EPERM. */
static int check(int curpol, int curprio, int nice, int pol, int prio)
{
	int base = pol & ~SCHED_RESET_ON_FORK;
	if (!valid_policy(base) || (unsigned)prio > WT_RTPRIO_MAX || rt_policy(base) != (prio != 0))
		return -EINVAL;
	int curbase = curpol & ~SCHED_RESET_ON_FORK;
	bool priv = false;
	if (rt_policy(base)) {
		/* The limit read only where it decides: a lowering within a
		 * real-time policy (a priority-protect unlock) makes no call. */
		bool change = base != curbase, raise = (unsigned long)prio > (unsigned long)curprio;
		unsigned long rl = change || raise ? rlim_cur(RLIMIT_RTPRIO) : 0;
		if (change && rl == 0)
			priv = true;
		if (raise && (unsigned long)prio > rl)
			priv = true;
	}
	if (curbase == SCHED_IDLE && base != SCHED_IDLE && (unsigned long)(20 - nice) > rlim_cur(RLIMIT_NICE))
		priv = true;
	if ((curpol & SCHED_RESET_ON_FORK) && !(pol & SCHED_RESET_ON_FORK))
		priv = true;
	if (priv && !cap_sys_nice())
		return -EPERM;
	if (rt_policy(base) && rt_group_zero_cached())
		return -EPERM;
	return 0;
}

bool wt_prio_update_locked(struct wt_task *t)
{
	int old = atomic_load_explicit(&t->eff, memory_order_relaxed);
	int own = atomic_load_explicit(&t->rtprio, memory_order_relaxed);
	int boost = atomic_load_explicit(&t->boost, memory_order_relaxed);
	int eff = own > boost ? own : boost;
	atomic_store_explicit(&t->eff, eff, memory_order_relaxed);
	if (!old && eff && !t->rtq_at &&
	    atomic_load_explicit(&t->state, memory_order_relaxed) == WT_RUNNABLE)
		atomic_fetch_add_explicit(&wt_rtq_stray, 1, memory_order_relaxed);
	return wt_rtq_moved(t, old);
}

void wt_prio_requeue_other(struct wt_task *t)
{
	wt_lock(&wt_sched.lock);
	wt_globrunq_put(t);
	wt_unlock(&wt_sched.lock);
	wt_wakep();
}

_Atomic bool wt_prio_rt_seen;

/* The first real-time policy: what weft cannot do, once. */
static void note_rt(int pol)
{
	static _Atomic bool said;
	if (!rt_policy(pol & ~SCHED_RESET_ON_FORK))
		return;
	if (!atomic_load_explicit(&wt_prio_rt_seen, memory_order_relaxed) &&
	    !atomic_exchange(&wt_prio_rt_seen, true))
		wt_sysmon_shorten(); /* its 1 ms look from now on */
	if (!atomic_load_explicit(&said, memory_order_relaxed) && !atomic_exchange(&said, true))
		wt_print("weft: real-time policies order this program's threads among themselves; "
			 "the kernel sees SCHED_OTHER threads\n");
}

/* wt_prio_set's work, rtq.lock held: *other as wt_prio_update_locked
 * returns it. */
static int set_locked(struct wt_task *t, int policy, int prio, bool *other)
{
	int cur = atomic_load_explicit(&t->policy, memory_order_relaxed);
	if (policy == WT_PRIO_KEEP)
		policy = cur; /* sched_setparam: the policy and its reset bit stay */
	int r = check(cur, atomic_load_explicit(&t->rtprio, memory_order_relaxed),
		      atomic_load_explicit(&t->nice, memory_order_relaxed), policy, prio);
	if (r == 0) {
		note_rt(policy);
		atomic_store_explicit(&t->policy, policy, memory_order_relaxed);
		atomic_store_explicit(&t->rtprio, prio, memory_order_relaxed);
		*other = wt_prio_update_locked(t);
	}
	return r;
}

int wt_prio_set(struct wt_task *t, int policy, const struct sched_param *sp)
{
	if (!sp)
		return -EINVAL;
	bool other = false;
	wt_rtq_lock();
	int r = set_locked(t, policy, sp->sched_priority, &other);
	wt_rtq_unlock();
	if (other)
		wt_prio_requeue_other(t);
	if (r == 0)
		wt_prio_point();
	return r;
}

void wt_prio_get(struct wt_task *t, int *policy, int *prio)
{
	*policy = atomic_load_explicit(&t->policy, memory_order_relaxed);
	*prio = atomic_load_explicit(&t->rtprio, memory_order_relaxed);
}

/* Sets a WT_GL_* flag of t's after the value it stands for.  [rtq.lock];
 * a release store: wt_prio_attr reads the flags without the lock. */
static void gl_flag(struct wt_task *t, int f)
{
	__atomic_store_n(&t->gl_flags, t->gl_flags | f, __ATOMIC_RELEASE);
}

/* glibc's cached copy, filled from t's values where it is not set yet.
 * [rtq.lock] */
static void gl_fill_locked(struct wt_task *t)
{
	if (!(t->gl_flags & WT_GL_PRIO)) {
		t->gl_prio = atomic_load_explicit(&t->rtprio, memory_order_relaxed);
		gl_flag(t, WT_GL_PRIO);
	}
	if (!(t->gl_flags & WT_GL_POLICY)) {
		t->gl_policy = atomic_load_explicit(&t->policy, memory_order_relaxed);
		gl_flag(t, WT_GL_POLICY);
	}
}

int wt_prio_pthread_set(struct wt_task *t, int policy, const struct sched_param *sp)
{
	if (!sp)
		return -EINVAL;
	int prio = sp->sched_priority;
	bool other = false;
	wt_rtq_lock();
	/* A task holding priority-protect mutexes keeps their highest ceiling
	 * when that is above the priority asked for; the cache says what was
	 * asked (glibc's). */
	int run = t->pp_max > prio ? t->pp_max : prio;
	int r = set_locked(t, policy, run, &other);
	if (r == 0) {
		if (policy != WT_PRIO_KEEP) {
			t->gl_policy = policy;
			gl_flag(t, WT_GL_POLICY);
		}
		t->gl_prio = prio;
		gl_flag(t, WT_GL_PRIO);
	}
	wt_rtq_unlock();
	if (other)
		wt_prio_requeue_other(t);
	if (r == 0)
		wt_prio_point();
	return r;
}

void wt_prio_pthread_get(struct wt_task *t, int *policy, int *prio)
{
	wt_rtq_lock();
	gl_fill_locked(t);
	*policy = t->gl_policy;
	*prio = t->gl_prio;
	wt_rtq_unlock();
}

/* ---- priority-protect mutexes ----
 * glibc counts, per thread, the PTHREAD_PRIO_PROTECT mutexes it holds by
 * ceiling, and whenever the highest ceiling changes sets the thread's
 * kernel priority to the greater of it and the priority its descriptor
 * caches (sched_setscheduler with the cached policy): the kernel's own
 * checks apply, so a SCHED_OTHER thread's lock fails with EINVAL, and
 * pthread_getschedparam, which reads the cache, shows the priority
 * without the ceiling while sched_getparam shows it with.  The same here,
 * on the task: its rtprio (what sched_getparam reads, what the real-time
 * queue and the parking lot order by) is set, and gl_prio is the cache. */
static struct wt_slab pp_slab = WT_SLAB_INIT(sizeof(unsigned) * WT_RTPRIO_MAX);

int wt_prio_current(struct wt_task *t)
{
	if (!t) {
		struct sched_param sp = { 0 };
		if (wt_syscall6(SYS_sched_getparam, 0, (long)&sp, 0, 0, 0, 0) < 0)
			return -1;
		return sp.sched_priority;
	}
	int pol, prio;
	wt_prio_pthread_get(t, &pol, &prio);
	return prio;
}

int wt_prio_protect(struct wt_task *t, int prev, int next)
{
	if (!t)
		return 0;
	unsigned *map = t->pp_map;
	if (!map) {
		if (!(map = wt_slab_alloc(&pp_slab)))
			return -ENOMEM;
		t->pp_map = map;
	}
	int max = t->pp_max, nmax = max;
	if (next > 0) {
		if (map[next - 1] + 1 == 0)
			return -EAGAIN;
		map[next - 1]++;
		if (next > max)
			nmax = next;
	}
	if (prev > 0 && --map[prev - 1] == 0 && max == prev && prev > next) {
		int i = prev - 1;
		while (i > 0 && !map[i - 1])
			i--;
		nmax = i;
	}
	if (nmax == max)
		return 0;
	bool other = false;
	int r = 0;
	wt_rtq_lock();
	/* Recorded before the change, which may fail: glibc's order (a later
	 * lock of the same ceiling then changes nothing and succeeds). */
	t->pp_max = nmax;
	gl_fill_locked(t);
	int prio = t->gl_prio;
	if (prio < nmax || prio < max)
		r = set_locked(t, t->gl_policy, prio < nmax ? nmax : prio, &other);
	wt_rtq_unlock();
	if (other)
		wt_prio_requeue_other(t);
	if (r == 0)
		wt_prio_point();
	return r;
}

void wt_prio_release(struct wt_task *t)
{
	if (t->pp_map) {
		wt_slab_free(&pp_slab, t->pp_map);
		t->pp_map = NULL;
	}
}

int wt_nice_set(struct wt_task *t, int nice)
{
	if (nice < -20)
		nice = -20;
	if (nice > 19)
		nice = 19;
	if (nice < atomic_load_explicit(&t->nice, memory_order_relaxed) && !can_nice(nice))
		return -EACCES;
	atomic_store_explicit(&t->nice, nice, memory_order_relaxed);
	return 0;
}

int wt_nice_get(struct wt_task *t)
{
	return atomic_load_explicit(&t->nice, memory_order_relaxed);
}

int64_t wt_prio_rr_ns(void)
{
	static _Atomic int64_t ns; /* [atomic, relaxed] read once */
	int64_t v = atomic_load_explicit(&ns, memory_order_relaxed);
	if (v)
		return v;
	char buf[32];
	long ms = 0;
	if (wt_read_file("/proc/sys/kernel/sched_rr_timeslice_ms", buf, sizeof buf) > 0)
		for (char *s = buf; *s >= '0' && *s <= '9'; s++)
			ms = ms * 10 + (*s - '0');
	v = (ms > 0 ? ms : 100) * 1000000ll;
	atomic_store_explicit(&ns, v, memory_order_relaxed);
	return v;
}

int wt_prio_rr_interval(struct wt_task *t, struct timespec *ts)
{
	int pol = atomic_load_explicit(&t->policy, memory_order_relaxed) & ~SCHED_RESET_ON_FORK;
	if (pol == SCHED_FIFO) {
		ts->tv_sec = ts->tv_nsec = 0;
		return 0;
	}
	if (pol == SCHED_RR) {
		int64_t ns = wt_prio_rr_ns();
		ts->tv_sec = ns / 1000000000;
		ts->tv_nsec = ns % 1000000000;
		return 0;
	}
	/* A fair policy: the kernel's slice for a SCHED_OTHER thread, its worker. */
	return (int)wt_syscall6(SYS_sched_rr_get_interval, 0, (long)ts, 0, 0, 0, 0);
}

/* The calling thread's own values, from the kernel. */
static void kernel_own(int *pol, int *prio, int *nice)
{
	struct sched_param sp = { 0 };
	long p = wt_syscall6(SYS_sched_getscheduler, 0, 0, 0, 0, 0, 0);
	*pol = p < 0 ? SCHED_OTHER : (int)p;
	*prio = wt_syscall6(SYS_sched_getparam, 0, (long)&sp, 0, 0, 0, 0) < 0 ? 0 : sp.sched_priority;
	long n = wt_syscall6(SYS_getpriority, PRIO_PROCESS, 0, 0, 0, 0, 0);
	*nice = n < 0 ? 0 : 20 - (int)n;
}

void wt_prio_init_main(struct wt_task *t)
{
	int pol, prio, nice;
	kernel_own(&pol, &prio, &nice);
	atomic_store_explicit(&t->policy, pol, memory_order_relaxed);
	atomic_store_explicit(&t->rtprio, rt_policy(pol & ~SCHED_RESET_ON_FORK) ? prio : 0,
			      memory_order_relaxed);
	atomic_store_explicit(&t->nice, nice, memory_order_relaxed);
	atomic_store_explicit(&t->eff, atomic_load_explicit(&t->rtprio, memory_order_relaxed),
			      memory_order_relaxed);
	if (atomic_load_explicit(&t->rtprio, memory_order_relaxed))
		atomic_store_explicit(&wt_prio_rt_seen, true, memory_order_relaxed);
}

/* glibc's struct pthread_attr: the flags word after the sched_param and
 * the policy, and its bits for the scheduling attributes. */
#define ATTR_FLAGS(a) (((const int *)(const void *)(a))[2])
#define ATTR_FLAG_NOTINHERITSCHED 0x2
#define ATTR_FLAG_SCHED_SET 0x20
#define ATTR_FLAG_POLICY_SET 0x40

int wt_prio_attr(const pthread_attr_t *attr, struct wt_task *cur, struct wt_prio_init *out)
{
	int pol, prio, nice;
	out->gl_flags = 0;
	out->head = false;
	if (cur) {
		wt_prio_get(cur, &pol, &prio);
		nice = wt_nice_get(cur);
		out->aff_set = wt_aff_own(cur, out->aff);
		/* glibc copies its creator's cached values.  Most tasks never
		 * set them: no flag, no lock (a setter's flags come last). */
		out->gl_policy = out->gl_prio = 0;
		if (__atomic_load_n(&cur->gl_flags, __ATOMIC_ACQUIRE)) {
			wt_rtq_lock();
			out->gl_policy = cur->gl_policy;
			out->gl_prio = cur->gl_prio;
			out->gl_flags = cur->gl_flags;
			wt_rtq_unlock();
		}
	} else {
		kernel_own(&pol, &prio, &nice);
		out->aff_set = false;
	}
	int crpol = pol, crprio = prio; /* the creator's, for glibc's defaults */
	/* clone's SCHED_RESET_ON_FORK: a real-time policy becomes SCHED_OTHER,
	 * a negative nice 0, and the bit is not inherited. */
	if (pol & SCHED_RESET_ON_FORK) {
		pol &= ~SCHED_RESET_ON_FORK;
		if (rt_policy(pol)) {
			pol = SCHED_OTHER;
			prio = 0;
			nice = 0;
		} else if (nice < 0) {
			nice = 0;
		}
	}
	out->policy = pol;
	out->rtprio = rt_policy(pol) ? prio : 0;
	out->nice = nice;
	if (!attr)
		return 0;
	int fl = ATTR_FLAGS(attr);
	if ((fl & ATTR_FLAG_NOTINHERITSCHED) && (fl & (ATTR_FLAG_SCHED_SET | ATTR_FLAG_POLICY_SET))) {
		/* glibc's: the attribute's values into the cache, the
		 * creator's own for what it leaves unset, and those set on
		 * the new thread. */
		struct sched_param sp;
		if (fl & ATTR_FLAG_POLICY_SET)
			pthread_attr_getschedpolicy(attr, &out->gl_policy);
		if (fl & ATTR_FLAG_SCHED_SET) {
			pthread_attr_getschedparam(attr, &sp);
			out->gl_prio = sp.sched_priority;
		}
		out->gl_flags |= fl & (ATTR_FLAG_SCHED_SET | ATTR_FLAG_POLICY_SET);
		if (!(out->gl_flags & WT_GL_POLICY))
			out->gl_policy = crpol;
		if (!(out->gl_flags & WT_GL_PRIO))
			out->gl_prio = rt_policy(crpol & ~SCHED_RESET_ON_FORK) ? crprio : 0;
		out->gl_flags |= WT_GL_POLICY | WT_GL_PRIO;
		int npol = out->gl_policy, nprio = out->gl_prio;
		int r = check(out->policy, out->rtprio, out->nice, npol, nprio);
		if (r)
			return r;
		out->head = rt_policy(npol & ~SCHED_RESET_ON_FORK) && nprio < out->rtprio;
		note_rt(npol);
		out->policy = npol;
		out->rtprio = nprio;
	}
	uint64_t m[16];
	if (pthread_attr_getaffinity_np(attr, sizeof m, (cpu_set_t *)m) == 0) {
		bool all = true; /* glibc's answer when the attribute has no CPU set */
		for (int i = 0; i < 16; i++)
			all = all && m[i] == ~0ull;
		if (!all) {
			int r = wt_aff_check(m, out->aff);
			if (r)
				return r;
			out->aff_set = true;
		}
	}
	return 0;
}

void wt_prio_start(struct wt_task *t, const struct wt_prio_init *in)
{
	atomic_store_explicit(&t->policy, in->policy, memory_order_relaxed);
	atomic_store_explicit(&t->rtprio, in->rtprio, memory_order_relaxed);
	atomic_store_explicit(&t->nice, in->nice, memory_order_relaxed);
	atomic_store_explicit(&t->eff, in->rtprio, memory_order_relaxed);
	t->gl_policy = in->gl_policy;
	t->gl_prio = in->gl_prio;
	t->gl_flags = in->gl_flags;
	if (in->aff_set && !wt_aff_start(t, in->aff))
		wt_print("weft: no memory for a new thread's CPU mask; it has the process's\n");
}

struct wt_kprio wt_prio_kernel_lend_slow(struct wt_task *t)
{
	struct wt_kprio k = { -1, 0 };
	int pol = atomic_load_explicit(&t->policy, memory_order_relaxed) & ~SCHED_RESET_ON_FORK;
	struct sched_param sp = { atomic_load_explicit(&t->rtprio, memory_order_relaxed) };
	if (!rt_policy(pol) || sp.sched_priority <= 0)
		return k; /* changed meanwhile by another thread */
	long kp = wt_syscall6(SYS_sched_getscheduler, 0, 0, 0, 0, 0, 0);
	struct sched_param ksp = { 0 };
	if (kp < 0 || wt_syscall6(SYS_sched_getparam, 0, (long)&ksp, 0, 0, 0, 0) < 0)
		return k;
	/* The worker's SCHED_RESET_ON_FORK stays: clearing it needs the
	 * privilege the task's own change did not. */
	if (wt_syscall6(SYS_sched_setscheduler, 0, pol | (kp & SCHED_RESET_ON_FORK), (long)&sp,
			0, 0, 0) < 0)
		return k;
	k.policy = (int)kp;
	k.prio = ksp.sched_priority;
	return k;
}

void wt_prio_kernel_restore_slow(struct wt_kprio k)
{
	struct sched_param sp = { k.prio };
	wt_syscall6(SYS_sched_setscheduler, 0, k.policy, (long)&sp, 0, 0, 0);
}

void wt_prio_point_slow(void)
{
	struct wt_task *t = wt_cur();
	if (!t || t->m->insyscall || !t->m->p ||
	    atomic_load_explicit(&t->m->implicit, memory_order_relaxed))
		return;
	if (atomic_load_explicit(&wt_rtq_top, memory_order_relaxed) >
	    atomic_load_explicit(&t->eff, memory_order_relaxed))
		wt_preempt_yield();
}
