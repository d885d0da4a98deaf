/*
 * worker.c — workers (Go's M): the OS threads that run tasks.
 *
 * Workers are created on demand by startm, up to what the procs need: an
 * idle worker sleeps on its own futex word (stopm) until a waker hands it a
 * proc.  So the thread count follows GOMAXPROCS, not the number of tasks,
 * except while tasks block in system calls: each keeps its worker (the
 * carrier of the call) and the proc goes to another, new if none is idle.
 * Worker threads are real glibc threads (created with the real
 * pthread_create, thread.c), so glibc's own per-thread state is valid on
 * g0; while glibc is single-threaded, none is made from sysmon before it
 * switches (proc.c: libc_switch_holding).
 *
 * Carriers become idle workers when their calls return.  One that stays
 * idle WEFT_THREAD_IDLE_MS (1 s) while more than GOMAXPROCS workers live
 * gives its OS thread back (stopm: retire, exit_thread), unless it traces a
 * process (m->tracer, process/tracer.c: the kernel would detach the tracees of an
 * exiting thread) or submitted io_uring calls still in flight
 * (m->uring_inflight, io/uring.c: the kernel would cancel them): it leaves the idle
 * list under sched.lock (a waker that took it first wins, and it stays),
 * unmaps its alternate signal stack, puts its struct on wt_sched.mfree and
 * jumps back to worker_main's frame, which returns, so glibc frees the
 * thread as any other; the next worker made takes the struct over, id
 * included.  A program that once blocked 1,000 tasks in the kernel (waits
 * on process-shared objects, regular-file reads) so keeps no 1,000
 * threads, whose mappings every later fork would copy.  The initial thread
 * (worker 0) never exits.  glibc's own POSIX AIO helpers idle out after
 * 1 s too; Go keeps its Ms, which costs little where nothing forks.
 *
 * Worker structs come from a slab and are never freed; wt_sched.allm lists
 * them for schedtrace and the fault handler (one whose thread exited has
 * ostid 0 until it is taken over).
 *
 * WEFT_MAXTHREADS caps weft's OS threads (workers, sysmon, the initial
 * thread, and the helpers: process/pshared.c's holders, a task dump's or the
 * trace's writer, io/privfd.c's helper; wt_nthreads), as Go's SetMaxThreads does.  A holder
 * that would pass it is not started (owner ids repeat, process/pshared.c).  Each one needs more
 * workers only while others are blocked in system calls.  Policy "wait"
 * (the default): a proc that finds no thread stays idle with its work
 * queued until a worker comes back from its call and goes idle (wt_stopm
 * sees capwait and wakes one): back-pressure; from then on tasks back
 * from a system call run before new ones (proc.c: findrunnable), since a
 * new one may block too and the one back may hold what others wait for.
 * A program whose blocked calls all wait for a task that never gets a
 * worker still deadlocks: that is the price of waiting.  Policy "fail": abort, as
 * Go does ("to take down the program before it takes down the system").
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"
#include "config.h"
#include "signal/crash.h"
#include "hooks.h"
#include "base/print.h"
#include "proc.h"
#include "base/real.h"
#include "signal/sigtask.h"
#include "base/slab.h"
#include "base/throw.h"
#include "timer.h"
#include "stack/tls.h"
#include "worker.h"

_Atomic int wt_nthreads;
static struct wt_slab mslab = WT_SLAB_INIT(sizeof(struct wt_m));

bool wt_thread_count_in(void)
{
	if (atomic_fetch_add(&wt_nthreads, 1) < wt_cfg.maxthreads)
		return true;
	atomic_fetch_sub(&wt_nthreads, 1);
	return false;
}

/* Counts one more OS thread unless that would pass WEFT_MAXTHREADS. */
static bool reserve_thread(void)
{
	if (likely(atomic_fetch_add(&wt_nthreads, 1) < wt_cfg.maxthreads))
		return true;
	atomic_fetch_sub(&wt_nthreads, 1);
	if (wt_cfg.maxthreads_fail) {
		wt_print("weft: program exceeds WEFT_MAXTHREADS=%d threads\n", wt_cfg.maxthreads);
		wt_throw("thread exhaustion");
	}
	atomic_store_explicit(&wt_sched.capped, true, memory_order_relaxed);
	static _Atomic int said;
	if (!atomic_exchange(&said, 1))
		wt_print("weft: WEFT_MAXTHREADS=%d threads reached: work waits for workers "
			 "blocked in system calls (WEFT_MAXTHREADS_POLICY=wait)\n", wt_cfg.maxthreads);
	return false;
}

/* Context: g0 of m, idle for WEFT_THREAD_IDLE_MS.  Takes m off the idle
 * list, counted out, when it is still there (no waker took it) and more
 * than GOMAXPROCS workers live. */
static bool retire(struct wt_m *m)
{
	bool out = false;
	wt_lock(&wt_sched.lock);
	if (m->idle && wt_sched.nm - wt_sched.nmfree > atomic_load(&wt_sched.nprocs)) {
		struct wt_m **pp = &wt_sched.midle;
		while (*pp != m)
			pp = &(*pp)->link;
		*pp = m->link;
		wt_sched.nmidle--;
		m->idle = false;
		wt_sched.nmfree++; /* on its way to mfree (exit_thread) */
		atomic_fetch_sub(&wt_nthreads, 1);
		out = true;
	}
	wt_unlock(&wt_sched.lock);
	return out;
}

/* Context: g0 of m, retired.  Its OS thread exits through worker_main;
 * from the moment m is on mfree it touches m no more. */
static WT_NORETURN void exit_thread(struct wt_m *m)
{
	wt_sig_block_all();
	wt_crash_altstack_free(m->sigstk);
	m->sigstk = NULL;
	wt_tls_worker_leave(m);
	jmp_buf *jb = m->exit_jb;
	m->curg = NULL;
	__atomic_store_n(&m->ostid, 0, __ATOMIC_RELAXED);
	wt_lock(&wt_sched.lock);
	m->link = wt_sched.mfree;
	wt_sched.mfree = m;
	wt_unlock(&wt_sched.lock);
	real.longjmp(*jb, 1); /* glibc's: the exported one is the program's (shim/setjmp.c) */
	__builtin_unreachable();
}

/* Context: g0 of m.  Returns holding the proc handed over by startm.
 * Tried and left: watching m->park for up to 25 µs before the futex sleep,
 * the worker already idle-listed (so sysmon's hand-offs still find it, and
 * handm skips the wake-up of a watcher).  It halved the futex calls and
 * context switches of a Rust mpsc pipeline at GOMAXPROCS=2 (40,000 to
 * 21,000 in some runs) but not its time (0.45-0.55 s either way, means of
 * 8 runs, alternating): most of those calls are glibc's own malloc lock
 * waits, which hold a worker and its proc where weft cannot see them. */
void wt_stopm(struct wt_m *m)
{
	wt_lock(&wt_sched.lock);
	m->link = wt_sched.midle;
	wt_sched.midle = m;
	wt_sched.nmidle++;
	m->idle = true;
	bool capwait = wt_sched.capwait;
	wt_sched.capwait = false;
	wt_unlock(&wt_sched.lock);
	/* A proc waits for a thread (startm): this one is idle now, and
	 * wakep may well pick it. */
	if (unlikely(capwait))
		wt_wakep();
	int64_t idle = wt_cfg.thread_idle_ms * 1000000ll;
	bool may_exit = idle > 0 && m->exit_jb && m->ostid != wt_pid &&
			!atomic_load_explicit(&m->tracer, memory_order_relaxed);
	int64_t until = may_exit ? wt_nanotime() + idle : 0;
	/* Acquire: pairs with the release store in startm. */
	while (atomic_load_explicit(&m->park, memory_order_acquire) == 0) {
		if (!may_exit) {
			wt_futex_wait_sigok(&m->park, 0, NULL); /* idle: holds nothing */
			continue;
		}
		struct timespec ts = { until / 1000000000, until % 1000000000 };
		wt_futex_wait_sigok(&m->park, 0, &ts);
		if (atomic_load_explicit(&m->park, memory_order_acquire) == 0 &&
		    wt_nanotime() >= until) {
			/* Its io_uring calls in flight would end with
			 * ECANCELED with the thread (io/uring.c). */
			if (!atomic_load_explicit(&m->uring_inflight, memory_order_relaxed) &&
			    retire(m))
				exit_thread(m);
			until = wt_nanotime() + idle; /* kept: look again later */
		}
	}
	wt_tls_after_sleep(m->cur_tp);
	atomic_store_explicit(&m->park, 0, memory_order_relaxed);
	m->p = m->nextp;
	m->nextp = NULL;
	m->p->m = m;
}

/* Context: a new worker thread, on its own (glibc) stack and TCB. */
void wt_worker_init_self(struct wt_m *m)
{
	m->ostid = (int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	m->g0_tp = wt_arch_get_tp();
	m->cur_tp = m->g0_tp;
	m->g0.tp = m->g0_tp; /* even in syscall mode: a signal handler on g0 must see no task */
	m->fastrand = 0x9e3779b97f4a7c15ull * (uint64_t)(m->id + 1);
	m->sigstk = wt_crash_altstack();
	if (wt_tl_on)
		wt_tl_worker(m);
	if (wt_prof_on)
		wt_prof_worker(m);
	wt_tls_worker_enter(m);
	wt_sig_thread_init(m);
}

static void *worker_main(void *arg)
{
	struct wt_m *m = arg;
	jmp_buf jb;
	if (setjmp(jb))
		return NULL; /* exit_thread: m may be another thread's by now */
	m->exit_jb = &jb;
	wt_worker_init_self(m);
	if (m->p)
		m->p->m = m;
	wt_schedule(m);
}

/* A worker struct whose thread exited, ready for a new one (its id, place
 * in allm and guard window kept), or NULL. */
static struct wt_m *mfree_get(void)
{
	wt_lock(&wt_sched.lock);
	struct wt_m *m = wt_sched.mfree;
	if (m) {
		wt_sched.mfree = m->link;
		wt_sched.nmfree--;
	}
	wt_unlock(&wt_sched.lock);
	if (!m)
		return NULL;
	int id = m->id;
	struct wt_m *all = m->alllink;
	uintptr_t guard = m->guard_tp;
	siginfo_t *defer_info = m->defer_info;
	struct wt_tlbuf *tlbuf = m->tlbuf;
	memset(m, 0, sizeof *m);
	m->id = id;
	m->alllink = all;
	m->guard_tp = guard;
	m->defer_info = defer_info;
	m->tlbuf = tlbuf;
	return m;
}

/* Creates a worker that starts holding p.  Context: any (task or g0). */
struct wt_m *wt_newm(struct wt_p *p, bool spinning)
{
	if (!reserve_thread())
		return NULL;
	struct wt_m *m = mfree_get();
	if (m)
		goto spawn;
	m = wt_slab_alloc(&mslab);
	if (!m) {
		atomic_fetch_sub(&wt_nthreads, 1);
		return NULL;
	}
	wt_lock(&wt_sched.lock);
	m->id = wt_sched.nm++;
	m->alllink = wt_sched.allm;
	/* Release: pairs with the acquire loads of readers without the lock. */
	atomic_store_explicit(&wt_sched.allm, m, memory_order_release);
	wt_unlock(&wt_sched.lock);
	if (!wt_tls_worker_guard(m)) {
		atomic_fetch_sub(&wt_nthreads, 1);
		wt_print("weft: cannot create worker %d: too many workers\n", m->id);
		return NULL;
	}
spawn:
	m->p = p;
	m->spinning = spinning;

	int err = wt_thread_spawn(worker_main, m, 256 << 10);
	if (err) {
		atomic_fetch_sub(&wt_nthreads, 1);
		m->p = NULL;
		wt_lock(&wt_sched.lock);
		m->link = wt_sched.mfree;
		wt_sched.mfree = m;
		wt_sched.nmfree++;
		wt_unlock(&wt_sched.lock);
		/* Once: the next tries fail the same way while the limit holds. */
		static _Atomic int said;
		if (!atomic_exchange(&said, 1))
			wt_print("weft: cannot create a worker thread (%s): while tasks blocked "
				 "in system calls hold every worker, runnable tasks wait for one "
				 "to return\n",
				 err == -EAGAIN ? "RLIMIT_NPROC, threads-max or memory exhausted" : "error");
		return NULL;
	}
	return m;
}

/* The initial thread becomes worker 0 (see start.c). */
struct wt_m *wt_m0_alloc(void)
{
	struct wt_m *m = wt_slab_alloc(&mslab);
	if (!m)
		wt_throw("out of memory at start");
	m->id = wt_sched.nm++;
	m->alllink = wt_sched.allm;
	/* Release: pairs with the acquire loads of readers without the lock. */
	atomic_store_explicit(&wt_sched.allm, m, memory_order_release);
	atomic_fetch_add(&wt_nthreads, 1);
	return m;
}

void wt_worker_fork_reset(void)
{
	wt_spawn_fork_reset();
	wt_slab_fork_reset(&mslab);
}

/* The worker whose OS thread is tid, or NULL (sysmon, a thread weft did not
 * create).  Without a lock: workers are published with a release store,
 * never freed, and alllink never changes.  Context: any, signal handlers
 * included. */
struct wt_m *wt_m_of_tid(int tid)
{
	for (struct wt_m *m = atomic_load_explicit(&wt_sched.allm, memory_order_acquire); m; m = m->alllink)
		if (m->ostid == tid)
			return m;
	return NULL;
}
