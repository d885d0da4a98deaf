/*
 * dump.c — SIGQUIT: every task, what it waits on, and its backtrace, as Go
 * prints every goroutine.
 *
 *   task 7 [pthread_cond_wait on 0x55d0c0a0e0a0, 1204 ms]:
 *     #0  0x7f0c4a01c3de wt_mcall+0x9e (/usr/lib/weft/libweft.so)
 *     ...
 *     #5  0x55d0c0a0b2c1 parked_worker+0x31 (/home/u/prog)
 *     start function parked_worker, created by task 1
 *
 * A task the program named (pthread_setname_np, prctl) has a line
 * "  thread name NAME" after its first.
 *
 * WEFT_SIGQUIT (core/config.c) says what SIGQUIT does: dump-exit (the default,
 * as Go: dump, then exit with status 2), dump-continue, or off (SIGQUIT
 * keeps its native meaning).  A program that installs its own SIGQUIT
 * handler replaces weft's, as natively; shim/signal.c reports SIG_DFL to a
 * program that asks what the disposition is while weft's is installed.
 *
 * Protocol:
 *   1. the handler (any thread, async-signal-safe) sets wt_dump_req and
 *      kicks sysmon — nothing else: it may have interrupted a task holding
 *      any lock, on any worker;
 *   2. sysmon starts a dumper thread (an OS thread of weft's own, no
 *      proc), so that sysmon never waits on a lock the dump may need
 *      (dladdr's loader lock, libunwind's malloc) and keeps preempting
 *      and retaking meanwhile;
 *   3. the dumper copies the list of tasks (pointer and id) under alllock
 *      and lets it go, so task creation and exit go on during the dump;
 *      it waits for alllock about a second at most: a thread stuck while
 *      it holds it gets a dump of what each worker runs instead, with a
 *      line that says the list could not be had;
 *   4. for each task: it reads `resumes` and the state; a task WAITING or
 *      RUNNABLE that has run before has its registers saved on its stack
 *      (arch.h: wt_ctx_switch's frame at ctx.sp) and stays switched out
 *      until something resumes it.  The dumper rebuilds the registers from
 *      that frame, walks the stack with libunwind into an array of return
 *      addresses, then re-reads `resumes` and the state: if either moved,
 *      the task ran meanwhile and the walk may have read a stack being
 *      rewritten, so it is dropped ("resumed during the dump").  A resumed
 *      task bumps `resumes` before its first stack write (wt_task_resumed,
 *      release fence), and the dumper's re-read follows its stack reads
 *      (acquire fence): a walk that saw any new stack content sees the
 *      bump.  (Seqlock-style; on x86 both fences are compiler barriers.)
 *      A walk that follows a stale pointer into unmapped memory (its task
 *      exited and its stack went away) faults: the SIGSEGV handler
 *      (signal/crash.c) calls wt_dump_fault, which jumps back out of the walk;
 *   5. symbols (symbol.c: the objects' .symtab, then dladdr) are looked up
 *      after the walk, and lines go out through a 64 KiB buffer.
 *      Cost here: about 0.1-0.3 ms a task (libunwind checks each new
 *      stack page with mincore and a pipe write before reading it), so
 *      10,000 parked tasks take 1-3 s.
 *   6. dump-exit ends the process with exit_group(2) from the dumper.
 * Tasks running on a worker cannot be walked from a saved context (they
 * have none): their line says "running on worker N".
 *
 * `weft stack PID` (tools/stack.py) asks for the same dump, written to the
 * caller's file instead of fd 2, and the program runs on.  The caller
 * holds an unlinked, empty temporary file on its descriptor N and queues
 * SIGURG (weft's own signal, never blocked, ignored natively; SIGQUIT
 * would change the program's own SIGQUIT behaviour) with si_value
 * WT_STACK_MAGIC << 32 | N.  core/preempt.c's handler hands it to
 * wt_dump_signal, which records (sender, N) and kicks sysmon, as for
 * SIGQUIT; the dumper opens /proc/SENDER/fd/N (the kernel checks that
 * this process may look into the sender's descriptors: same user), takes
 * it only if it is a regular file that is empty and has no name (a
 * signal's sender id can be forged; no named file is ever written), and
 * ends the dump with its usual last line, "weft: N tasks dumped in M ms",
 * which the caller waits for.  A request while a dump is under way waits
 * for it to end (sysmon asks again each tick).
 *
 * `weft top PID` (tools/top.py) asks once a second for a list: the same
 * request with WT_TOP_MAGIC, answered by the same dumper on the same
 * file, but with one line a task and no walk, no libunwind, no symbol
 * beyond the start function's:
 *   T <TAB> id <TAB> state <TAB> worker <TAB> cpu ns <TAB> ms waited <TAB>
 *   call <TAB> object <TAB> start function <TAB> name
 * state is running, syscall (running, in a system call), runnable, new
 * (runnable, never ran), waiting, idle (not started) or exited; worker -1
 * and ms waited -1 where they do not apply.  The header line carries the
 * program's monotonic clock, so the caller's CPU percentages divide by
 * the program's own interval.  The cpu figure is process/cpuclock.c's: the first
 * request starts its counting (the switch path's window reads, one clock
 * system call per 100 us of a busy worker at most, nothing per switch),
 * and each task's time is read without alllock, the task's id checked
 * after it.  1,000 tasks list in about a millisecond.
 * Rejected: a table of tasks in shared memory that the tool maps (a
 * mapping and a name in the program for every weft program, kept up to
 * date at each switch whether anyone looks or not, where a list made on
 * request costs nothing until the first `weft top`); running the list on
 * sysmon (it may wait up to a second for alllock, and sysmon must go on
 * preempting meanwhile).
 *
 * Descriptors: the dumper thread takes a descriptor table of its own as it
 * starts (io/privfd.c), with a copy of descriptor 2 for SIGQUIT's output:
 * weft stack's file, the ELF files symbol.c maps, libunwind's pipe and
 * libdw's files never take a number in the program's table.  A dump that
 * runs on sysmon opens weft stack's file in io/privfd.c's helper.
 *
 * deadlock.c's report (wt_dump_report) goes the same way: sysmon hands
 * over some text and the tasks to show, and a thread of the dumper's kind
 * prints them as the dump does, one dump or report at a time.
 *
 * Rejected: stopping the world (weft has no safe points for parked and
 * running tasks alike); holding a task that wakes up while it is walked
 * until the walk ends (a held task may own the very lock the walk takes:
 * a program's dl_iterate_phdr callback owns the loader's, which libunwind
 * needs) — a dropped backtrace is better than a deadlock; walking inside
 * the signal handler (it may run on a task holding malloc's or the
 * loader's lock, and 10,000 walks are too long for a handler).
 */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>

#include "core/runtime.h"
#include "core/config.h"
#include "process/cpuclock.h"
#include "dump.h"
#include "signal/sighandler.h"
#include "base/print.h"
#include "io/privfd.h"
#include "base/real.h"
#include "signal/sigtask.h"
#include "core/task.h"
#include "core/thread.h"
#include "base/slab.h"
#include "symbol.h"
#include "core/sysmon.h"
#include "unwind.h"
#include "timeline.h"
#include "core/worker.h"

#define MAXFRAMES 64

_Atomic int wt_dump_req;
static _Atomic int busy;         /* [atomic] a dump is under way */
/* [atomic] weft stack's request: sender pid << 32 | its descriptor, with
 * REQ_TOP set for weft top's (a descriptor is below 2^31); 0 none.
 * Stored by wt_dump_signal before WT_DUMP_STACK is set in wt_dump_req
 * (release), read by wt_dump_start after it saw the bit (acquire). */
static _Atomic uint64_t stack_req;
static _Atomic bool busy_stack;  /* [atomic; set by sysmon before busy's dumper starts] it is weft
				  * stack's or a report (wt_dump_report): a SIGQUIT waits for its end */
static _Atomic int walker_tid;   /* [atomic] the dumper's tid while it walks, else 0 */
static sigjmp_buf walk_jmp;      /* [dumper] */
static char buf[65536] WT_BSS_LARGE; /* [busy] the output: one dump at a time */
#define REQ_TOP (1ull << 31)
#define REQ_FD(req) ((int)((uint32_t)(req) & 0x7fffffff))

struct snap {
	struct wt_task *t;
	uint64_t id;
};

/* [busy] wt_dump_report's request: its text, its tasks, its end. */
static struct {
	char head[8192], tail[256];
	struct snap t[WT_DUMP_REPORT_MAX];
	int n;
	int exit_status;
} rep WT_BSS_LARGE;

/* Context: signal handler, any thread.  Async-signal-safe: an atomic
 * store and a futex wake. */
static void on_sigquit(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	atomic_fetch_or_explicit(&wt_dump_req, WT_DUMP_QUIT, memory_order_relaxed);
	wt_sysmon_kick();
}

/* Context: the SIGURG handler (core/preempt.c), any worker.  Is si weft stack's
 * request?  Then it is recorded for sysmon.  Async-signal-safe. */
bool wt_dump_signal(const siginfo_t *si)
{
	uint64_t v = (uint64_t)(uintptr_t)si->si_value.sival_ptr;
	if (si->si_code != SI_QUEUE || si->si_pid == wt_pid || si->si_pid <= 0 ||
	    (v >> 32 != WT_STACK_MAGIC && v >> 32 != WT_TOP_MAGIC) || (uint32_t)v > 0x7fffffff)
		return false;
	atomic_store_explicit(&stack_req, (uint64_t)si->si_pid << 32 | (uint32_t)v |
						  (v >> 32 == WT_TOP_MAGIC ? REQ_TOP : 0),
			      memory_order_relaxed);
	/* Release: pairs with the acquire exchange in wt_dump_start. */
	atomic_fetch_or_explicit(&wt_dump_req, WT_DUMP_STACK, memory_order_release);
	wt_sysmon_kick();
	return true;
}

/* Context: start, on the initial thread, after sysmon started.  A SIGQUIT
 * the process inherited as ignored (a shell's `prog &`) stays ignored
 * unless WEFT_SIGQUIT was given: natively it would do nothing. */
void wt_dump_init(void)
{
	struct sigaction sa = { 0 }, old;
	if (wt_cfg.sigquit == WT_SIGQUIT_OFF)
		return;
	if (real.sigaction(SIGQUIT, NULL, &old) != 0 ||
	    (old.sa_handler != SIG_DFL && !(old.sa_handler == SIG_IGN && wt_cfg.sigquit_set)))
		return;
	sa.sa_sigaction = on_sigquit;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	wt_sig_install_own(SIGQUIT, &sa, NULL);
}

/* shim/signal.c: a disposition read back shows SIG_DFL where weft's
 * handler stands (the program never installed it). */
void wt_dump_hide(struct sigaction *old)
{
	if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction == on_sigquit) {
		memset(old, 0, sizeof *old);
		old->sa_handler = SIG_DFL;
	}
}

/* Context: the SIGSEGV/SIGBUS handler (signal/crash.c), any thread.  Returns
 * false unless this thread is the dumper inside a walk, which it leaves. */
bool wt_dump_fault(void)
{
	int w = atomic_load_explicit(&walker_tid, memory_order_relaxed);
	if (!w || w != (int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0))
		return false;
	real.siglongjmp(walk_jmp, 1); /* glibc's: the exported one is the program's (shim/setjmp.c) */
	__builtin_unreachable();
}

/* [dumper] Return addresses of a switched-out task, from the frame
 * wt_ctx_switch saved at sp; -1 if the walk faulted or sp is off the
 * task's stack (it was reused meanwhile). */
static int walk(uintptr_t sp, uintptr_t lo, uintptr_t hi, uintptr_t *pcs, int max, int tid)
{
	if (sp < lo || sp + WT_FRAME_SIZE > hi)
		return -1;
	atomic_store_explicit(&walker_tid, tid, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	if (sigsetjmp(walk_jmp, 1)) {
		atomic_store_explicit(&walker_tid, 0, memory_order_relaxed);
		return -1;
	}
	ucontext_t uc;
	wt_ctx_regs(sp, &uc); /* reads the frame: may fault */
	const struct wt_unw *u = wt_unwind(); /* loaded before the walk: see the dump's start */
	unw_cursor_t c;
	int n = 0;
	if (u && u->init_local(&c, (unw_context_t *)&uc) == 0) {
		do {
			unw_word_t ip;
			if (u->get_reg(&c, UNW_REG_IP, &ip) < 0 || ip == 0)
				break;
			pcs[n++] = ip;
		} while (n < max && u->step(&c) > 0);
	}
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&walker_tid, 0, memory_order_relaxed);
	return n;
}

/* [busy] This dump walks no stack, and runs on sysmon (wt_dump_start). */
static bool nowalk;

/* [dumper] The dump is over: the next may start. */
static void thread_done(void)
{
	if (!nowalk)
		atomic_fetch_sub(&wt_nthreads, 1);
	atomic_store(&busy, 0);
}

static int64_t coarse_now(void)
{
	struct timespec ts;
	wt_clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void print_frames(struct wt_wbuf *o, const uintptr_t *pcs, int n)
{
	for (int i = 0; i < n; i++) {
		struct wt_sym s;
		char line[1024];
		/* Every pc here is a return address (the first one too: the
		 * switch returns there). */
		wt_symbolize(pcs[i], true, &s, true);
		wt_sym_line(line, sizeof line, i, pcs[i], &s, NULL, 0);
		wt_wprint(o, "%s", line);
	}
	if (n == MAXFRAMES)
		wt_wprint(o, "  ...more frames...\n");
}

/* [dumper] One task.  Returns false if it is gone (exited meanwhile). */
static bool dump_task(struct wt_wbuf *o, const struct snap *sn, int tid)
{
	struct wt_task *t = sn->t;
	/* Acquire: pairs with the release fence in wt_task_resumed and the
	 * state stores made after the context was saved (core/proc.c). */
	uint32_t c1 = atomic_load_explicit(&t->resumes, memory_order_acquire);
	int st = atomic_load_explicit(&t->state, memory_order_acquire);
	if (t->id != sn->id)
		return false;
	const char *why = t->wait_reason;
	const void *on = t->wait_on;
	int64_t since = t->wait_since;
	struct wt_m *m = t->m;
	bool started = t->main || c1 != 0;
	uintptr_t pcs[MAXFRAMES];
	int n = 0;
	bool torn = false;
	bool walk_it = started && (st == WT_WAITING || st == WT_RUNNABLE);
	if (walk_it && nowalk)
		walk_it = torn = false;
	if (walk_it) {
		n = walk(t->ctx.sp, (uintptr_t)t->stack_lo, (uintptr_t)t->stack_hi, pcs, MAXFRAMES,
			 tid);
		atomic_thread_fence(memory_order_acquire);
		torn = n < 0 || atomic_load_explicit(&t->resumes, memory_order_relaxed) != c1 ||
		       atomic_load_explicit(&t->state, memory_order_relaxed) != st ||
		       t->id != sn->id;
	}
	char state[160];
	switch (st) {
	case WT_WAITING: {
		if (!why)
			why = on == &t->timer ? "sleep" : "wait";
		int k = wt_snprintf(state, sizeof state, "%s on %p", why, on);
		if (since > 0)
			wt_snprintf(state + k, sizeof state - k, ", %ld ms",
				    (long)((coarse_now() - since) / 1000000));
		break;
	}
	case WT_RUNNABLE:
		wt_snprintf(state, sizeof state, started ? "runnable" : "runnable, not started");
		break;
	case WT_RUNNING:
		wt_snprintf(state, sizeof state, "running on worker %d%s", m ? m->id : -1,
			    m && m->insyscall ? ", in a system call" : "");
		break;
	case WT_IDLE:
		wt_snprintf(state, sizeof state, "not started");
		break;
	default:
		wt_snprintf(state, sizeof state, "exited, not joined");
	}
	wt_wprint(o, "task %lu [%s]:\n", (unsigned long)sn->id, state);
	char name[sizeof t->name];
	wt_task_name_copy(t, name);
	if (name[0])
		wt_wprint(o, "  thread name %s\n", name);
	if (nowalk && started && (st == WT_WAITING || st == WT_RUNNABLE))
		wt_wprint(o, "  (no backtrace: the process was single-threaded to glibc, and "
			     "its worker could not be held for the dump)\n");
	else if (torn)
		wt_wprint(o, "  (resumed during the dump: backtrace dropped)\n");
	else
		print_frames(o, pcs, n);
	if (t->main) {
		wt_wprint(o, "  main task\n\n");
	} else {
		struct wt_sym s;
		wt_symbolize((uintptr_t)t->start, false, &s, true);
		if (s.name && s.off == 0)
			wt_wprint(o, "  start function %s, created by task %lu\n\n", s.name,
				  (unsigned long)t->creator);
		else
			wt_wprint(o, "  start function %p, created by task %lu\n\n", (void *)t->start,
				  (unsigned long)t->creator);
	}
	return true;
}

/* [dumper] weft top's line for one task (the format: the essay).
 * Returns false if it is gone (exited meanwhile). */
static bool top_task(struct wt_wbuf *o, const struct snap *sn)
{
	struct wt_task *t = sn->t;
	int st = atomic_load_explicit(&t->state, memory_order_acquire);
	bool started = t->main || atomic_load_explicit(&t->resumes, memory_order_relaxed) != 0;
	const char *why = t->wait_reason;
	const void *on = t->wait_on;
	int64_t since = t->wait_since;
	struct wt_m *m = __atomic_load_n(&t->m, __ATOMIC_RELAXED);
	int64_t cpu = wt_cpu_task_ns(t);
	char name[sizeof t->name];
	wt_task_name_copy(t, name);
	void *start = (void *)t->start;
	bool is_main = t->main;
	atomic_thread_fence(memory_order_acquire);
	if (t->id != sn->id)
		return false;
	const char *state;
	int worker = -1;
	long waited = -1;
	switch (st) {
	case WT_WAITING:
		state = "waiting";
		if (!why)
			why = on == &t->timer ? "sleep" : "wait";
		if (since > 0)
			waited = (long)((coarse_now() - since) / 1000000);
		break;
	case WT_RUNNABLE:
		state = started ? "runnable" : "new";
		break;
	case WT_RUNNING:
		worker = m ? m->id : -1;
		state = m && m->insyscall ? "syscall" : "running";
		break;
	case WT_IDLE:
		state = "idle";
		break;
	default:
		state = "exited";
	}
	if (st != WT_WAITING) {
		why = "-";
		on = NULL;
	}
	for (char *c = name; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	char fn[128];
	struct wt_sym s;
	if (is_main) {
		wt_snprintf(fn, sizeof fn, "main");
	} else {
		wt_symbolize((uintptr_t)start, false, &s, true);
		if (s.name && s.off == 0)
			wt_snprintf(fn, sizeof fn, "%s", s.name);
		else
			wt_snprintf(fn, sizeof fn, "%p", start);
	}
	wt_wprint(o, "T\t%lu\t%s\t%d\t%ld\t%ld\t%s\t%p\t%s\t%s\n", (unsigned long)sn->id, state,
		  worker, (long)cpu, waited, why, on, fn, name);
	return true;
}

/* [dumper] alllock, waited for at most about a second: a worker stuck
 * while it holds it (a lock-order bug, a handler of the program's run
 * where it should not be) must not stop the dump too.  false: not got. */
static bool alllock_bounded(void)
{
	for (int i = 0; i < 1000; i++) {
		if (wt_trylock(&wt_sched.alllock))
			return true;
		struct timespec ms = { 0, 1000000 };
		wt_syscall6(SYS_nanosleep, (long)&ms, 0, 0, 0, 0, 0);
	}
	return false;
}

/* [dumper] What each worker runs, read without a lock (the list of
 * workers only grows): the dump when the list of tasks cannot be had. */
static void dump_workers(struct wt_wbuf *o)
{
	for (struct wt_m *m = atomic_load_explicit(&wt_sched.allm, memory_order_acquire); m;
	     m = m->alllink) {
		int ostid = __atomic_load_n(&m->ostid, __ATOMIC_RELAXED);
		if (!ostid)
			continue;
		bool task = __atomic_load_n(&m->curg, __ATOMIC_RELAXED) != NULL;
		wt_wprint(o, "worker %d [thread %d, %s%s]\n", m->id, ostid,
			  task ? "running a task" : "on its scheduler stack",
			  m->insyscall ? ", in a system call" : "");
	}
	wt_wprint(o, "\n");
}

/* [dumper] The tasks, newest first, in an mmap'd array; *cap its size.
 * NULL with *locked set: alllock was not to be had. */
static struct snap *snapshot(size_t *n, size_t *cap, size_t *left, bool *locked)
{
	size_t cnt = 0;
	*n = *left = 0;
	*cap = 0;
	*locked = !alllock_bounded();
	if (*locked)
		return NULL;
	for (struct wt_task *t = wt_sched.alltasks; t; t = t->alllink)
		cnt++;
	wt_unlock(&wt_sched.alllock);
	*cap = cnt + 1024; /* room for tasks created in between */
	struct snap *s = wt_mmap_anon(*cap * sizeof *s);
	if (!s)
		return NULL;
	if ((*locked = !alllock_bounded())) {
		wt_syscall6(SYS_munmap, (long)s, (long)(*cap * sizeof *s), 0, 0, 0, 0);
		return NULL;
	}
	for (struct wt_task *t = wt_sched.alltasks; t; t = t->alllink) {
		if (*n < *cap) {
			s[*n].t = t;
			s[*n].id = t->id;
			(*n)++;
		} else {
			(*left)++;
		}
	}
	wt_unlock(&wt_sched.alllock);
	return s;
}

/* [dumper] weft stack's file: /proc/PID/fd/N of the request, if it is a
 * regular file, empty and unnamed; else -1 (nothing is written).  Opened
 * without blocking (a FIFO with no reader: ENXIO, not a stalled helper),
 * in weft's own table (io/privfd.c): the dumper's, or the helper's when the
 * dump runs on sysmon. */
static int stack_file(uint64_t req)
{
	char p[64];
	wt_snprintf(p, sizeof p, "/proc/%d/fd/%d", (int)(req >> 32), REQ_FD(req));
	long fd = wt_privfd_syscall(SYS_openat, AT_FDCWD, (long)p, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
				    0, 0, 0);
	if (fd < 0)
		return -1;
	struct stat st;
	if (wt_privfd_syscall(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_nlink != 0 || st.st_size != 0) {
		wt_privfd_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
		return -1;
	}
	return (int)fd;
}

/* [dumper] Its own descriptor table (io/privfd.c), with a copy of 2 unless
 * stack (weft stack's dump): returns the descriptor of that copy, or 2. */
static int own_fds(bool stack)
{
	int err_fd = 2;
	if (!nowalk && wt_privfd_own(stack ? 0 : 3) == 0 && !stack) {
		/* The copy of 2 moved above the small numbers: libunwind keeps
		 * its pipe's numbers in a global and closes them when it makes
		 * a new pipe, which, from an earlier dumper's table, were this
		 * table's 1 and 2 (a SIGQUIT during weft stack's dump lost its
		 * whole output so). */
		long hi = wt_syscall6(SYS_fcntl, 2, F_DUPFD_CLOEXEC, 100, 0, 0, 0);
		if (hi >= 0)
			err_fd = (int)hi;
		wt_syscall6(SYS_close, 0, 0, 0, 0, 0, 0);
		wt_syscall6(SYS_close, 1, 0, 0, 0, 0, 0);
	}
	return err_fd;
}

/* The dumper thread: one dump, then exit (the process or the thread).
 * arg: weft stack's request (sender << 32 | descriptor), or 0 for
 * SIGQUIT's dump to fd 2. */
static void *dumper(void *arg)
{
	uint64_t req = (uint64_t)(uintptr_t)arg;
	int tid = (int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	int64_t t0 = wt_nanotime();
	/* On a thread of its own: a descriptor table of its own too, with a
	 * copy of descriptor 2 only (SIGQUIT's output), so that weft stack's
	 * file, libunwind's pipe and libdw's files never take a number of the
	 * program's (io/privfd.c). */
	int err_fd = own_fds(req != 0);
	bool top = req & REQ_TOP;
	if (top && !atomic_exchange_explicit(&wt_cpuacct_on, true, memory_order_relaxed))
		atomic_store_explicit(&wt_cpuacct_kick, true, memory_order_relaxed); /* process/cpuclock.c */
	int fd = req ? stack_file(req) : err_fd;
	if (fd < 0) {
		thread_done();
		return NULL;
	}
	struct wt_wbuf o = { buf, 0, sizeof buf, fd, req ? wt_privfd_write : NULL };
	size_t n, cap, left, shown = 0;
	/* A cache per thread: the global one takes a lock and blocks every
	 * signal around each step (two sigprocmask calls a frame). */
	const struct wt_unw *u = nowalk || top ? NULL : wt_unwind(); /* the first dump loads it */
	if (u)
		u->set_caching_policy(*u->local_addr_space, UNW_CACHE_PER_THREAD);
	bool locked;
	struct snap *s = snapshot(&n, &cap, &left, &locked);
	if (top)
		wt_wprint(&o, "weft top: pid %d, GOMAXPROCS=%d, %d threads, now %ld ns\n", wt_pid,
			  wt_sched.nprocs, atomic_load(&wt_nthreads), (long)wt_nanotime());
	else if (req)
		wt_wprint(&o, "weft stack: pid %d\n", wt_pid);
	else
		wt_wprint(&o, "SIGQUIT: quit\n");
	if (locked) {
		wt_wprint(&o, "weft: the list of tasks stayed locked for 1 s (a thread holds "
			      "weft's alllock and does not let it go); the workers instead:\n\n");
		dump_workers(&o);
	}
	if (!top)
		wt_wprint(&o, "weft: %zu tasks, GOMAXPROCS=%d, %d threads\n\n",
			  n + left, wt_sched.nprocs, atomic_load(&wt_nthreads));
	for (size_t i = n; i-- > 0;) /* oldest first */
		shown += top ? top_task(&o, &s[i]) : dump_task(&o, &s[i], tid);
	if (left)
		wt_wprint(&o, "weft: %zu tasks created during the dump are not shown\n", left);
	wt_wprint(&o, "weft: %zu tasks dumped in %ld ms\n", shown,
		  (long)((wt_nanotime() - t0) / 1000000));
	wt_wflush(&o);
	if (s)
		wt_syscall6(SYS_munmap, (long)s, (long)(cap * sizeof *s), 0, 0, 0, 0);
	if (req) { /* weft stack: the program runs on */
		wt_privfd_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
		thread_done();
		return NULL;
	}
	/* The trace too: ended when the process ends here. */
	wt_tl_flush(wt_cfg.sigquit == WT_SIGQUIT_EXIT, "SIGQUIT", true);
	if (wt_cfg.sigquit == WT_SIGQUIT_EXIT)
		for (;;)
			wt_syscall6(SYS_exit_group, 2, 0, 0, 0, 0, 0);
	thread_done();
	return NULL;
}

/* Context: sysmon.  glibc is still in its single-threaded mode (core/thread.c):
 * the dumper, a glibc thread that allocates, may be made once glibc has
 * switched, which it does here while the only task waits or is queued
 * (the only worker held idle meanwhile).  A running task needs no walk:
 * false, and the dump runs on sysmon. */
static bool libc_switch(void)
{
	struct wt_task *t = wt_main_task;
	int st = t ? atomic_load(&t->state) : WT_RUNNING;
	if (atomic_load(&wt_ntasks) != 1 || (st != WT_WAITING && st != WT_RUNNABLE))
		return false;
	int ostid = 0, live = 0;
	for (struct wt_m *m = atomic_load_explicit(&wt_sched.allm, memory_order_acquire); m;
	     m = m->alllink)
		if (m->ostid) {
			ostid = m->ostid;
			live++;
		}
	return live == 1 && wt_libc_threaded_idle(t, ostid);
}

/* Context: sysmon.  One dump at a time: a SIGQUIT during SIGQUIT's dump
 * is dropped (as before weft stack existed); a SIGQUIT during weft
 * stack's dump, and a weft stack request during any, wait for its end
 * (sysmon asks again each tick); SIGQUIT's goes first. */
void wt_dump_start(void)
{
	/* Acquire: pairs with the release in wt_dump_signal (stack_req). */
	int want = atomic_exchange_explicit(&wt_dump_req, 0, memory_order_acquire);
	int z = 0;
	if (!atomic_compare_exchange_strong(&busy, &z, 1)) {
		int keep = want & WT_DUMP_STACK;
		if (atomic_load_explicit(&busy_stack, memory_order_relaxed))
			keep |= want & WT_DUMP_QUIT;
		if (keep)
			atomic_fetch_or_explicit(&wt_dump_req, keep, memory_order_relaxed);
		return;
	}
	uint64_t req = 0;
	if (want & WT_DUMP_QUIT) {
		if (want & WT_DUMP_STACK) /* after this one */
			atomic_fetch_or_explicit(&wt_dump_req, WT_DUMP_STACK, memory_order_relaxed);
	} else if (want & WT_DUMP_STACK) {
		req = atomic_load_explicit(&stack_req, memory_order_relaxed);
	} else {
		atomic_store(&busy, 0); /* nothing asked after all */
		return;
	}
	atomic_store_explicit(&busy_stack, req != 0, memory_order_relaxed);
	if (wt_libc_single() && !libc_switch()) {
		/* Here, without walks: loading libunwind and walking allocate,
		 * which glibc's single-threaded mode forbids beside the task. */
		nowalk = true;
		dumper((void *)(uintptr_t)req);
		nowalk = false;
		return;
	}
	atomic_fetch_add(&wt_nthreads, 1);
	if (wt_thread_spawn(dumper, (void *)(uintptr_t)req, 1 << 20) != 0) {
		atomic_fetch_sub(&wt_nthreads, 1);
		atomic_store(&busy, 0);
		if (req)
			return; /* the caller says it had no answer */
		wt_print("weft: SIGQUIT: cannot start a thread for the task dump\n");
		if (wt_cfg.sigquit == WT_SIGQUIT_EXIT)
			wt_syscall6(SYS_exit_group, 2, 0, 0, 0, 0, 0);
	}
}

/* The thread of wt_dump_report (or sysmon, nowalk): the report, then the
 * thread's exit, or the process's with rep.exit_status. */
static void *reporter(void *arg)
{
	(void)arg;
	int tid = (int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	int fd = own_fds(false);
	struct wt_wbuf o = { buf, 0, sizeof buf, fd, NULL };
	const struct wt_unw *u = nowalk ? NULL : wt_unwind();
	if (u)
		u->set_caching_policy(*u->local_addr_space, UNW_CACHE_PER_THREAD);
	wt_wprint(&o, "%s", rep.head);
	for (int i = 0; i < rep.n; i++)
		if (!dump_task(&o, &rep.t[i], tid))
			wt_wprint(&o, "task %lu: exited during the report\n\n",
				  (unsigned long)rep.t[i].id);
	wt_wprint(&o, "%s", rep.tail);
	wt_wflush(&o);
	if (rep.exit_status) {
		wt_tl_flush(true, "deadlock", true);
		for (;;)
			wt_syscall6(SYS_exit_group, rep.exit_status, 0, 0, 0, 0, 0);
	}
	thread_done();
	return NULL;
}

/* Context: sysmon.  See dump.h.  head and tail are copied (cut to
 * rep's sizes). */
bool wt_dump_report(const char *head, const char *tail, struct wt_task *const *ts,
		    const uint64_t *ids, int n, int exit_status)
{
	int z = 0;
	if (!atomic_compare_exchange_strong(&busy, &z, 1))
		return false;
	atomic_store_explicit(&busy_stack, true, memory_order_relaxed); /* a SIGQUIT waits */
	wt_snprintf(rep.head, sizeof rep.head, "%s", head);
	wt_snprintf(rep.tail, sizeof rep.tail, "%s", tail);
	rep.n = n < WT_DUMP_REPORT_MAX ? n : WT_DUMP_REPORT_MAX;
	for (int i = 0; i < rep.n; i++) {
		rep.t[i].t = ts[i];
		rep.t[i].id = ids[i];
	}
	rep.exit_status = exit_status;
	if (wt_libc_single() && !libc_switch()) {
		nowalk = true; /* as wt_dump_start's */
		reporter(NULL);
		nowalk = false;
		return true;
	}
	atomic_fetch_add(&wt_nthreads, 1);
	if (wt_thread_spawn(reporter, NULL, 1 << 20) != 0) {
		atomic_fetch_sub(&wt_nthreads, 1);
		atomic_store(&busy, 0);
		wt_print("%sweft: deadlock: (no backtraces: cannot start a thread for them)\n%s",
			 head, tail);
		if (exit_status)
			wt_syscall6(SYS_exit_group, exit_status, 0, 0, 0, 0, 0);
	}
	return true;
}

/* Fork child: a dump the parent was making is not the child's. */
void wt_dump_fork_reset(void)
{
	atomic_store(&busy, 0);
	atomic_store(&wt_dump_req, 0);
	atomic_store(&stack_req, 0);
	atomic_store(&walker_tid, 0);
}
