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
 *      (shim/ptrace.c); it publishes the request in `rq` (below);
 *   2. it sends SIGURG with si_value = the request's id to the thread that
 *      answered for this pid last (a small table of pid -> tid), then to
 *      each other worker in turn;
 *   3. the thread's SIGURG handler (core/preempt.c hands it here:
 *      wt_ptrace_signal) finds the request meant for its own tid, makes the
 *      system call, stores the result and wakes the caller;
 *   4. the caller waits on `done`, sending again every 10 ms (a SIGURG
 *      already pending on that thread, a preemption request, swallows the
 *      next one: standard signals do not queue), and gives up on a thread
 *      after 1 s.  The first answer other than ESRCH is the request's; the
 *      thread that gave it is remembered for the pid.
 * A worker that answered is a tracer: it never retires for idleness
 * (core/worker.c), since the kernel detaches every tracee of an exiting thread.
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

#include "core/runtime.h"
#include "base/lock.h"
#include "signal/sigtask.h"
#include "tracer.h"
#include "core/worker.h"

static wt_lock_t ptrace_lock = WT_LOCK_INIT(WT_RANK_PTRACE);

/* pid -> the thread that answered for it last.  [ptrace_lock] */
#define NKNOWN 32
static struct {
	int pid, tid;
} known[NKNOWN];
static unsigned known_next; /* [ptrace_lock] the slot to overwrite next */

/* The one request in flight (one at a time under ptrace_lock), in static
 * memory, never the caller's stack: a handler that took a request late (its
 * thread ran the SIGURG after the caller stopped waiting for it) may still
 * be reading it, and a PEEK request's word goes to `data`.  Requests are
 * numbered (id, even, never 0); `open` says which one a handler may take:
 *   caller:  writes tid and args, then open = id (release), then signals
 *            the thread with the id in si_value; it waits for done == id,
 *            or gives up on the thread by CAS open id -> id|1, and if that
 *            fails a handler holds the request: it waits for done == id;
 *   handler: open == id (acquire) for the id in its si_value, reads tid
 *            and args, and takes the request by CAS open id -> id|1, so a
 *            request the caller gave up is never made (its reads may have
 *            seen the next request's args, half written: the CAS fails
 *            then); makes the system call, stores the result, then
 *            done = id (release).
 * So a handler never writes a request the caller has left, and the caller
 * never moves on while a handler makes its call.  (The request used to
 * live on the caller's stack, published as a pointer: a handler that read
 * the pointer, then ran its call after the caller's 1 s give-up, wrote
 * its result and done word into whatever frames the caller had since.) */
static struct {
	_Atomic int tid;            /* [caller while closed; handlers read] the thread asked */
	_Atomic long args[4];       /* [as tid] request, pid, addr, data */
	long result;                /* [the handler that took it, before done] */
	_Atomic uint32_t open;      /* [atomic] the id a handler may take; id|1 once
				     * taken or given up */
	_Atomic int done;           /* [atomic] futex word: the id answered last */
	uint32_t next;              /* [ptrace_lock] the last id */
} rq;

/* si_value of a request's SIGURG: a tag no pointer has, and the id. */
#define TAG 0x70747263ull /* "ptrc" */

static int self_tid(void)
{
	return (int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
}

bool wt_ptrace_signal(const siginfo_t *si)
{
	uint64_t v = (uint64_t)(uintptr_t)si->si_value.sival_ptr;
	if (si->si_code != SI_QUEUE || si->si_pid != wt_pid || v >> 32 != TAG)
		return false;
	uint32_t id = (uint32_t)v;
	/* Acquire: pairs with the caller's release of open; tid and args. */
	if (atomic_load_explicit(&rq.open, memory_order_acquire) != id ||
	    atomic_load_explicit(&rq.tid, memory_order_relaxed) != self_tid())
		return true; /* a late copy, or meant for another thread */
	long a[4];
	for (int i = 0; i < 4; i++)
		a[i] = atomic_load_explicit(&rq.args[i], memory_order_relaxed);
	uint32_t want = id;
	if (!atomic_compare_exchange_strong_explicit(&rq.open, &want, id | 1, memory_order_acq_rel,
						     memory_order_relaxed))
		return true; /* given up meanwhile */
	long res = wt_syscall6(SYS_ptrace, a[0], a[1], a[2], a[3], 0, 0);
	struct wt_m *m = wt_m_of_tid(self_tid());
	if (m && res != -ESRCH)
		atomic_store_explicit(&m->tracer, true, memory_order_relaxed);
	rq.result = res;
	/* Release: the result before done; pairs with the caller's acquire. */
	atomic_store_explicit(&rq.done, (int)id, memory_order_release);
	wt_futex_wake(&rq.done, 1, false);
	return true;
}

/* Waits for done == id until *until (0: for ever).  Context: ask. */
static bool wait_done(uint32_t id, int64_t until)
{
	for (;;) {
		int d = atomic_load_explicit(&rq.done, memory_order_acquire);
		if ((uint32_t)d == id)
			return true;
		if (until && wt_nanotime() >= until)
			return false;
		struct timespec ts = { until / 1000000000, until % 1000000000 };
		wt_futex_wait_sigok(&rq.done, d, until ? &ts : NULL);
	}
}

/* The request (req, pid, addr, data) made by thread tid: its result, or
 * -ESRCH when the thread never answered (gone, or 1 s late).
 * [ptrace_lock held] */
static long ask(const long args[4], int tid)
{
	rq.next += 2;
	if (!rq.next)
		rq.next = 2;
	uint32_t id = rq.next;
	atomic_store_explicit(&rq.tid, tid, memory_order_relaxed);
	for (int i = 0; i < 4; i++)
		atomic_store_explicit(&rq.args[i], args[i], memory_order_relaxed);
	/* Release: the request before it is open. */
	atomic_store_explicit(&rq.open, id, memory_order_release);
	union sigval v = { .sival_ptr = (void *)(uintptr_t)(TAG << 32 | id) };
	for (int i = 0; i < 100; i++) {
		wt_sig_urg_send(tid, v);
		if (wait_done(id, wt_nanotime() + 10000000))
			return rq.result;
		if (wt_syscall6(SYS_tgkill, wt_pid, tid, 0, 0, 0, 0) < 0)
			break; /* the thread is gone */
	}
	uint32_t want = id;
	if (atomic_compare_exchange_strong_explicit(&rq.open, &want, id | 1, memory_order_acq_rel,
						    memory_order_relaxed))
		return -ESRCH; /* given up: no handler will take it */
	wait_done(id, 0); /* a handler took it just now: its call is under way */
	return rq.result;
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
	const long args[4] = { req, pid, addr, data };
	int self = self_tid(), last = 0;
	long res = -ESRCH;
	wt_lock(&ptrace_lock);
	for (int i = 0; i < NKNOWN; i++)
		if (known[i].pid == (int)pid && known[i].pid)
			last = known[i].tid;
	int by = 0;
	if (last && last != self) {
		res = ask(args, last);
		by = last;
	}
	/* Then every other worker: the allm list only grows (workers that
	 * exit stay on it with ostid 0). */
	for (struct wt_m *m = atomic_load_explicit(&wt_sched.allm, memory_order_acquire);
	     m && res == -ESRCH; m = m->alllink) {
		int tid = __atomic_load_n(&m->ostid, __ATOMIC_RELAXED);
		if (tid <= 0 || tid == self || tid == last)
			continue;
		res = ask(args, tid);
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
	/* A request of the parent's: closed (ids go on from where they were). */
	atomic_store_explicit(&rq.open, 1, memory_order_relaxed);
	atomic_store_explicit(&ptrace_lock.v, 0, memory_order_relaxed);
	for (int i = 0; i < NKNOWN; i++)
		known[i].pid = known[i].tid = 0;
}
