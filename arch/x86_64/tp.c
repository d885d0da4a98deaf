/*
 * tp.c (x86_64) — the thread pointer (the fs base) outside a switch, the
 * ways to set it, and the header of glibc's TCB at it.
 *
 * Setting it: arch_prctl(ARCH_SET_FS), which the kernel remembers; or
 * wrfsbase (arch.h: wt_arch_set_tp_fast), where the CPU has FSGSBASE.  The
 * kernel keeps a wrfsbase value across its context switches only when it
 * enables FSGSBASE itself and says so in AT_HWCAP2; a CPU that has it under
 * a kernel that does not say so executes wrfsbase all the same, and the
 * kernel then reloads the arch_prctl value at its next switch (sched/stack/tls.c
 * makes that trap).  The CPU's support is probed by running rdfsbase once
 * under a SIGILL handler.
 */
#include <asm/prctl.h>
#include <cpuid.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/syscall.h>

#include "base/base.h"
#include "base/real.h"
#include "arch.h"

#define RDFSBASE_RAX_LEN 5 /* f3 48 0f ae c0 */

uintptr_t wt_arch_get_tp(void)
{
	uintptr_t tp;
	__asm__ volatile("movq %%fs:0, %0" : "=r"(tp));
	return tp;
}

/* Sets the thread pointer the kernel knows about (survives preemption). */
void wt_arch_set_tp(uintptr_t tp)
{
	wt_syscall6(SYS_arch_prctl, ARCH_SET_FS, (long)tp, 0, 0, 0, 0);
}

bool wt_arch_tp_fast_kernel(void)
{
	return getauxval(AT_HWCAP2) & 2; /* HWCAP2_FSGSBASE */
}

static volatile int sigill_seen;
static void on_sigill(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	sigill_seen = 1;
	((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP] += RDFSBASE_RAX_LEN;
}

/* Context: start, on the initial thread (replaces the SIGILL disposition
 * for the probe). */
bool wt_arch_tp_fast_cpu(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & 1))
		return false;
	struct sigaction sa = { 0 }, old;
	sa.sa_sigaction = on_sigill;
	sa.sa_flags = SA_SIGINFO;
	real.sigaction(SIGILL, &sa, &old);
	uintptr_t v = 0;
	sigill_seen = 0;
	__asm__ volatile(".byte 0xf3, 0x48, 0x0f, 0xae, 0xc0; movq %%rax, %0" /* rdfsbase %rax */
			 : "=r"(v) : : "rax", "memory");
	real.sigaction(SIGILL, &old, NULL);
	return !sigill_seen && v == wt_arch_get_tp();
}

/* Context: any; tp's block is not yet in use. */
void wt_arch_tcb_init(uintptr_t tp, uintptr_t from)
{
	*(uintptr_t *)(tp + WT_TCB_TCB) = tp;
	*(uintptr_t *)(tp + WT_TCB_SELF) = tp;
	*(int *)(tp + WT_TCB_MULTIPLE_THREADS) = 1;
	*(uintptr_t *)(tp + WT_TCB_SYSINFO) = *(uintptr_t *)(from + WT_TCB_SYSINFO);
	*(uintptr_t *)(tp + WT_TCB_STACK_GUARD) = *(uintptr_t *)(from + WT_TCB_STACK_GUARD);
	*(uintptr_t *)(tp + WT_TCB_POINTER_GUARD) = *(uintptr_t *)(from + WT_TCB_POINTER_GUARD);
	*(unsigned *)(tp + WT_TCB_FEATURE_1) = *(unsigned *)(from + WT_TCB_FEATURE_1);
}
