/*
 * crash.c — faults inside tasks: repair, chain, or report and die.
 *
 * weft owns SIGSEGV and SIGBUS (the program's handlers are recorded by
 * shim/signal.c and chained).  The handler runs on a per-worker alternate
 * stack, because a task that overflowed has no stack left.  In order:
 *   1. trap mode: a reverted thread pointer (tls.c) -> repair, return;
 *   2. the program installed a handler -> call it, as natively;
 *   3. report: "weft: task N ..." with the reason (a guard-page hit names
 *      the stack size), a backtrace from the faulting context (libunwind,
 *      names from dladdr), then die by the same signal with the default
 *      action, as the program would natively.
 * Context: signal handler.  Uses only async-signal-safe calls until the
 * report, where the process is dying anyway.
 */

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "rt.h"
#include "../shim/real.h"

struct sigaction wt_user_sa[65]; /* [signal.c] program's handlers for owned signals */
bool wt_user_sa_set[65];

void wt_backtrace_ctx(ucontext_t *uc)
{
	unw_cursor_t c;
	if (unw_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) < 0) {
		wt_print("  (no backtrace)\n");
		return;
	}
	for (int i = 0; i < 64; i++) {
		unw_word_t pc;
		if (unw_get_reg(&c, UNW_REG_IP, &pc) < 0 || pc == 0)
			break;
		/* symbol.c names what its tables (read before, never here: libelf
		 * allocates) and dladdr know; libunwind reads the ELF symbol
		 * table without allocating, which also names static functions. */
		struct wt_sym s;
		char name[128], line[512];
		unw_word_t off;
		wt_symbolize(pc, i > 0, &s, false);
		if (unw_get_proc_name(&c, name, sizeof name, &off) == 0 && name[0]) {
			s.name = name;
			s.off = off;
		}
		wt_sym_line(line, sizeof line, i, pc, &s);
		wt_print("%s", line);
		if (unw_step(&c) <= 0)
			break;
	}
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

static void on_fault(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uintptr_t addr = (uintptr_t)si->si_addr;
	if (wt_dump_fault()) /* the dumper read a stack that changed: skip it */
		return;
	if (sig == SIGSEGV && wt_tls_fault(addr))
		return;
	if (wt_user_sa_set[sig]) {
		struct sigaction *u = &wt_user_sa[sig];
		if (u->sa_flags & SA_SIGINFO) {
			u->sa_sigaction(sig, si, ucv);
			return;
		}
		if (u->sa_handler != SIG_DFL && u->sa_handler != SIG_IGN) {
			u->sa_handler(sig);
			return;
		}
	}
	if (si->si_code <= 0) {
		/* Sent by kill/tgkill/sigqueue, not a fault: no report, just the
		 * default action, as natively. */
		set_default(sig);
		wt_syscall6(SYS_tgkill, wt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0),
			    wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0), sig, 0, 0, 0);
		return;
	}
	struct wt_task *t = wt_cur();
	struct wt_task *ov = NULL;
	bool overflow = sig == SIGSEGV && wt_stack_guard_hit(addr, &ov);
	if (overflow)
		t = ov;
	if (t) {
		struct wt_sym fs = { 0 };
		if (!t->main)
			wt_symbolize((uintptr_t)t->start, false, &fs, false);
		const char *fn = t->main ? "main" : fs.name ? fs.name : "?";
		if (overflow)
			wt_print("weft: task %lu (%s) overflowed its stack: %lu KiB "
				 "(fault at %p; set the size with pthread_attr_setstacksize or "
				 "WEFT_STACK_SIZE)\n",
				 (unsigned long)t->id, fn, (unsigned long)(t->stack_size >> 10),
				 (void *)addr);
		else
			wt_print("weft: task %lu (%s): %s at %p, pc 0x%lx\n", (unsigned long)t->id,
				 fn, signame(sig), (void *)addr,
				 (unsigned long)uc->uc_mcontext.gregs[REG_RIP]);
		wt_backtrace_ctx(uc);
	} else {
		wt_print("weft: %s at %p, pc 0x%lx, outside any task (scheduler or a thread "
			 "weft did not create)\n", signame(sig), (void *)addr,
			 (unsigned long)uc->uc_mcontext.gregs[REG_RIP]);
		wt_backtrace_ctx(uc);
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
	real.sigaction(SIGSEGV, &sa, NULL);
	real.sigaction(SIGBUS, &sa, NULL);
}

/* Context: the thread itself (a worker or sysmon), once.  The fault
 * handler and the SIGURG handler (preempt.c), with the program's SIGURG
 * handler it chains to, run here; pages cost only once touched. */
char *wt_crash_altstack(void)
{
	size_t sz = WT_SIGSTK;
	void *p = wt_mmap_anon(sz);
	if (!p)
		return NULL;
	stack_t ss = { .ss_sp = p, .ss_size = sz, .ss_flags = 0 };
	sigaltstack(&ss, NULL);
	return p;
}
