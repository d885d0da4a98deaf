/*
 * interface.h — what every architecture's arch/<arch>/ implements with the
 * same contract; its arch.h includes this and adds what differs (the
 * switch frame, the thread pointer and TCB header, the preemption state,
 * the signal context's registers, barriers and hints).
 */
#ifndef WEFT_ARCH_INTERFACE_H
#define WEFT_ARCH_INTERFACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

/* ---- contexts ---- */

/* A saved context (switch.S): everything else is on the stack at sp
 * (offsets.h: WT_CTX_*). */
struct wt_ctx {
	uintptr_t sp; /* stack pointer after the callee-saved state is stored */
	uintptr_t tp; /* thread pointer to load, 0 = keep */
};
/* switch.S: saves the caller into *save, loads *load; writes load->tp into
 * *cur_tp when it switches the thread pointer. */
void wt_ctx_switch(struct wt_ctx *save, const struct wt_ctx *load, uintptr_t *cur_tp);
/* ctx.c: a context that starts fn(arg) on stack_top with thread pointer
 * tp; its first frame (entry.S) ends unwinding. */
void wt_ctx_make(struct wt_ctx *c, void *stack_top, void (*fn)(void *), void *arg, uintptr_t tp);
/* ctx.c: the registers of a switched-out context whose frame is at sp, as
 * an unwinder wants them (the rest of *uc zeroed).  Its caller's stack
 * pointer is sp + WT_FRAME_SIZE. */
void wt_ctx_regs(uintptr_t sp, ucontext_t *uc);
/* entry.S: calls fn(arg) on the stack at sp (16-byte aligned); returns
 * when fn does, on the caller's stack. */
void wt_call_on_stack(void *sp, void (*fn)(void *), void *arg);

/* ---- asynchronous preemption and the signal context ---- */

/* preempt.S: where a preempted task is made to go (wt_arch_uc_push_call);
 * it calls wt_preempt_park with the interrupted state saved. */
void wt_async_preempt(void);
/* sigctx.c: makes the interrupted context go to fn (wt_async_preempt)
 * when the handler returns, its state kept for the way back. */
void wt_arch_uc_push_call(ucontext_t *uc, void (*fn)(void));
/* sigctx.c: the context was interrupted inside a system call: on its
 * instruction, which the kernel rewound to restart it, or just after it
 * with the call ended by EINTR. */
bool wt_arch_uc_in_syscall(const ucontext_t *uc);
/* sigctx.c: on such a context, makes the call end with -EINTR when the
 * handler returns (stepping over a call the kernel was to restart). */
void wt_arch_uc_syscall_eintr(ucontext_t *uc);

/* sigctx.c: the stack pointer a longjmp to env (glibc's jmp_buf, filled
 * by its setjmp on a thread whose TCB is at tp) goes to: glibc stores it
 * mangled (PTR_MANGLE) with the process's pointer guard.  0 = unknown. */
uintptr_t wt_arch_jmpbuf_sp(const void *env, uintptr_t tp);

/* ---- system calls ---- */

/* syscall.c: a system call; returns the kernel's value (-errno on
 * failure) and leaves errno alone. */
long wt_syscall6(long nr, long a, long b, long c, long d, long e, long f);
/* syscall_sigok.S: a system call where program handlers may run (the
 * signal trampoline recognises its range, which ends at the label). */
long wt_syscall6_sigok(long nr, long a, long b, long c, long d, long e, long f);
extern const char wt_syscall6_sigok_end[];

/* ---- code ---- */

/* patch.c: the bytes a jump from site to target takes when written over
 * site, and the writing (the caller made them writable; no thread may be
 * executing them). */
size_t wt_arch_jump_size(uintptr_t site, uintptr_t target);
void wt_arch_jump_write(uintptr_t site, uintptr_t target);
/* patch.c: n bytes of code at site were rewritten: the instruction fetch
 * must see them. */
void wt_arch_code_written(uintptr_t site, size_t n);

#endif
