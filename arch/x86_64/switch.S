/*
 * switch.S — weft's context switch, x86_64 System V, ELF, GNU as.
 *
 * void wt_ctx_switch(struct wt_ctx *save, const struct wt_ctx *load,
 *                    uintptr_t *cur_tp);
 *
 * Saves the callee-saved state of the caller on its own stack, stores the
 * stack pointer in save->sp, loads load->tp as the thread pointer (unless it
 * is 0 or already *cur_tp), switches to load->sp and returns there.
 *
 * Saved frame, at save->sp (offsets in bytes; offsets.h: WT_FRAME_*,
 * struct wt_switch_frame in arch.h):
 *
 *   +0   MXCSR (4)  x87 control word (2)  pad (2)
 *   +8   r15
 *   +16  r14
 *   +24  r13
 *   +32  r12
 *   +40  rbx
 *   +48  rbp
 *   +56  return address
 *
 * Thread pointer: the worker's tp_mode (the int after *cur_tp, struct
 * wt_m) WT_TLS_MODE_FAST (0) writes it with wrfsbase (no system call),
 * any other with arch_prctl(ARCH_SET_FS).  tp.c and sched/stack/tls.c explain how mode 0
 * stays correct on kernels that do not know user space uses wrfsbase.
 * *cur_tp is stored before the write, so a fault handler that repairs the
 * thread pointer always finds the value this thread should have.
 */
#include <asm/prctl.h>
#include <asm/unistd.h>

#include "offsets.h"

	.text
	.globl	wt_ctx_switch
	.hidden	wt_ctx_switch
	.type	wt_ctx_switch, @function
	.p2align 4
wt_ctx_switch:
	.cfi_startproc
	endbr64
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rbp, 0
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rbx, 0
	pushq	%r12
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r12, 0
	pushq	%r13
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r13, 0
	pushq	%r14
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r14, 0
	pushq	%r15
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r15, 0
	subq	$WT_FRAME_R15, %rsp		/* the control registers' slot */
	.cfi_adjust_cfa_offset WT_FRAME_R15
	stmxcsr	WT_FRAME_MXCSR(%rsp)	/* SSE control/status */
	fnstcw	WT_FRAME_FCW(%rsp)	/* x87 control word */
	movq	%rsp, WT_CTX_SP(%rdi)	/* save->sp */
	movl	WT_FRAME_MXCSR(%rsp), %r9d	/* kept for the compare below; */
	movzwl	WT_FRAME_FCW(%rsp), %r10d	/* the syscall path spares r9, r10 */

	movq	WT_CTX_TP(%rsi), %rax	/* load->tp */
	testq	%rax, %rax
	jz	2f
	cmpq	%rax, (%rdx)		/* already loaded on this thread? */
	je	2f
	movq	%rax, (%rdx)		/* *cur_tp first: see the header */
	cmpl	$WT_TLS_MODE_FAST, WT_CURTP_MODE(%rdx)	/* this worker's tp_mode: WRFSBASE? */
	jne	1f
	wrfsbase %rax
	jmp	2f
1:	movq	%rsi, %r8		/* arch_prctl(ARCH_SET_FS, tp) */
	movq	%rax, %rsi
	movl	$ARCH_SET_FS, %edi
	movl	$__NR_arch_prctl, %eax
	syscall
	movq	%r8, %rsi
2:	movq	WT_CTX_SP(%rsi), %rsp	/* the other stack from here on */
	cmpl	WT_FRAME_MXCSR(%rsp), %r9d	/* loading the control registers */
	je	3f			/* serialises: skip when unchanged */
	ldmxcsr	WT_FRAME_MXCSR(%rsp)
3:	cmpw	WT_FRAME_FCW(%rsp), %r10w
	je	4f
	fldcw	WT_FRAME_FCW(%rsp)
4:	addq	$WT_FRAME_R15, %rsp
	.cfi_adjust_cfa_offset -WT_FRAME_R15
	popq	%r15
	.cfi_adjust_cfa_offset -8
	.cfi_restore r15
	popq	%r14
	.cfi_adjust_cfa_offset -8
	.cfi_restore r14
	popq	%r13
	.cfi_adjust_cfa_offset -8
	.cfi_restore r13
	popq	%r12
	.cfi_adjust_cfa_offset -8
	.cfi_restore r12
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore rbx
	popq	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore rbp
	ret
	.cfi_endproc
	.size	wt_ctx_switch, .-wt_ctx_switch

	.section .note.GNU-stack,"",@progbits
