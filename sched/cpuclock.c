/*
 * cpuclock.c — a task's CPU time, and the ids that name it.
 *
 * The kernel keeps a CPU clock per OS thread, and a worker runs many tasks,
 * so the worker's clock is not any task's.  A task's time is the worker's
 * CPU time between its switches: at each switch the worker reads its own
 * thread CPU clock once (the clock of the task switched out is charged,
 * the one switched in is marked).  The kernel serves that clock only by a
 * system call (the vDSO does not: ~360 ns here, three times a hand-off), so
 * the counting starts when the program first reads a thread CPU clock
 * (clock_gettime on CLOCK_THREAD_CPUTIME_ID or on a clock id from
 * pthread_getcpuclockid, getrusage(RUSAGE_THREAD)); until then a switch
 * pays one load (wt_cpu_switch).  Time a task ran before that point is
 * not counted: a new thread starts at zero, one that existed counts from
 * then on.  Time its worker spends on g0 between two tasks is nobody's.
 *
 * Readers of another task's time (wt_cpuclock_read) hold sched.alllock,
 * so the task is not freed, and retry while its cpu_seq moves: a running
 * task's time is cpu_ns plus its worker's clock now minus cpu_mark.
 *
 * Ids.  gettid gives main the process id, as natively (so `gettid() ==
 * getpid()` still finds the main thread), and every other task
 * WT_TASK_ID_BASE + its number (mod 2^27): above the kernel's largest pid
 * (2^22), so no OS thread has it, and small enough for glibc's encoding of
 * a thread CPU clock id (~id << 3 | per-thread | sched), which keeps 28
 * bits of it.  A task's clock id is that encoding of its id; the
 * per-thread clock of the process id is main's.  (The TCB's tid, which
 * glibc writes as owner into mutexes, is another number, task.c.)
 */
#include <errno.h>
#include <sys/syscall.h>

#include "runtime.h"
#include "blocked.h"
#include "cpuclock.h"
#include "sigtask.h"
#include "start.h"
#include "task.h"

_Atomic bool wt_cpuacct_on;

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

/* Context: the worker, at a switch (wt_cpu_switch); does not block. */
void wt_cpu_switch_slow(struct wt_task *out, struct wt_task *in)
{
	int64_t now = own_cpu();
	if (out) {
		int64_t mark = atomic_load_explicit(&out->cpu_mark, memory_order_relaxed);
		seq_begin(out);
		/* mark 0: it was switched in before the counting started. */
		if (mark && now > mark)
			atomic_store_explicit(&out->cpu_ns,
					      atomic_load_explicit(&out->cpu_ns, memory_order_relaxed) +
						      (now - mark),
					      memory_order_relaxed);
		atomic_store_explicit(&out->cpu_mark, 0, memory_order_relaxed);
		seq_end(out);
	}
	if (in) {
		seq_begin(in);
		atomic_store_explicit(&in->cpu_mark, now, memory_order_relaxed);
		seq_end(in);
	}
}

/* Context: a task (the caller marks itself), or a thread weft did not
 * create. */
void wt_cpu_acct_start(void)
{
	if (atomic_load_explicit(&wt_cpuacct_on, memory_order_relaxed))
		return;
	struct wt_task *t = wt_cur();
	if (t && !atomic_load_explicit(&t->cpu_mark, memory_order_relaxed)) {
		seq_begin(t);
		atomic_store_explicit(&t->cpu_mark, own_cpu(), memory_order_relaxed);
		seq_end(t);
	}
	atomic_store_explicit(&wt_cpuacct_on, true, memory_order_relaxed);
}

/* t's time; t is the caller, or the caller holds sched.alllock. */
static int64_t task_cpu(struct wt_task *t)
{
	for (;;) {
		uint32_t s = atomic_load_explicit(&t->cpu_seq, memory_order_acquire);
		if (s & 1)
			continue;
		int64_t ns = atomic_load_explicit(&t->cpu_ns, memory_order_relaxed);
		int64_t mark = atomic_load_explicit(&t->cpu_mark, memory_order_relaxed);
		if (mark) {
			struct wt_m *m = __atomic_load_n(&t->m, __ATOMIC_RELAXED);
			int64_t now = t == wt_cur() ? own_cpu() : m ? wt_thread_cpu_ns(m->ostid) : -1;
			if (now > mark)
				ns += now - mark;
		}
		atomic_thread_fence(memory_order_acquire); /* pairs with seq_begin's fence */
		if (atomic_load_explicit(&t->cpu_seq, memory_order_relaxed) == s)
			return ns;
	}
}

int64_t wt_cpu_self_ns(void)
{
	wt_cpu_acct_start();
	return task_cpu(wt_cur());
}

int wt_task_kernel_id(const struct wt_task *t)
{
	if (t->main)
		return (int)wt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	return WT_TASK_ID_BASE | (int)(t->id & (WT_TASK_ID_BASE - 1));
}

clockid_t wt_cpuclock_id(const struct wt_task *t)
{
	/* ~tid << 3 | CPUCLOCK_PERTHREAD_MASK (4) | CPUCLOCK_SCHED (2) */
	return (clockid_t)((~(unsigned)wt_task_kernel_id(t) << 3) | 6);
}

struct wt_task *wt_task_by_kernel_id_locked(int tid)
{
	if (wt_main_task && tid == wt_task_kernel_id(wt_main_task))
		return wt_main_task;
	if (!wt_is_task_id(tid))
		return NULL;
	for (struct wt_task *t = wt_sched.alltasks; t; t = t->alllink)
		if (!t->main && wt_task_kernel_id(t) == tid)
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
	if (!wt_is_task_id(tid) &&
	    (!wt_main_task || tid != wt_task_kernel_id(wt_main_task)))
		return 0; /* a kernel thread's: a worker's or one weft did not make */
	if ((clk & 3) == 3)
		return -EINVAL; /* no such clock type, as the kernel says */
	wt_cpu_acct_start();
	wt_lock(&wt_sched.alllock);
	struct wt_task *t = wt_task_by_kernel_id_locked(tid);
	if (t && !wt_task_dead(t))
		*ns = task_cpu(t);
	wt_unlock(&wt_sched.alllock);
	return t && !wt_task_dead(t) ? 1 : -EINVAL;
}

void wt_cpu_fork_child(struct wt_task *self)
{
	if (atomic_load_explicit(&self->cpu_mark, memory_order_relaxed)) {
		seq_begin(self);
		atomic_store_explicit(&self->cpu_mark, own_cpu(), memory_order_relaxed);
		seq_end(self);
	}
}

int wt_tid_kill(int tgid, int tid, int sig)
{
	if (!wt_runtime_on() || tid <= 0)
		return 1;
	int pid = (int)wt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	if (tid != pid && !wt_is_task_id(tid))
		return 1; /* a kernel thread's id */
	if (tgid != -1 && tgid != pid)
		return 1; /* another process: the kernel says ESRCH */
	wt_lock(&wt_sched.alllock);
	struct wt_task *t = wt_task_by_kernel_id_locked(tid);
	uintptr_t tp = t ? t->tp : 0;
	wt_unlock(&wt_sched.alllock);
	/* Found again by its pthread_t, as pthread_kill does: it may have
	 * exited since. */
	t = tp ? wt_task_from_pthread(tp) : NULL;
	if (!t || wt_task_dead(t))
		return -ESRCH;
	if (sig < 0 || sig >= 65 || sig == 32 || sig == 33)
		return -EINVAL; /* 32, 33: glibc's own, which weft's tasks do not use */
	if (sig == 0)
		return 0;
	return wt_sig_send(t, sig);
}
