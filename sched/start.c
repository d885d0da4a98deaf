/*
 * start.c — turning a process into a weft process.
 *
 * wt_runtime_start runs once, on the initial thread, from libweft's
 * constructor (so constructors of the program that start threads already
 * see the runtime) or, if something calls in earlier, from that first call.
 * It makes the flow of control that called it the main task:
 *
 *   - the main task keeps the initial thread's TCB (constructors may have
 *     written its TLS) and the initial stack (the kernel grows it to
 *     RLIMIT_STACK, exactly as natively);
 *   - the initial OS thread becomes worker 0, holding proc 0, running the
 *     main task; its g0 gets a fresh stack and a fresh TCB of its own,
 *     used the first time main switches out;
 *   - sysmon starts, as a raw thread: glibc stays in its single-threaded
 *     mode until the program's second task (thread.c).
 * Worker 0 is built before main becomes the current task, and main is
 * complete (worker, proc) when it does: building the worker allocates with
 * the program's malloc, and an allocator calls weft's entries (mutexes,
 * pthread_self, even pthread_create), which must find either a thread weft
 * does not run or a whole task.  A call back into wt_runtime_start from
 * the start's own thread returns -EBUSY instead of waiting for start_lock.
 * Workers beyond worker 0 are created when work appears (proc.c: startm).
 */

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pshared.h"
#include "runtime.h"
#include "prio.h"
#include "config.h"
#include "crash.h"
#include "dump.h"
#include "fork.h"
#include "preempt.h"
#include "print.h"
#include "proc.h"
#include "real.h"
#include "sigtask.h"
#include "slab.h"
#include "sysmon.h"
#include "task.h"
#include "text.h"
#include "thread.h"
#include "throw.h"
#include "privfd.h"
#include "timeline.h"
#include "tls.h"
#include "worker.h"

struct wt_task *wt_main_task;
static wt_lock_t start_lock = WT_LOCK_INIT(WT_RANK_START);
/* [atomic] written under start_lock, read with acquire without it. */
static _Atomic int start_state;
enum { NOT_STARTED = 0, STARTING, RUNNING, REFUSED };
/* [atomic] the OS thread running the start, while STARTING: the program's
 * code the start calls (its malloc) may come back here. */
static _Atomic int starter;

int wt_runtime_start(void)
{
	int st = atomic_load_explicit(&start_state, memory_order_acquire);
	if (st == RUNNING || st == REFUSED)
		return st == RUNNING ? 0 : -ENOTSUP;
	/* From inside the start (an allocator making a thread while the start
	 * allocates): the start lock is this thread's; the caller goes on as
	 * before the start. */
	if (st == STARTING && atomic_load_explicit(&starter, memory_order_relaxed) ==
				      (int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0))
		return -EBUSY;
	wt_lock(&start_lock);
	if ((st = atomic_load(&start_state)) != NOT_STARTED) {
		wt_unlock(&start_lock);
		return st == RUNNING ? 0 : -ENOTSUP;
	}
	atomic_store(&starter, (int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0));
	atomic_store(&start_state, STARTING);
	/* Starting calls libc (getauxval, getenv, dlsym, pthread_create,
	 * sigaction...), which may set errno: the caller's is put back. */
	int saved_errno = errno;
	wt_real_init();
	long pid = wt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	long tid = wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	if (pid != tid) {
		wt_print("weft: loaded after start on a non-initial thread; weft stays off "
			 "(use LD_PRELOAD or weft run)\n");
		goto refuse;
	}
	wt_config_read();
	if (wt_tls_init() != 0) {
		wt_print("weft: this glibc lacks what per-task TLS needs; weft stays off\n");
		goto refuse;
	}

	/* Procs: room for every CPU (the cgroup limit may rise later); those
	 * beyond GOMAXPROCS start disabled (proc.c: wt_procs_resize). */
	int n = wt_cfg.gomaxprocs;
	int max = wt_cfg.gomaxprocs_set || wt_cfg.ncpu < n ? n : wt_cfg.ncpu;
	wt_sched.maxprocs = max;
	atomic_store(&wt_sched.nprocs, n);
	wt_sched.procs = wt_mmap_anon(sizeof(struct wt_p) * max);
	if (!wt_sched.procs)
		wt_throw("out of memory at start");
	for (int i = max - 1; i >= 0; i--) {
		wt_sched.procs[i].id = i;
		if (i >= n) {
			wt_sched.procs[i].disabled = true;
		} else if (i > 0) {
			wt_sched.procs[i].link = wt_sched.pidle;
			wt_sched.pidle = &wt_sched.procs[i];
			atomic_fetch_add(&wt_sched.npidle, 1);
		}
	}
	struct wt_p *p0 = &wt_sched.procs[0];
	p0->status = WT_P_RUNNING;

	/* Worker 0 first: the initial OS thread, with a new g0 stack and TCB.
	 * Its TCB's DTV comes from the program's malloc, and an allocator
	 * calls in (pthread_mutex_unlock, pthread_self, mmap, ...): those
	 * calls must find a thread weft does not run (wt_cur() NULL), never
	 * a main task without its worker. */
	struct wt_m *m = wt_m0_alloc();
	size_t g0sz = 256 << 10;
	char *g0 = wt_mmap_anon(g0sz);
	char *g0low;
	if (!g0)
		wt_throw("out of memory at start");
	m->g0_tp = wt_tls_new(g0 + g0sz, (int)tid, g0, g0sz, NULL, false, &g0low, NULL);
	if (!m->g0_tp)
		wt_throw("cannot allocate worker 0's TLS");
	wt_ctx_make(&m->g0, g0low, (void (*)(void *))wt_schedule, m, m->g0_tp);
	m->ostid = (int)tid;
	m->fastrand = 0x2545f4914f6cdd1dull;
	m->p = p0;
	p0->m = m;

	/* The main task: this flow of control, its TCB and its stack, running
	 * on worker 0 before it is current. */
	struct wt_task *t = wt_task_alloc();
	if (!t)
		wt_throw("out of memory at start");
	t->id = 1;
	t->main = true;
	t->tp = wt_arch_get_tp();
	t->tid = 0x40000001;
	t->ctx.tp = t->tp; /* every switch back to main loads its TCB */
	*(int *)(wt_tls_pd(t->tp) + wt_off_tid) = t->tid;
	struct rlimit rl;
	size_t ssz = 8u << 20;
	if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		ssz = rl.rlim_cur;
	t->stack_hi = (char *)__builtin_frame_address(0);
	t->stack_lo = t->stack_hi - ssz;
	t->stack_size = ssz;
	t->state = WT_RUNNING;
	wt_pshared_init(t);
	wt_prio_init_main(t);
	t->m = m;
	m->curg = t;
	m->cur_tp = t->tp;
	wt_main_task = t;
	/* Main is a task from here on: whatever reaches weft's entries on
	 * this thread finds it with its worker and proc. */
	wt_cur_tls = t;
	if (!wt_tls_worker_guard(m))
		wt_throw("cannot set up worker 0");
	/* The fault handler first: from worker_enter on (trap mode), any
	 * context switch makes the next TLS access a SIGSEGV to repair. */
	wt_crash_init();
	m->sigstk = wt_crash_altstack();
	wt_text_init();
	wt_preempt_init();
	wt_tls_worker_enter(m);
	/* The main task keeps the mask the process started with. */
	t->sigmask = wt_sig_thread_init(m) & ~(WT_SIGBIT(SIGKILL) | WT_SIGBIT(SIGSTOP) |
					      WT_SIGBIT(32) | WT_SIGBIT(33));
	wt_sig_init();
	wt_fork_init();

	wt_task_link(t);
	atomic_store(&wt_ntasks, 1);
	wt_libc_mode_init();
	wt_tl_start(m); /* before sysmon and workers: they read wt_tl_on */
	wt_privfd_init(); /* before sysmon, whose first cgroup lookup may need it */
	wt_sysmon_start();
	wt_dump_init();
	atomic_store_explicit(&start_state, RUNNING, memory_order_release);
	wt_unlock(&start_lock);
	errno = saved_errno;
	return 0;
refuse:
	atomic_store_explicit(&start_state, REFUSED, memory_order_release);
	wt_unlock(&start_lock);
	errno = saved_errno;
	return -ENOTSUP;
}

bool wt_runtime_on(void)
{
	return atomic_load_explicit(&start_state, memory_order_acquire) == RUNNING;
}

__attribute__((constructor(101))) static void weft_ctor(void)
{
	wt_runtime_start();
}
