/*
 * arch.h (aarch64) — what the runtime needs from the instruction set: the
 * saved context and the switch (switch.S, ctx.c), the task entry frame
 * (entry.S), the thread pointer and the TCB header it points at (inline
 * here), the preemption stub and the state it saves (preempt.S,
 * sigctx.c), reading and rewriting a signal's interrupted context
 * (sigctx.c), the raw system call (syscall.c, syscall_sigok.S), and the
 * barriers and hints.  Shared byte offsets: offsets.h.  The same names as
 * every architecture's arch.h; sched/ and shim/ include it through
 * -Iarch/$(ARCH).
 *
 * Two things differ from x86_64 in kind, and the runtime asks which:
 *  - glibc's TLS here is variant I (WT_ARCH_TLS_ABOVE_TP): the thread
 *    pointer (TPIDR_EL0) points at a 16-byte header {dtv, private}; the
 *    static TLS blocks lie above it, and glibc's struct pthread (pthread_t)
 *    right below it.
 *  - a preempted task cannot return to an arbitrary pc with every register
 *    restored (a branch needs a register).  So the interrupted state is
 *    copied out of the signal frame onto the task's stack, and the stub
 *    resumes by a signal whose handler copies it back into the frame the
 *    kernel then restores (WT_ARCH_PREEMPT_RESUME_SIGNAL).
 */
#ifndef WEFT_ARCH_H
#define WEFT_ARCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include "offsets.h"
#include "../interface.h"

/* Static TLS above the thread pointer, struct pthread below it (1); or
 * struct pthread at the thread pointer and static TLS below (0). */
#define WT_ARCH_TLS_ABOVE_TP 1
/* The preemption stub resumes through a signal (wt_arch_uc_resume). */
#define WT_ARCH_PREEMPT_RESUME_SIGNAL 1

/* glibc's pthread_spinlock_t word here (the generic one):
 * pthread_spin_init stores 0 (free), a lock sets it to 1. */
#define WT_ARCH_SPIN_FREE 0
#define WT_ARCH_SPIN_HELD 1

/* Orders a store before an atomic read-modify-write against a load after
 * it (Linux's smp_mb__after_atomic).  The RMWs here may be LL/SC or LSE
 * atomics with acquire/release only: a full barrier. */
#define wt_mb_after_rmw() atomic_thread_fence(memory_order_seq_cst)

/* A spin-wait hint: one round of a busy loop. */
static inline void wt_arch_pause(void)
{
	__asm__ volatile("yield" ::: "memory");
}

/* ---- contexts ---- */

/* What wt_ctx_switch leaves at ctx.sp (offsets.h: WT_FRAME_*). */
struct wt_switch_frame {
	uintptr_t x19, x20, x21, x22, x23, x24, x25, x26, x27, x28;
	uintptr_t fp;  /* x29 */
	uintptr_t lr;  /* x30: where the switch returns */
	uint64_t d[8]; /* d8-d15 */
	uint64_t fpcr;
	uint64_t pad;
};

/* ---- the thread pointer (TPIDR_EL0) and the TCB at it ---- */

static inline uintptr_t wt_arch_get_tp(void)
{
	uintptr_t tp;
	__asm__ volatile("mrs %0, tpidr_el0" : "=r"(tp));
	return tp;
}
/* The kernel saves and restores TPIDR_EL0 with the thread: the one write
 * is both the kernel-known and the fast one. */
static inline void wt_arch_set_tp(uintptr_t tp)
{
	__asm__ volatile("msr tpidr_el0, %0" : : "r"(tp) : "memory");
}
static inline void wt_arch_set_tp_fast(uintptr_t tp)
{
	wt_arch_set_tp(tp);
}
static inline bool wt_arch_tp_fast_cpu(void)
{
	return true;
}
static inline bool wt_arch_tp_fast_kernel(void)
{
	return true;
}
/* Fills the ABI's header of a new TCB at tp from the TCB at from: nothing
 * beyond the DTV, which ld.so installs (the stack and pointer guards are
 * globals here, not TCB fields). */
static inline void wt_arch_tcb_init(uintptr_t tp, uintptr_t from)
{
	(void)tp;
	(void)from;
}
/* Where the TCB at tp keeps its DTV pointer. */
static inline void **wt_arch_tcb_dtv(uintptr_t tp)
{
	return (void **)(tp + WT_TCB_DTV);
}
/* glibc's pthread_self: struct pthread ends at the thread pointer. */
extern size_t wt_tcb_size;
/* Marks the TCB at tp multi-threaded: the header that opens struct
 * pthread starts with glibc's multiple_threads (the dynamic linker's
 * per-thread test). */
static inline void wt_arch_tcb_set_threaded(uintptr_t tp)
{
	__atomic_store_n((int *)(tp - wt_tcb_size), 1, __ATOMIC_RELAXED);
}
static inline uintptr_t wt_arch_tcb_self(void)
{
	return wt_arch_get_tp() - wt_tcb_size;
}
/* The 32-bit field at off in this thread's struct pthread. */
static inline int wt_arch_self_tid_at(size_t off)
{
	return *(volatile int *)(wt_arch_get_tp() - wt_tcb_size + off);
}

/* ---- asynchronous preemption ---- */

/* May a fault the kernel reported as (addr, si_code) be a load of the
 * bytes [lo, hi)?  Linux reports a bad address without its top byte (the
 * address tag, which loads ignore); qemu-user reports one beyond the
 * 48-bit address space as 0. */
static inline bool wt_arch_fault_in(uintptr_t addr, int code, uintptr_t lo, uintptr_t hi)
{
	const uintptr_t untag = (1ul << 56) - 1;
	(void)code;
	if (addr >= (lo & untag) && addr < (lo & untag) + (hi - lo))
		return true;
	return addr == 0 && (lo >> 48) != 0;
}

/* The return path of weft's own signal handlers (sigreturn.S). */
void wt_arch_sigaction_restorer(void);

/* Bytes the preemption state takes on the task's stack. */
static inline size_t wt_arch_preempt_state_size(void)
{
	return WT_PSTATE_SIZE;
}

/* ---- a signal's interrupted context ---- */

static inline uintptr_t wt_arch_uc_pc(const ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.pc;
}
static inline uintptr_t wt_arch_uc_sp(const ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.sp;
}
/* The frame pointer (x29): [fp] the caller's, [fp + 8] the return address. */
static inline uintptr_t wt_arch_uc_fp(const ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.regs[29];
}
/* wt_arch_uc_push_call (interface.h), here: the interrupted state
 * (general registers, sp, pc, pstate, the FP/SIMD registers and control)
 * is copied to its stack below sp, and the context enters fn with sp and
 * x19 at that copy. */
/* sigctx.c: loads a state saved by wt_arch_uc_push_call into *uc, so that
 * the handler's return resumes it, and clears its magic word; false when
 * state is not one (no magic word). */
bool wt_arch_uc_resume(ucontext_t *uc, void *state);


#endif
