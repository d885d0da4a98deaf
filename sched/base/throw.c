/*
 * throw.c — the end of a broken invariant: "weft: fatal: <msg>" on stderr,
 * then death by SIGABRT, as abort() would, but without taking any lock
 * (the caller may hold any of them, or be in a signal handler).
 */
#include <signal.h>
#include <sys/syscall.h>

#include "arch.h"
#include "print.h"
#include "hooks.h"
#include "throw.h"

void wt_throw(const char *msg)
{
	wt_print("weft: fatal: %s\n", msg);
	wt_stack_dump_all(); /* every live stack in a core (lock-free) */
	/* abort() may take locks; system calls cannot.  The signal goes to this
	 * thread, unblocked, so that it acts on return from tgkill: sent to the
	 * process, another thread could take it after the exit_group below. */
	uint64_t abrt = 1ull << (SIGABRT - 1);
	wt_syscall6(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&abrt, 0, 8, 0, 0);
	wt_syscall6(SYS_tgkill, wt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0),
		    wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0), SIGABRT, 0, 0, 0);
	for (;;)
		wt_syscall6(SYS_exit_group, 134, 0, 0, 0, 0, 0);
}
