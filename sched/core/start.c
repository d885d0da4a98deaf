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
 *
 * Dormant.  A process that never makes a second task needs none of it,
 * and LD_PRELOAD puts libweft in every process of a tree (a shell loop, a
 * build, a test runner): started in the constructor, /bin/true made 115
 * system calls against 29 natively and took 36 page faults more (181
 * against 145 for env and true), and a shell loop of 300 of them took
 * 1.74 times the native CPU.  Dormant: 39 system calls (the 10 more are
 * the loader's, mapping libweft), 10 page faults more, 1.16 times the
 * CPU; with libweft's writable data laid out for the loader (sched/bss.ld:
 * one page written, no RELRO page), no atfork registration until the
 * program registers (process/fork.c) and a dormant vfork that leaves the mask
 * alone (process/vfork.c): 36 system calls against 29 (open, read, fstat, three
 * mmaps and close, all the loader's), 2-3 page faults more (libweft's
 * headers and its one data page, the loader's own), 0.98-1.05 times the
 * CPU (three sets of 10 alternating runs; 1.09 before).  So the constructor
 * only notes the initial thread's TCB (wt_dormant_tcb, no system call)
 * and the program runs as natively: every entry finds no task (wt_cur()
 * NULL) and no runtime (wt_runtime_on() false), as on a thread weft did
 * not create, so sleeps, timers, signals, fork and exec are the kernel's
 * and glibc's, and a CPU loop needs no preemption with nothing else to
 * run.  The first need starts the runtime from the thread that has it:
 * pthread_create, or a SIGEV_THREAD timer (whose helper thread glibc would
 * make), on the initial thread.  What the process did before then is
 * carried over:
 *   - main stays on the initial stack (no slot: the "no slot" case of
 *     task.c's wt_task_run_main), its top recorded before main ran, and
 *     main's first frame (its cancel buffer) was registered then too;
 *   - the program's handlers, in the kernel until now, go through the
 *     trampoline (a handler, or SIG_IGN for a signal weft keeps, is
 *     recorded as sigaction would have: wt_sig_adopt), and its alternate
 *     signal stack becomes the main task's;
 *   - owner ids: a mutex main locked before the start holds the main
 *     task's id (shim.h: wt_self_tid gives it to the dormant initial
 *     thread), and a recursive lock of the dynamic loader held across the
 *     start (a library's constructor, run by dlopen, makes the first
 *     thread) is moved to it (rtld_locks_follow).
 * A start from another thread (one made behind weft's back, by clone or
 * inside glibc) is refused, silently: weft then stays off, as natively.
 * WEFTDEBUG, or WEFT_START=eager, starts in the constructor, as before:
 * a trace or a task dump wants every process, lone tasks included.
 * Rejected: a lazy sysmon with the rest started (main a task on its slot,
 * the stack arena, the TLS probes, the handlers: 60 system calls left, and
 * a lone task's sleep then parked with nobody to fire its timer).
 */

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sys/auxv.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "process/pshared.h"
#include "runtime.h"
#include "process/prio.h"
#include "config.h"
#include "lowlock.h"
#include "signal/crash.h"
#include "hooks.h"
#include "process/fork.h"
#include "preempt.h"
#include "base/print.h"
#include "proc.h"
#include "base/real.h"
#include "signal/sighandler.h"
#include "signal/sigstack.h"
#include "signal/sigtask.h"
#include "base/slab.h"
#include "sysmon.h"
#include "task.h"
#include "text.h"
#include "thread.h"
#include "base/throw.h"
#include "io/privfd.h"
#include "stack/tls.h"
#include "worker.h"

#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1u << 31) /* the kernel's; glibc's headers may lack it */
#endif

struct wt_task *wt_main_task;
WT_DORMANT_DATA _Atomic uintptr_t wt_dormant_tcb;
/* [start_lock] the initial stack's top above main's frames, for a
 * start from inside main (wt_runtime_main_stack). */
static WT_DORMANT_DATA char *main_stack_hi;
static wt_lock_t start_lock = WT_LOCK_INIT(WT_RANK_START);
/* [atomic] written under start_lock, read with acquire without it. */
static WT_DORMANT_DATA _Atomic int start_state;
enum { NOT_STARTED = 0, STARTING, RUNNING, REFUSED };
/* [atomic] the OS thread running the start, while STARTING: the program's
 * code the start calls (its malloc) may come back here. */
static _Atomic int starter;

/* The dynamic loader's recursive locks (dlopen's, held while it runs a
 * library's constructors) record their holder as the tid field of its TCB,
 * and glibc's unlock refuses a holder whose field changed: one the initial
 * thread holds as from is made to.  They lie in _rtld_global, whose size
 * the symbol gives; a glibc recursive mutex there is the five ints lock,
 * count, owner, nusers, kind.  Context: the start, on the initial thread,
 * before its TCB's tid field changes; dlsym and dladdr1 take the loader's
 * lock, which is recursive and this thread's if anyone's. */
static void rtld_locks_follow(int from, int to)
{
	Dl_info info;
	const ElfW(Sym) *sym = NULL;
	char *g = dlsym(RTLD_DEFAULT, "_rtld_global");
	if (!g || !dladdr1(g, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
		return;
	for (size_t off = 0; off + 5 * sizeof(int) <= sym->st_size; off += sizeof(int)) {
		int *w = (int *)(g + off);
		if (w[2] == from && w[4] == PTHREAD_MUTEX_RECURSIVE_NP && w[0] != 0 && w[1] > 0)
			__atomic_store_n(&w[2], to, __ATOMIC_RELAXED);
	}
}

/* Signals pending for the initial thread alone (raise, pthread_kill, a
 * tgkill, while main blocked them) before a dormant start: the kernel
 * holds them on that thread, which becomes worker 0 and runs other tasks,
 * one of which would see them in sigpending or take them once it
 * unblocked them.  They move to the main task's pending set, as
 * pthread_kill to a task leaves them (one of each, without its siginfo).
 * The thread's own set is /proc's SigPnd (ShdPnd, the process's, stays in
 * the kernel); a zero-timeout sigtimedwait takes the thread's before the
 * process's.  Context: the start, initial thread, only task: the
 * descriptor it opens for a moment is in no other thread's way. */
static void pending_to_main(struct wt_task *t)
{
	char buf[4096];
	long fd = wt_syscall6(SYS_openat, AT_FDCWD, (long)"/proc/thread-self/status",
			      O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return;
	long n = wt_syscall6(SYS_read, fd, (long)buf, sizeof buf - 1, 0, 0, 0);
	wt_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	if (n <= 0)
		return;
	buf[n] = 0;
	const char *p = strstr(buf, "\nSigPnd:");
	if (!p)
		return;
	uint64_t pend = strtoull(p + 9, NULL, 16) & ~WT_SIG_KEEP &
			~(WT_SIGBIT(SIGKILL) | WT_SIGBIT(SIGSTOP) | WT_SIGBIT(32) | WT_SIGBIT(33));
	struct timespec zero = { 0, 0 };
	for (int sig = 1; sig <= 64; sig++) {
		uint64_t one = WT_SIGBIT(sig);
		if ((pend & one) && wt_syscall6(SYS_rt_sigtimedwait, (long)&one, 0, (long)&zero, 8,
					       0, 0) == sig)
			atomic_fetch_or(&t->sigpend, one);
	}
}

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
	/* A start after the constructor, from inside the program. */
	bool dormant = atomic_load_explicit(&wt_dormant_tcb, memory_order_relaxed) != 0;
	if (pid != tid) {
		if (!dormant)
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
	if (dormant)
		rtld_locks_follow(*(int *)(wt_tls_pd(t->tp) + wt_off_tid), t->tid);
	*(int *)(wt_tls_pd(t->tp) + wt_off_tid) = t->tid;
	/* From here the TCB gives main's id (wt_self_tid). */
	atomic_store_explicit(&wt_dormant_tcb, 0, memory_order_relaxed);
	struct rlimit rl;
	size_t ssz = 8u << 20;
	if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		ssz = rl.rlim_cur;
	t->stack_hi = main_stack_hi ? main_stack_hi : (char *)__builtin_frame_address(0);
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
	/* What the program set in the kernel before a dormant start: read
	 * before weft's own handlers and alternate stack replace them. */
	stack_t altstk = { .ss_flags = SS_DISABLE };
	uint64_t held = 0;
	if (dormant) {
		held = wt_sig_start_hold();
		wt_sig_adopt_read();
		wt_syscall6(SYS_sigaltstack, 0, (long)&altstk, 0, 0, 0, 0);
	}
	/* The fault handler first: from worker_enter on (trap mode), any
	 * context switch makes the next TLS access a SIGSEGV to repair. */
	wt_crash_init();
	m->sigstk = wt_crash_altstack();
	wt_text_init();
	wt_preempt_init();
	wt_tls_worker_enter(m);
	/* The main task keeps the mask the process started with. */
	uint64_t first = wt_sig_thread_init(m);
	t->sigmask = (dormant ? held : first) & ~(WT_SIGBIT(SIGKILL) | WT_SIGBIT(SIGSTOP) |
						 WT_SIGBIT(32) | WT_SIGBIT(33));
	wt_sig_init();
	if (dormant) {
		wt_sig_adopt();
		pending_to_main(t);
		if (!(altstk.ss_flags & SS_DISABLE)) {
			altstk.ss_flags &= SS_AUTODISARM;
			wt_sigstack_set(t, &altstk, NULL, (uintptr_t)__builtin_frame_address(0));
		}
		wt_sig_start_release(m, t->sigmask);
	}
	wt_fork_init();

	wt_task_link(t);
	atomic_store(&wt_ntasks, 1);
	wt_libc_mode_init();
	wt_tl_start(m); /* before sysmon and workers: they read wt_tl_on */
	wt_prof_start(m); /* before sysmon and workers: they read wt_prof_on */
	wt_privfd_init(); /* before sysmon, whose first cgroup lookup may need it */
	wt_lowlock_init(); /* while this is the process's only thread */
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

WT_DORMANT_TEXT void wt_runtime_main_stack(char *hi)
{
	main_stack_hi = hi;
}

WT_DORMANT_TEXT bool wt_runtime_on(void)
{
	return atomic_load_explicit(&start_state, memory_order_acquire) == RUNNING;
}

/* WEFTDEBUG (set, not empty) or WEFT_START=eager: start in the
 * constructor (the essay).  Nothing is read in secure-execution mode
 * (config.c), where the start stays lazy: AT_SECURE is looked at once one
 * of them is found (getauxval's first call costs a lazy binding, about a
 * thousand instructions, in every process). */
WT_DORMANT_TEXT static bool start_eager(void)
{
	extern char **__environ;
	if (!__environ)
		return false;
	/* Character by character, each compared with a constant the code
	 * holds: getenv, strcmp and a string literal would each touch one
	 * more page.  && stops at the NUL. */
	for (char **e = __environ; *e; e++) {
		const char *s = *e;
		if (s[0] != 'W' || s[1] != 'E' || s[2] != 'F' || s[3] != 'T')
			continue;
		s += 4;
		if (s[0] == 'D' && s[1] == 'E' && s[2] == 'B' && s[3] == 'U' && s[4] == 'G' &&
		    s[5] == '=' && s[6])
			return !getauxval(AT_SECURE); /* WEFTDEBUG=... */
		if (s[0] == '_' && s[1] == 'S' && s[2] == 'T' && s[3] == 'A' && s[4] == 'R' &&
		    s[5] == 'T' && s[6] == '=' && s[7] == 'e' && s[8] == 'a' && s[9] == 'g' &&
		    s[10] == 'e' && s[11] == 'r' && !s[12])
			return !getauxval(AT_SECURE); /* WEFT_START=eager */
	}
	return false;
}

WT_DORMANT_TEXT __attribute__((constructor(101))) static void weft_ctor(void)
{
	if (atomic_load_explicit(&start_state, memory_order_acquire) != NOT_STARTED)
		return; /* an earlier entry started it */
	if (start_eager()) {
		wt_runtime_start();
		return;
	}
	atomic_store_explicit(&wt_dormant_tcb, wt_arch_tcb_self(), memory_order_relaxed);
}
