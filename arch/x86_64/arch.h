/*
 * arch.h (x86_64) — what the runtime needs from the instruction set: the
 * saved context and the switch (switch.S), the task entry frame
 * (entry.S, ctx.c), the thread-pointer register, and barriers the memory
 * model makes cheaper here.  sched/ includes "arch.h" through the
 * architecture's directory on the include path.
 */
#ifndef WEFT_ARCH_H
#define WEFT_ARCH_H

#include <stdatomic.h>
#include <stdint.h>

/* Orders a store before an atomic read-modify-write against a load after it
 * (Linux's smp_mb__after_atomic).  On x86 every lock-prefixed instruction is
 * a full barrier, so only the compiler needs telling. */
#define wt_mb_after_rmw() atomic_signal_fence(memory_order_seq_cst)

/* A saved context (switch.S): everything else is on the stack at sp. */
struct wt_ctx {
	uintptr_t sp; /* stack pointer after the callee-saved pushes */
	uintptr_t tp; /* thread pointer (fs base) to load, 0 = keep */
};
/* Saves the caller into *save, loads *load; writes load->tp into *cur_tp
 * when it switches the thread pointer. */
void wt_ctx_switch(struct wt_ctx *save, const struct wt_ctx *load, uintptr_t *cur_tp);
/* A context that starts fn(arg) on stack_top with thread pointer tp; its
 * first frame ends unwinding. */
void wt_ctx_make(struct wt_ctx *c, void *stack_top, void (*fn)(void *), void *arg, uintptr_t tp);
/* entry.S: calls fn(arg) on the stack at sp (16-byte aligned); returns
 * when fn does, on the caller's stack. */
void wt_call_on_stack(void *sp, void (*fn)(void *), void *arg);
/* preempt.S: where a preempted task is made to "call": saves every
 * register and the xsave state, calls wt_preempt_park, restores. */
void wt_async_preempt(void);
uintptr_t wt_arch_get_tp(void);
void wt_arch_set_tp(uintptr_t tp);

/* syscall.c: a system call; returns the kernel's value (-errno on
 * failure) and leaves errno alone. */
long wt_syscall6(long nr, long a, long b, long c, long d, long e, long f);

/* syscall_sigok.S: a system call where program handlers may run (the
 * signal trampoline recognises its range). */
long wt_syscall6_sigok(long nr, long a, long b, long c, long d, long e, long f);
extern const char wt_syscall6_sigok_end[];

#endif
