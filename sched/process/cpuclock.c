/*
 * cpuclock.c — a task's CPU time, and the ids that name it.
 *
 * The kernel keeps a CPU clock per OS thread, and a worker runs many tasks,
 * so the worker's clock is not any task's.  A task's time is the worker's
 * CPU time while it ran.  The kernel serves a thread's CPU clock only by a
 * system call (the vDSO does not: ~360 ns here, more than three hand-offs),
 * so a switch does not read it.  Instead each worker keeps a window: its
 * CPU clock and the monotonic clock (vDSO, ~20 ns) when the window opened.
 * At a switch the run that ends is timed by the monotonic clock:
 *   - a short run (the window is younger than WINDOW_NS) is charged its
 *     wall time, added up in the window's acct_short;
 *   - a run that ends an older window reads the worker's CPU clock once and
 *     is charged what the window used beyond its short runs, at most its
 *     own wall time; a new window opens.
 * A run in which the worker slept in a system call or the kernel
 * descheduled it is long, so it ends its window and is charged CPU time,
 * not wall time.  The error is bounded by one window per window: time on
 * g0 between tasks (a switch in from g0 opens a new window when the old one
 * is older than WINDOW_NS) and a short run the kernel interrupted.  One
 * system call per WINDOW_NS of a worker's life at most.
 *
 * The counting starts when the program first reads a thread CPU clock
 * (clock_gettime on CLOCK_THREAD_CPUTIME_ID or on a clock id from
 * pthread_getcpuclockid, getrusage(RUSAGE_THREAD)); until then a switch
 * pays one load (wt_cpu_switch).  Time a task ran before that point is not
 * counted: a new thread starts at zero, one that existed counts from then.
 *
 * Reading.  A task reading its own clock settles: it reads its worker's
 * CPU clock, is charged the window's time beyond the short runs, and opens
 * a new window, so its own readings are exact and never go back.  A reader
 * of another task holds sched.alllock (the task is not freed) and retries
 * while its cpu_seq moves; a running task's time is cpu_ns plus its
 * worker's CPU clock now beyond cpu_base, at most the wall time since
 * cpu_mark: what its switch-out will charge at least, so readings never go
 * back either.  weft top (observe/dump.c) reads every task's time so, without
 * alllock: it checks each task's id after the read instead.  Its first
 * request starts the counting as a first clock read does: the switch
 * path then pays the window's clock reads (at most 0.4% of a worker)
 * and nothing else; no system call is added per switch.
 *
 * Ids.  gettid gives main the process id, as natively (so `gettid() ==
 * getpid()` still finds the main thread; in a fork child, the task that
 * forked, the child's one thread), and every other task
 * WT_TASK_ID_BASE + its number (mod 2^27): above the kernel's largest pid
 * (2^22), so no OS thread has it, and small enough for glibc's encoding of
 * a thread CPU clock id (~id << 3 | per-thread | sched), which keeps 28
 * bits of it.  A task's clock id is that encoding of its id; the
 * per-thread clock of the process id is main's.  (The TCB's tid, which
 * glibc writes as owner into mutexes, is another number, core/task.c.)
 */
#include <errno.h>
#include <sys/syscall.h>

#include "core/runtime.h"
#include "io/blocked.h"
#include "cpuclock.h"
#include "signal/sighandler.h"
#include "signal/sigtask.h"
#include "core/start.h"
#include "core/task.h"
#include "stack/tls.h"
#include "core/timer.h"

#define WINDOW_NS 100000 /* 100 us: a CPU clock read costs at most 0.4% of a worker */

_Atomic bool wt_cpuacct_on;
_Atomic bool wt_cpuacct_kick;

/* The calling OS thread's CPU clock in ns.  Context: any. */
static int64_t own_cpu(void)
{
	struct timespec ts;
	if (wt_syscall6(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, (long)&ts, 0, 0, 0, 0) < 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The writer's side of cpu_seq: begin makes it odd, end even again. */
static void seq_begin(struct wt_task *t)
{
	uint32_t s = atomic_load_explicit(&t->cpu_seq, memory_order_relaxed);
	atomic_store_explicit(&t->cpu_seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release); /* pairs with the reader's acquire fence */
}

static void seq_end(struct wt_task *t)
{
	uint32_t s = atomic_load_explicit(&t->cpu_seq, memory_order_relaxed);
	atomic_store_explicit(&t->cpu_seq, s + 1, memory_order_release);
}

#define LD(f) atomic_load_explicit(&(f), memory_order_relaxed)
#define ST(f, v) atomic_store_explicit(&(f), (v), memory_order_relaxed)

static int64_t clamp(int64_t v, int64_t hi)
{
	return v < 0 ? 0 : v > hi ? hi : v;
}

/* Opens a new window on m at (cpu, now). */
static void window_open(struct wt_m *m, int64_t cpu, int64_t now)
{
	m->acct_valid = true;
	m->acct_cpu0 = cpu;
	m->acct_mono0 = now;
	m->acct_short = 0;
}

/* t, running on m, is charged up to now (ending the window when it is
 * old, or when settle says so) and, if it goes on running, marked again.
 * Context: m; t is the running task or the one switching out. */
static void charge(struct wt_m *m, struct wt_task *t, int64_t now, bool settle, bool on)
{
	int64_t mark = LD(t->cpu_mark);
	int64_t ran = mark ? now - mark : 0, add = 0;
	if (mark && m->acct_valid && !settle && now - m->acct_mono0 <= WINDOW_NS) {
		add = clamp(ran, ran);
		m->acct_short += add;
	} else {
		int64_t cpu = own_cpu();
		if (mark && m->acct_valid)
			add = clamp(cpu - m->acct_cpu0 - m->acct_short, ran);
		window_open(m, cpu, now);
	}
	seq_begin(t);
	ST(t->cpu_ns, LD(t->cpu_ns) + add);
	ST(t->cpu_mark, on ? now : 0);
	ST(t->cpu_base, m->acct_cpu0 + m->acct_short);
	seq_end(t);
}

/* Context: the worker, at a switch (wt_cpu_switch); does not block. */
void wt_cpu_switch_slow(struct wt_m *m, struct wt_task *out, struct wt_task *in)
{
	int64_t now = wt_nanotime();
	if (out)
		charge(m, out, now, false, false);
	if (!in)
		return;
	/* From g0 into an old window (the worker slept or looked for work):
	 * that time is no task's. */
	if (!m->acct_valid || (!out && now - m->acct_mono0 > WINDOW_NS))
		window_open(m, own_cpu(), now);
	seq_begin(in);
	ST(in->cpu_mark, now);
	ST(in->cpu_base, m->acct_cpu0 + m->acct_short);
	seq_end(in);
}

/* Context: a task (the caller starts its own count), or a thread weft did
 * not create. */
void wt_cpu_acct_start(void)
{
	if (atomic_load_explicit(&wt_cpuacct_on, memory_order_relaxed))
		return;
	struct wt_task *t = wt_cur();
	if (t && !LD(t->cpu_mark)) {
		int64_t now = wt_nanotime();
		window_open(t->m, own_cpu(), now);
		seq_begin(t);
		ST(t->cpu_mark, now);
		ST(t->cpu_base, t->m->acct_cpu0);
		seq_end(t);
	}
	atomic_store_explicit(&wt_cpuacct_on, true, memory_order_relaxed);
}

/* Another task's time; the caller holds sched.alllock, or checks the id
 * of t afterwards (weft top's list, observe/dump.c). */
int64_t wt_cpu_task_ns(struct wt_task *t)
{
	for (;;) {
		uint32_t s = atomic_load_explicit(&t->cpu_seq, memory_order_acquire);
		if (s & 1)
			continue;
		int64_t ns = LD(t->cpu_ns), mark = LD(t->cpu_mark), base = LD(t->cpu_base);
		if (mark) {
			struct wt_m *m = __atomic_load_n(&t->m, __ATOMIC_RELAXED);
			int64_t cpu = m ? wt_thread_cpu_ns(m->ostid) : -1;
			if (cpu >= 0)
				ns += clamp(cpu - base, wt_nanotime() - mark);
		}
		atomic_thread_fence(memory_order_acquire); /* pairs with seq_begin's fence */
		if (atomic_load_explicit(&t->cpu_seq, memory_order_relaxed) == s)
			return ns;
	}
}

int64_t wt_cpu_self_ns(void)
{
	wt_cpu_acct_start();
	struct wt_task *t = wt_cur();
	charge(t->m, t, wt_nanotime(), true, true);
	return LD(t->cpu_ns);
}

/* The process id, asked once (a fork child asks again). */
static _Atomic int pid_cache;

static int self_pid(void)
{
	int pid = atomic_load_explicit(&pid_cache, memory_order_relaxed);
	if (!pid) {
		pid = (int)wt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
		atomic_store_explicit(&pid_cache, pid, memory_order_relaxed);
	}
	return pid;
}

/* The task whose id is the process id: main, or in a fork child the task
 * that forked (the child's one thread, whose tid natively is its pid).
 * [written by the fork child alone; read relaxed] */
static struct wt_task *_Atomic pid_task;

static const struct wt_task *pid_owner(void)
{
	const struct wt_task *t = atomic_load_explicit(&pid_task, memory_order_relaxed);
	return t ? t : wt_main_task;
}

int wt_task_kernel_id(const struct wt_task *t)
{
	if (t == pid_owner())
		return self_pid();
	return WT_TASK_ID_BASE | (int)(t->id & (WT_TASK_ID_BASE - 1));
}

clockid_t wt_cpuclock_id(const struct wt_task *t)
{
	/* ~tid << 3 | CPUCLOCK_PERTHREAD_MASK (4) | CPUCLOCK_SCHED (2) */
	return (clockid_t)((~(unsigned)wt_task_kernel_id(t) << 3) | 6);
}

struct wt_task *wt_task_by_kernel_id_locked(int tid)
{
	const struct wt_task *owner = pid_owner();
	if (owner && tid == self_pid())
		return (struct wt_task *)owner;
	if (!wt_is_task_id(tid))
		return NULL;
	for (struct wt_task *t = wt_sched.alltasks; t; t = t->alllink)
		if (t != owner && wt_task_kernel_id(t) == tid)
			return t;
	return NULL;
}

int wt_cpuclock_read(clockid_t clk, int64_t *ns)
{
	if (clk >= 0 || !(clk & 4))
		return 0; /* not a per-thread CPU clock */
	int tid = (int)~(clk >> 3); /* the kernel's CPUCLOCK_PID */
	if (tid == 0 && (clk & 3) != 3 && wt_cur()) {
		*ns = wt_cpu_self_ns(); /* the caller's own, as the kernel reads pid 0 */
		return 1;
	}
	if (!wt_is_task_id(tid) && (!pid_owner() || tid != self_pid()))
		return 0; /* a kernel thread's: a worker's or one weft did not make */
	if ((clk & 3) == 3)
		return -EINVAL; /* no such clock type, as the kernel says */
	struct wt_task *self = wt_cur();
	if (self && tid == wt_task_kernel_id(self)) {
		*ns = wt_cpu_self_ns();
		return 1;
	}
	wt_cpu_acct_start();
	wt_lock(&wt_sched.alllock);
	struct wt_task *t = wt_task_by_kernel_id_locked(tid);
	if (t && !wt_task_dead(t))
		*ns = wt_cpu_task_ns(t);
	wt_unlock(&wt_sched.alllock);
	return t && !wt_task_dead(t) ? 1 : -EINVAL;
}

void wt_cpu_fork_child(struct wt_task *self)
{
	atomic_store_explicit(&pid_cache, 0, memory_order_relaxed);
	if (!self)
		return;
	atomic_store_explicit(&pid_task, self, memory_order_relaxed);
	/* The child's thread has a new CPU clock: its window starts now. */
	if (LD(self->cpu_mark)) {
		int64_t now = wt_nanotime();
		window_open(self->m, own_cpu(), now);
		seq_begin(self);
		ST(self->cpu_mark, now);
		ST(self->cpu_base, self->m->acct_cpu0);
		seq_end(self);
	} else if (self->m) {
		self->m->acct_valid = false;
	}
}

int wt_tid_kill(int tgid, int tid, int sig, const siginfo_t *si)
{
	if (!wt_runtime_on() || tid <= 0)
		return 1;
	int pid = self_pid();
	if (tid != pid && !wt_is_task_id(tid))
		return 1; /* a kernel thread's id */
	if (tgid != -1 && tgid != pid)
		return 1; /* another process: the kernel says ESRCH */
	wt_lock(&wt_sched.alllock);
	struct wt_task *t = wt_task_by_kernel_id_locked(tid);
	uintptr_t th = t ? wt_tls_pd(t->tp) : 0;
	wt_unlock(&wt_sched.alllock);
	/* Found again by its pthread_t, as pthread_kill does: it may have
	 * exited since. */
	wt_task_lookup_begin();
	t = th ? wt_task_from_pthread(th) : NULL;
	int r;
	if (!t || wt_task_dead(t))
		r = -ESRCH;
	else if (sig < 0 || sig >= 65 || sig == 32 || sig == 33)
		r = -EINVAL; /* 32, 33: glibc's own, which weft's tasks do not use */
	else if (sig == 0)
		r = 0;
	else if (t == wt_cur()) {
		/* Its own record needs no section, and a handler may run now. */
		wt_task_lookup_end();
		if (si) {
			wt_sig_send_info(t, sig, si);
			return 0;
		}
		return wt_sig_send(t, sig);
	} else if (si) {
		wt_sig_send_info(t, sig, si);
		r = 0;
	} else {
		r = wt_sig_send(t, sig);
	}
	wt_task_lookup_end();
	return r;
}
