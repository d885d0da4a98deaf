/*
 * crash.c — faults inside tasks: repair, chain, or report and die.
 *
 * weft owns SIGSEGV and SIGBUS (the program's handlers are recorded by
 * sigaction, sighandler.c, and chained).  The handler runs on a per-worker alternate
 * stack, because a task that overflowed has no stack left.  In order:
 *   1. trap mode: a reverted thread pointer (stack/tls.c) -> repair, return;
 *   2. a task reaching its stack guard: the stack grows (stack/stack.c), return;
 *   3. the program installed a handler -> call it, as natively (a stack
 *      overflow included): on the task's alternate stack for SA_ONSTACK
 *      (sigstack.c), else here, on the worker's;
 *   4. report: first every live stack is marked into a core
 *      (wt_stack_dump_all: the spawn path marks a capped number, stack/stack.c's
 *      "Core dumps"); then "weft: task N ..." with the reason (an overflow names the
 *      limit and the depth), a backtrace from the faulting context
 *      (wt_backtrace_ctx, observe/unwind.c, reached through core/hooks.h:
 *      libunwind for the walk, loaded then; names from observe/symbol.c,
 *      which reads the ELF symbol tables and so sees static functions;
 *      file:line from libdw when present, observe/symbolize.c), then die by the same signal with the default
 *      action, as the program would natively.  A watchdog timer kills the
 *      process by that signal if reporting hangs (30 s: a report with
 *      5 s was once cut short while the machine was loaded).
 * Context: signal handler.  Uses only async-signal-safe calls until the
 * report, where the process is dying anyway.
 */

#include <dlfcn.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "core/runtime.h"
#include "core/hooks.h"
#include "crash.h"
#include "base/print.h"
#include "base/real.h"
#include "sighandler.h"
#include "sigstack.h"
#include "base/slab.h"
#include "stack/stack.h"
#include "io/privfd.h"
#include "core/task.h"
#include "stack/tls.h"
#include "core/worker.h"


static void size_str(char *buf, size_t n, size_t v)
{
	if (v >= (1ul << 30) && !(v & ((1ul << 30) - 1)))
		wt_snprintf(buf, n, "%lu GiB", (unsigned long)(v >> 30));
	else if (v >= (1ul << 20))
		wt_snprintf(buf, n, "%lu MiB", (unsigned long)(v >> 20));
	else
		wt_snprintf(buf, n, "%lu KiB", (unsigned long)(v >> 10));
}

/* The process is dying: make sure it dies by SIGSEGV even if symbolizing
 * (libdw, which mallocs) hangs on a lock the crashed code held. */
static void arm_watchdog(int sig)
{
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = sig;
	ev._sigev_un._tid = (int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	int id;
	if (wt_syscall6(SYS_timer_create, CLOCK_MONOTONIC, (long)&ev, (long)&id, 0, 0, 0) != 0)
		return;
	struct itimerspec its = { { 0, 0 }, { 30, 0 } }; /* a loaded machine symbolizes slowly */
	wt_syscall6(SYS_timer_settime, id, 0, (long)&its, 0, 0, 0);
}

static const char *signame(int sig)
{
	return sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE"
	       : sig == SIGILL ? "SIGILL" : "signal";
}

static void set_default(int sig)
{
	struct sigaction dfl = { 0 };
	dfl.sa_handler = SIG_DFL;
	real.sigaction(sig, &dfl, NULL);
}

struct report {
	int sig;
	uintptr_t addr;
	ucontext_t *uc;
	struct wt_task *t;
	bool overflow;
	struct wt_overflow ov;
};

/* The report, on a stack of its own: libdw and libunwind want more than
 * the signal stack holds. */
static void report(void *arg)
{
	struct report *r = arg;
	int sig = r->sig;
	uintptr_t addr = r->addr;
	ucontext_t *uc = r->uc;
	struct wt_task *t = r->t;
	bool overflow = r->overflow;
	struct wt_overflow ov = r->ov;
	/* An existing helper opens the ELF files and the trace; none is made. */
	wt_privfd_dying();
	if (t) {
		struct wt_sym fs;
		const char *fn = t->main ? "main" : "?";
		if (!t->main) {
			wt_symbolize((uintptr_t)t->start, false, &fs, true);
			if (fs.name)
				fn = fs.name;
		}
		if (overflow) {
			char lim[32], dep[32];
			size_str(lim, sizeof lim, ov.limit);
			size_str(dep, sizeof dep, ov.depth);
			wt_print("weft: task %lu (%s) overflowed its stack: limit %s, depth %s",
				 (unsigned long)t->id, fn, lim, dep);
			if (ov.blocker)
				wt_print(" (the stack of task %lu lies right below: %ld tasks live)",
					 (unsigned long)ov.blocker->id, (long)atomic_load(&wt_ntasks));
			if (t->stack_fixed)
				wt_print(" (fault at %p; a fixed size: the thread's stack size "
					 "attribute, or a default of at most 256 KiB from "
					 "WEFT_STACK_SIZE or RLIMIT_STACK)\n", (void *)addr);
			else
				wt_print(" (fault at %p; WEFT_STACK_MAX sets the limit)\n", (void *)addr);
		} else {
			wt_print("weft: task %lu (%s): %s at %p, pc 0x%lx\n", (unsigned long)t->id,
				 fn, signame(sig), (void *)addr,
				 (unsigned long)wt_arch_uc_pc(uc));
		}
		wt_backtrace_ctx(uc);
	} else {
		wt_print("weft: %s at %p, pc 0x%lx, outside any task (scheduler or a thread "
			 "weft did not create)\n", signame(sig), (void *)addr,
			 (unsigned long)wt_arch_uc_pc(uc));
		wt_backtrace_ctx(uc);
	}
	/* The trace, ended: the process dies next. */
	wt_tl_flush(true, signame(sig), true);
	/* Die here, by the same signal, rather than back in the fault handler:
	 * a signal taken while reporting was set up at the top of the signal
	 * stack, over that handler's frame. */
	set_default(sig);
	uint64_t bit = 1ull << (sig - 1);
	wt_syscall6(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&bit, 0, 8, 0, 0);
	wt_syscall6(SYS_tgkill, wt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0),
		    wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0), sig, 0, 0, 0);
}

/* Workers inside wt_catch_begin/end.  [atomic] */
static _Atomic int catching;

void wt_catch_begin(struct wt_m *m, sigjmp_buf *jb)
{
	m->catch_lo = m->catch_hi = 0;
	atomic_fetch_add(&catching, 1);
	m->catch_jb = jb;
	atomic_signal_fence(memory_order_seq_cst);
}

void wt_catch_end(struct wt_m *m)
{
	atomic_signal_fence(memory_order_seq_cst);
	m->catch_jb = NULL;
	atomic_fetch_sub(&catching, 1);
}

/* A fault in a caught read of this thread's (as the CPU reports one:
 * wt_arch_fault_in): back to its sigsetjmp. */
static void catch_fault(uintptr_t addr, int code)
{
	if (!atomic_load_explicit(&catching, memory_order_relaxed))
		return;
	struct wt_m *m = wt_m_of_tid((int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0));
	if (!m || !m->catch_jb || !wt_arch_fault_in(addr, code, m->catch_lo, m->catch_hi))
		return;
	sigjmp_buf *jb = m->catch_jb;
	wt_catch_end(m);
	real.siglongjmp(*jb, 1); /* glibc's: the exported one is the program's (shim/setjmp.c) */
	__builtin_unreachable();
}

static void on_fault(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uintptr_t addr = (uintptr_t)si->si_addr;
	if (wt_dump_fault()) /* the dumper read a stack that changed: skip it */
		return;
	if (sig == SIGSEGV && wt_tls_fault(addr))
		return;
	catch_fault(addr, si->si_code);
	/* A task reaching its stack guard: grow, or it overflowed. */
	struct wt_overflow ov;
	bool overflow = false;
	if (sig == SIGSEGV && si->si_code > 0) {
		struct wt_task *o = wt_stack_owner(addr);
		if (o && o == wt_cur()) {
			int r = wt_stack_grow(o, addr, &ov);
			if (r == WT_GROWN)
				return;
			overflow = r == WT_OVERFLOW;
		} else if (!o && wt_cur() && wt_cur()->slot < 0) {
			/* A stack bigger than the arena gives: its own mapping. */
			overflow = wt_stack_grow(wt_cur(), addr, &ov) == WT_OVERFLOW;
		}
	}
	struct sigaction u;
	if (wt_sig_handler_get(sig, &u) &&
	    ((u.sa_flags & SA_SIGINFO) || (u.sa_handler != SIG_DFL && u.sa_handler != SIG_IGN))) {
		/* On the task's alternate stack for SA_ONSTACK, else here. */
		wt_sigstack_call(wt_cur(), &u, sig, si, ucv, wt_arch_uc_sp(uc));
		return;
	}
	if (si->si_code <= 0) {
		/* Sent by kill/tgkill/sigqueue, not a fault: no report, just the
		 * default action, as natively. */
		set_default(sig);
		wt_stack_dump_all();
		wt_syscall6(SYS_tgkill, wt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0),
			    wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0), sig, 0, 0, 0);
		return;
	}
	struct wt_task *t = wt_cur();
	/* Dying: (trap mode) the thread pointer made the kernel's, so that a
	 * context switch while reporting does not revert it; then the default
	 * action for a second fault, and a watchdog.  The pin comes first:
	 * from set_default on a thread-pointer fault is no longer repaired
	 * but kills the process without the report (the trace's end lost with
	 * it: trace-crash, 1 run in 30 under a CPU hog). */
	if (wt_tls_trap)
		wt_arch_set_tp(wt_arch_get_tp());
	set_default(sig);
	/* Every other signal blocked: the report runs off the signal stack,
	 * where a SIGURG (sysmon's preemption) would be delivered on top of
	 * this handler's frames and of the context being reported. */
	uint64_t all = ~((1ull << (SIGSEGV - 1)) | (1ull << (SIGBUS - 1)) |
			 (1ull << (SIGKILL - 1)) | (1ull << (SIGSTOP - 1)));
	wt_syscall6(SYS_rt_sigprocmask, SIG_BLOCK, (long)&all, 0, 8, 0, 0);
	arm_watchdog(sig);
	wt_stack_dump_all(); /* before the report, which the watchdog may cut short */
	/* The report's calls (open, read in libdw) go through weft as the
	 * task's: counted as nested in a system call, they keep the worker its
	 * proc, so the dying task is neither handed off, parked nor preempted. */
	if (t && t->m)
		t->m->insyscall++;
	struct report r = { sig, addr, uc, t, overflow, { 0, 0, NULL } };
	if (overflow)
		r.ov = ov;
	long stk = wt_syscall6(SYS_mmap, 0, 16 << 20, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (stk < 0 && stk > -4096) {
		report(&r);
	} else {
		/* The report reads the context from a copy on its own stack: a
		 * signal handled meanwhile is set up at the top of the signal
		 * stack, which this thread has left, over uc. */
		struct report *rc = (struct report *)((char *)stk + (16 << 20)) - 1;
		ucontext_t *ucc = (ucontext_t *)rc - 1;
		*ucc = *uc;
		*rc = r;
		rc->uc = ucc;
		wt_call_on_stack((char *)WT_ALIGN_DOWN((uintptr_t)ucc, 64), report, rc);
	}
	/* Die by the same signal: default action, then return to re-fault. */
	set_default(sig);
}

void wt_crash_init(void)
{
	struct sigaction sa = { 0 };
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	/* A handler already there was installed before weft started, by a
	 * library that asked the kernel itself (a sanitizer runtime's
	 * stack-overflow report): it is the program's, chained as one set
	 * through sigaction would be. */
	static const int sigs[] = { SIGSEGV, SIGBUS };
	for (int i = 0; i < 2; i++) {
		struct sigaction old;
		if (wt_sig_install_own(sigs[i], &sa, &old) == 0 && old.sa_handler != SIG_DFL &&
		    old.sa_handler != SIG_IGN)
			wt_sig_handler_set(sigs[i], &old, NULL);
	}
}

/* Context: the thread itself (a worker or sysmon), once.  The fault
 * handler and the SIGURG handler (core/preempt.c), with the program's SIGURG
 * handler it chains to, run here; pages cost only once touched. */
char *wt_crash_altstack(void)
{
	size_t sz = WT_SIGSTK;
	void *p = wt_mmap_anon(sz);
	if (!p)
		return NULL;
	stack_t ss = { .ss_sp = p, .ss_size = sz, .ss_flags = 0 };
	/* The kernel's: the interposed sigaltstack is the tasks' (sigstack.c). */
	wt_syscall6(SYS_sigaltstack, (long)&ss, 0, 0, 0, 0, 0);
	return p;
}

/* Context: a thread about to exit, its signals blocked: its alternate
 * stack p (from wt_crash_altstack) is used no more and is unmapped (a fork
 * would copy the mapping). */
void wt_crash_altstack_free(char *p)
{
	stack_t ss = { .ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE };
	wt_syscall6(SYS_sigaltstack, (long)&ss, 0, 0, 0, 0, 0);
	if (p)
		wt_syscall6(SYS_munmap, (long)p, WT_SIGSTK, 0, 0, 0, 0);
}
