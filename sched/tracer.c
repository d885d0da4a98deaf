/*
 * tracer.c — ptrace requests reach their tracee from whichever worker the
 * calling task runs on.
 *
 * The kernel keeps the tracer of a process per OS thread: the thread that
 * attached (PTRACE_ATTACH, PTRACE_SEIZE), or for a child that asked with
 * PTRACE_TRACEME the thread that forked it.  Every later request must come
 * from that thread; from any other, even of the same process, the kernel
 * answers ESRCH as if the tracee did not exist.  A task moves between
 * workers (after a blocking call, a park, a preemption), so a debugger
 * under weft (gdb, strace, a crash reporter) forked or attached on one
 * worker and asked for registers on another: "Couldn't get registers: No
 * such process", in about one run of two of gdb's `starti`.  waitpid is
 * not affected: any thread of the tracer's process may wait for a tracee.
 *
 * Protocol (wt_ptrace_remote, one request at a time under ptrace_lock):
 *   1. the caller made the request on its own thread and got ESRCH
 *      (shim/ptrace.c); it publishes the request in `cur`;
 *   2. it sends SIGURG with si_value = the request to the thread that
 *      answered for this pid last (a small table of pid -> tid), then to
 *      each other worker in turn;
 *   3. the thread's SIGURG handler (preempt.c hands it here:
 *      wt_ptrace_signal) finds the request meant for its own tid, makes the
 *      system call, stores the result and wakes the caller;
 *   4. the caller waits on `done`, sending again every 10 ms (a SIGURG
 *      already pending on that thread, a preemption request, swallows the
 *      next one: standard signals do not queue), and gives up on a thread
 *      after 1 s.  The first answer other than ESRCH is the request's; the
 *      thread that gave it is remembered for the pid.
 * A worker that answered is a tracer: it never retires for idleness
 * (worker.c), since the kernel detaches every tracee of an exiting thread.
 *
 * Rejected: binding a tracing task to its worker (Go's LockOSThread, which
 * Go requires for ptrace) — every park, yield and hand-off of the
 * scheduler would need a path for it, for a handful of calls per debugger
 * stop; a request is a system call in a signal handler, a few
 * microseconds.  Rejected: making fork and attach on a dedicated thread —
 * fork continues the caller's context on the thread that called it.
 *
 * Context: the caller is a task; it blocks its worker for the round trip.
 * The handler side runs in a signal handler on any worker: a raw system
 * call and atomics only.
 */
#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include "runtime.h"
#include "lock.h"
#include "sigtask.h"
#include "tracer.h"
#include "worker.h"

struct req {
	int tid;                /* [const while published] the thread asked */
	long nr_args[4];        /* [const while published] request, pid, addr, data */
	long result;            /* [written by the handler before done] */
	_Atomic int done;       /* [atomic] futex word: 1 once answered */
};

static wt_lock_t ptrace_lock = WT_LOCK_INIT(WT_RANK_PTRACE);
static struct req *_Atomic cur;  /* [atomic; written under ptrace_lock] */

/* pid -> the thread that answered for it last.  [ptrace_lock] */
#define NKNOWN 32
static struct {
	int pid, tid;
} known[NKNOWN];
static unsigned known_next; /* [ptrace_lock] the slot to overwrite next */

static int self_tid(void)
{
	return (int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
}

bool wt_ptrace_signal(const siginfo_t *si)
{
	struct req *r = atomic_load_explicit(&cur, memory_order_acquire);
	if (!r || si->si_code != SI_QUEUE || si->si_pid != wt_pid ||
	    si->si_value.sival_ptr != (void *)r)
		return false;
	if (r->tid != self_tid() || atomic_load_explicit(&r->done, memory_order_relaxed))
		return true; /* a late copy, or meant for another thread */
	r->result = wt_syscall6(SYS_ptrace, r->nr_args[0], r->nr_args[1], r->nr_args[2],
				r->nr_args[3], 0, 0);
	struct wt_m *m = wt_m_of_tid(r->tid);
	if (m && r->result != -ESRCH)
		atomic_store_explicit(&m->tracer, true, memory_order_relaxed);
	/* Release: the result before done; pairs with the caller's acquire. */
	atomic_store_explicit(&r->done, 1, memory_order_release);
	wt_futex_wake(&r->done, 1, false);
	return true;
}

/* The request made by thread tid: its result, or -ESRCH when the thread
 * never answered (gone, or 1 s late).  [ptrace_lock held] */
static long ask(struct req *r, int tid)
{
	r->tid = tid;
	r->result = -ESRCH;
	atomic_store_explicit(&r->done, 0, memory_order_relaxed);
	/* Release: the request before it is published. */
	atomic_store_explicit(&cur, r, memory_order_release);
	for (int i = 0; i < 100; i++) {
		wt_sig_urg_send(tid, (union sigval){ .sival_ptr = r });
		struct timespec ts;
		int64_t until = wt_nanotime() + 10000000;
		ts.tv_sec = until / 1000000000;
		ts.tv_nsec = until % 1000000000;
		while (!atomic_load_explicit(&r->done, memory_order_acquire) &&
		       wt_nanotime() < until)
			wt_futex_wait_sigok(&r->done, 0, &ts);
		if (atomic_load_explicit(&r->done, memory_order_acquire))
			break;
		if (wt_syscall6(SYS_tgkill, wt_pid, tid, 0, 0, 0, 0) < 0)
			break; /* the thread is gone */
	}
	atomic_store_explicit(&cur, NULL, memory_order_release);
	return atomic_load_explicit(&r->done, memory_order_acquire) ? r->result : -ESRCH;
}

static void remember(int pid, int tid)
{
	for (int i = 0; i < NKNOWN; i++)
		if (known[i].pid == pid) {
			known[i].tid = tid;
			return;
		}
	known[known_next].pid = pid;
	known[known_next].tid = tid;
	known_next = (known_next + 1) % NKNOWN;
}

long wt_ptrace_remote(long req, long pid, long addr, long data)
{
	struct req r = { .nr_args = { req, pid, addr, data } };
	int self = self_tid(), last = 0;
	long res = -ESRCH;
	wt_lock(&ptrace_lock);
	for (int i = 0; i < NKNOWN; i++)
		if (known[i].pid == (int)pid && known[i].pid)
			last = known[i].tid;
	int by = 0;
	if (last && last != self) {
		res = ask(&r, last);
		by = last;
	}
	/* Then every other worker: the allm list only grows (workers that
	 * exit stay on it with ostid 0). */
	for (struct wt_m *m = atomic_load_explicit(&wt_sched.allm, memory_order_acquire);
	     m && res == -ESRCH; m = m->alllink) {
		int tid = __atomic_load_n(&m->ostid, __ATOMIC_RELAXED);
		if (tid <= 0 || tid == self || tid == last)
			continue;
		res = ask(&r, tid);
		by = tid;
	}
	if (res != -ESRCH && by)
		remember((int)pid, by);
	wt_unlock(&ptrace_lock);
	return res;
}

void wt_ptrace_attached(long pid)
{
	struct wt_m *m = wt_m_of_tid(self_tid());
	if (m)
		atomic_store_explicit(&m->tracer, true, memory_order_relaxed);
	wt_lock(&ptrace_lock);
	remember((int)pid, self_tid());
	wt_unlock(&ptrace_lock);
}

void wt_ptrace_answered(void)
{
	struct wt_task *t = wt_cur();
	struct wt_m *m = t ? t->m : NULL;
	if (m && !atomic_load_explicit(&m->tracer, memory_order_relaxed))
		atomic_store_explicit(&m->tracer, true, memory_order_relaxed);
}

void wt_ptrace_fork_reset(void)
{
	atomic_store_explicit(&cur, NULL, memory_order_relaxed);
	atomic_store_explicit(&ptrace_lock.v, 0, memory_order_relaxed);
	for (int i = 0; i < NKNOWN; i++)
		known[i].pid = known[i].tid = 0;
}
