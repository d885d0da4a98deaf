/*
 * arch.h (x86_64) — what the runtime needs from the instruction set: the
 * saved context and the switch (switch.S, ctx.c), the task entry frame
 * (entry.S), the thread pointer and the TCB header it points at (tp.c),
 * the preemption stub and the state it saves (preempt.S, xsave.c), reading
 * and rewriting a signal's interrupted context (sigctx.c), the raw system
 * call (syscall.c, syscall_sigok.S), and the barriers and hints the memory
 * model makes cheaper here.  Shared byte offsets: offsets.h.
 *
 * sched/ and shim/ include "arch.h" through the architecture's directory on
 * the include path (-Iarch/$(ARCH)); another architecture provides the same
 * names in arch/<arch>/.
 */
#ifndef WEFT_ARCH_H
#define WEFT_ARCH_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include "offsets.h"
#include "../interface.h"

/* glibc's TLS is variant II here: struct pthread (pthread_t) at the thread
 * pointer, the static TLS blocks below it. */
#define WT_ARCH_TLS_ABOVE_TP 0
/* vfork.S: the exported vfork, the kernel's, around sched/process/vfork.c. */
#define WT_ARCH_VFORK 1
/* The preemption stub returns to the interrupted pc itself (`ret`), so no
 * signal resumes it (wt_arch_uc_resume). */
#define WT_ARCH_PREEMPT_RESUME_SIGNAL 0

/* glibc's pthread_spinlock_t word here: pthread_spin_init stores 1 (free),
 * a lock takes it to 0 (`lock decl; jne`). */
#define WT_ARCH_SPIN_FREE 1
#define WT_ARCH_SPIN_HELD 0

/* Orders a store before an atomic read-modify-write against a load after it
 * (Linux's smp_mb__after_atomic).  On x86 every lock-prefixed instruction is
 * a full barrier, so only the compiler needs telling. */
#define wt_mb_after_rmw() atomic_signal_fence(memory_order_seq_cst)

/* A spin-wait hint: one round of a busy loop (pause). */
static inline void wt_arch_pause(void)
{
	__builtin_ia32_pause();
}

/* ---- contexts ---- */

/* What wt_ctx_switch leaves at ctx.sp (offsets.h: WT_FRAME_*). */
struct wt_switch_frame {
	uint32_t mxcsr;
	uint16_t fcw, pad;
	uintptr_t r15, r14, r13, r12, rbx, rbp;
	uintptr_t ret; /* return address */
};

/* ---- the thread pointer (fs base) and the TCB at it ---- */

uintptr_t wt_arch_get_tp(void);
/* Sets the thread pointer the kernel knows about (arch_prctl; survives
 * preemption by the kernel). */
void wt_arch_set_tp(uintptr_t tp);
/* Sets it without the kernel (wrfsbase): only where wt_arch_tp_fast_cpu. */
static inline void wt_arch_set_tp_fast(uintptr_t tp)
{
	__asm__ volatile("wrfsbase %0" : : "r"(tp) : "memory");
}
/* The CPU sets the thread pointer from user space (FSGSBASE, probed). */
bool wt_arch_tp_fast_cpu(void);
/* The kernel enables that and keeps the value across its context switches
 * (it advertises FSGSBASE in AT_HWCAP2). */
bool wt_arch_tp_fast_kernel(void);
/* Fills the ABI's header of a new TCB at tp from the TCB at from: its self
 * pointers, multiple_threads, and sysinfo, stack and pointer guards and
 * feature bits copied. */
void wt_arch_tcb_init(uintptr_t tp, uintptr_t from);
/* Marks the TCB at tp multi-threaded (tcbhead's multiple_threads: glibc's
 * atomic operations without a lock prefix while it is 0). */
static inline void wt_arch_tcb_set_threaded(uintptr_t tp)
{
	__atomic_store_n((int *)(tp + WT_TCB_MULTIPLE_THREADS), 1, __ATOMIC_RELAXED);
}
/* Where the TCB at tp keeps its DTV pointer. */
static inline void **wt_arch_tcb_dtv(uintptr_t tp)
{
	return (void **)(tp + WT_TCB_DTV);
}
/* The TCB's self pointer (glibc's pthread_self). */
static inline uintptr_t wt_arch_tcb_self(void)
{
	uintptr_t self;
	__asm__("movq %%fs:%c1, %0" : "=r"(self) : "i"(WT_TCB_SELF));
	return self;
}
/* The 32-bit field at off from the thread pointer (glibc's tid in struct
 * pthread, at an offset found at start). */
static inline int wt_arch_self_tid_at(size_t off)
{
	int tid;
	__asm__ volatile("movl %%fs:(%1), %0" : "=r"(tid) : "r"(off));
	return tid;
}

/* ---- faults ---- */

/* May a fault the kernel reported as (addr, si_code) be a load of the
 * bytes [lo, hi)?  Yes when addr lies there; also when the bytes include a
 * non-canonical address (bits 63..47 not all equal): a load there raises a
 * general-protection fault, reported with SI_KERNEL and no address. */
static inline bool wt_arch_fault_in(uintptr_t addr, int code, uintptr_t lo, uintptr_t hi)
{
	if (addr >= lo && addr < hi)
		return true;
	return code == SI_KERNEL && addr == 0 &&
	       (hi < lo || ((lo + (1ul << 47)) >> 48) != 0 || ((hi - 1 + (1ul << 47)) >> 48) != 0);
}

/* The return path of weft's own signal handlers (sigreturn.S). */
void wt_arch_sigaction_restorer(void);

/* ---- asynchronous preemption ---- */

/* xsave.c: finds what extended state the stub saves and how.  It runs
 * at the first preemption, not at start: each CPUID leaf it reads traps to
 * the hypervisor in a virtual machine (about 5 µs on one measured), and
 * most processes are never preempted.  Context: any, signal handlers
 * included; a second run writes the same values. */
void wt_arch_xsave_probe(void);
extern uint32_t wt_xsave_size;
extern uint8_t wt_xsave_probed; /* [atomic] wt_xsave_* are set */
/* Bytes of extended state the stub saves below its registers (alignment
 * included).  Every push of the stub asks this first, so the stub, on the
 * same thread, finds the wt_xsave_* values set. */
static inline size_t wt_arch_preempt_state_size(void)
{
	if (__builtin_expect(!__atomic_load_n(&wt_xsave_probed, __ATOMIC_ACQUIRE), 0))
		wt_arch_xsave_probe();
	return __atomic_load_n(&wt_xsave_size, __ATOMIC_RELAXED);
}

/* ---- a signal's interrupted context ---- */

static inline uintptr_t wt_arch_uc_pc(const ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
}
static inline uintptr_t wt_arch_uc_sp(const ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
}
/* The frame pointer: [fp] the caller's, [fp + 8] the return address. */
static inline uintptr_t wt_arch_uc_fp(const ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
}
/* wt_arch_uc_push_call (interface.h), here: the context calls fn as if it
 * had at its pc (the pc pushed as the return address, below the red zone,
 * as preempt.S expects), which returns there itself. */
/* A preempted task resumes by its stub's return, never by a signal. */
static inline bool wt_arch_uc_resume(ucontext_t *uc, void *state)
{
	(void)uc;
	(void)state;
	return false;
}

#endif
