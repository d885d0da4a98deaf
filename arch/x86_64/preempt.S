/*
 * preempt.S — the asynchronous preemption stub, x86_64 System V, ELF, GNU as.
 *
 * The SIGURG handler (sched/core/preempt.c) does not switch tasks itself: it
 * rewrites the interrupted context as if the task had called this stub at
 * the interrupted instruction, below its 128-byte red zone (sigctx.c:
 * wt_arch_uc_push_call), and returns.
 * After sigreturn the task runs here on its own stack, saves everything the
 * interrupted code may have live, calls wt_preempt_park (which may switch
 * to other tasks and return on another worker, or never return: an
 * asynchronous cancellation unwinds from it), restores, and returns to
 * the interrupted instruction with the red zone skipped (`ret $128`).
 *
 * Frame, from the interrupted stack pointer R down (offsets from R):
 *
 *   -128 .. -1     the interrupted code's red zone (not touched)
 *   -136           interrupted rip (written by the handler: the "return address")
 *   -144           rflags
 *   -152 .. -264   rax rcx rdx rbx rbp rsi rdi r8 r9 r10 r11 r12 r13 r14 r15
 *                  (%rbx keeps the address of the r15 slot across the call)
 *   below          extended state: wt_xsave_size bytes (xsave.c), 64-byte aligned,
 *                  written by xsave64 with the XCR0 mask (header zeroed
 *                  first, as xrstor checks it), or fxsave64 (512 bytes)
 *                  where the CPU or kernel has no XSAVE.
 *
 * The thread pointer is not saved: a task keeps its own, loaded by every
 * switch to it (switch.S).  MXCSR and the x87 control word are in the
 * extended state; fninit and vzeroupper leave the C code and the tasks this
 * worker runs meanwhile a clean x87 stack and upper-half state.
 */
#include "offsets.h"

	.text
	.globl	wt_async_preempt
	.hidden	wt_async_preempt
	.type	wt_async_preempt, @function
	.p2align 4
wt_async_preempt:
	.cfi_startproc
	/* Entered by a rewritten signal context, not by a call: CFA = rsp + 8,
	 * the return address (interrupted rip) at CFA - 8, as after a call.
	 * The red-zone skip makes the caller's rsp CFA + 128.  A signal frame
	 * for the unwinder: the return address is the interrupted instruction
	 * itself, not one after a call, so the interrupted function's unwind
	 * entry is found even at its first instruction.  Asynchronous
	 * cancellation unwinds through here (wt_preempt_park). */
	.cfi_signal_frame
	.cfi_val_offset rsp, WT_REDZONE
	pushfq
	.cfi_adjust_cfa_offset 8
	pushq	%rax
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rax, 0
	pushq	%rcx
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rcx, 0
	pushq	%rdx
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rdx, 0
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rbx, 0
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rbp, 0
	pushq	%rsi
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rsi, 0
	pushq	%rdi
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rdi, 0
	pushq	%r8
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r8, 0
	pushq	%r9
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r9, 0
	pushq	%r10
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r10, 0
	pushq	%r11
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r11, 0
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
	movq	%rsp, %rbx			/* the register block */
	.cfi_def_cfa_register rbx		/* CFA = rbx + 136 from here on */
	movl	wt_xsave_size(%rip), %eax
	subq	%rax, %rsp
	andq	$-64, %rsp			/* xsave needs 64, fxsave 16 */
	cmpb	$0, wt_xsave_ok(%rip)
	je	1f
	xorl	%eax, %eax			/* zero the 64-byte XSAVE header */
	movq	%rax, WT_XSAVE_HDR(%rsp)
	movq	%rax, WT_XSAVE_HDR+8(%rsp)
	movq	%rax, WT_XSAVE_HDR+16(%rsp)
	movq	%rax, WT_XSAVE_HDR+24(%rsp)
	movq	%rax, WT_XSAVE_HDR+32(%rsp)
	movq	%rax, WT_XSAVE_HDR+40(%rsp)
	movq	%rax, WT_XSAVE_HDR+48(%rsp)
	movq	%rax, WT_XSAVE_HDR+56(%rsp)
	movl	wt_xsave_mask(%rip), %eax	/* edx:eax = XCR0 */
	movl	wt_xsave_mask+4(%rip), %edx
	xsave64	(%rsp)
	testb	$4, %al				/* AVX state in use: */
	jz	2f
	vzeroupper				/* no SSE/AVX transition penalty */
	jmp	2f
1:	fxsave64 (%rsp)
2:	fninit					/* empty x87 stack for C and other tasks */
	cld					/* the ABI's direction flag on a call */
	call	wt_preempt_park
	cmpb	$0, wt_xsave_ok(%rip)
	je	3f
	movl	wt_xsave_mask(%rip), %eax
	movl	wt_xsave_mask+4(%rip), %edx
	xrstor64 (%rsp)
	jmp	4f
3:	fxrstor64 (%rsp)
4:	movq	%rbx, %rsp
	.cfi_def_cfa_register rsp
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
	popq	%r11
	.cfi_adjust_cfa_offset -8
	.cfi_restore r11
	popq	%r10
	.cfi_adjust_cfa_offset -8
	.cfi_restore r10
	popq	%r9
	.cfi_adjust_cfa_offset -8
	.cfi_restore r9
	popq	%r8
	.cfi_adjust_cfa_offset -8
	.cfi_restore r8
	popq	%rdi
	.cfi_adjust_cfa_offset -8
	.cfi_restore rdi
	popq	%rsi
	.cfi_adjust_cfa_offset -8
	.cfi_restore rsi
	popq	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore rbp
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore rbx
	popq	%rdx
	.cfi_adjust_cfa_offset -8
	.cfi_restore rdx
	popq	%rcx
	.cfi_adjust_cfa_offset -8
	.cfi_restore rcx
	popq	%rax
	.cfi_adjust_cfa_offset -8
	.cfi_restore rax
	popfq
	.cfi_adjust_cfa_offset -8
	ret	$WT_REDZONE			/* back to rip, past the red zone */
	.cfi_endproc
	.size	wt_async_preempt, .-wt_async_preempt

	.section .note.GNU-stack,"",@progbits
