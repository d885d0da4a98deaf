/*
 * preempt.S — the asynchronous preemption stub, aarch64 (AAPCS64), ELF,
 * GNU as.
 *
 * The SIGURG handler (sched/core/preempt.c) does not switch tasks itself: it
 * copies the interrupted state (general registers, sp, pc, pstate, FP/SIMD
 * registers and control: struct wt_pstate, pstate.h) onto the task's own
 * stack below its sp, and rewrites the context to enter this stub with sp
 * and x19 at that copy and x30 = 0 (sigctx.c: wt_arch_uc_push_call).
 * After sigreturn the task runs here and calls wt_preempt_park (which may
 * switch to other tasks and return on another worker, or never return: an
 * asynchronous cancellation unwinds from it).  No instruction sequence can
 * load every register and branch, so it then calls
 * wt_preempt_resume(state), which raises a signal on this thread whose
 * handler loads the state into its frame (wt_arch_uc_resume): the
 * handler's return resumes the interrupted code.
 *
 * Frame, from the interrupted stack pointer R down: the state at
 * S = align_down(R - WT_PSTATE_SIZE, 16), nothing else; the C code below
 * it.  x19 = S throughout (callee-saved across the calls).
 *
 * Unwinding: a signal frame whose registers are all in the state, found
 * through x19: CFA = the saved sp, x0-x30 at S + WT_PSTATE_X0 + 8n, and
 * the interrupted pc in the alternate return column (96, as libgcc's
 * signal frames), so x30 keeps its own rule.  The return address is the
 * interrupted instruction itself, not one after a call, so the interrupted
 * function's unwind entry is found even at its first instruction.  The
 * rules do not depend on x30, which the calls clobber.
 */
#include "offsets.h"

#define DW_CFA_def_cfa_expression 0x0f
#define DW_CFA_expression 0x10
#define DW_OP_breg19 0x83
#define DW_OP_deref 0x06
#define ALT_RETURN_COLUMN 96

/* reg's value is saved at x19 + off (reg < 128, 0 <= off < 8192: one ULEB
 * byte, an SLEB of one or two). */
.macro	saved_at reg, off
	.if (\off) < 64
	.cfi_escape DW_CFA_expression, \reg, 2, DW_OP_breg19, (\off)
	.else
	.cfi_escape DW_CFA_expression, \reg, 3, DW_OP_breg19, ((\off) & 0x7f) | 0x80, (\off) >> 7
	.endif
.endm

	.text
	.globl	wt_async_preempt
	.hidden	wt_async_preempt
	.type	wt_async_preempt, @function
	.p2align 4
wt_async_preempt:
	.cfi_startproc
	.cfi_signal_frame
	.cfi_return_column ALT_RETURN_COLUMN
	/* CFA = *(x19 + WT_PSTATE_SP), the offset a two-byte SLEB */
	.if WT_PSTATE_SP < 64 || WT_PSTATE_SP >= 8192
	.error "WT_PSTATE_SP: the CFA expression's length"
	.endif
	.cfi_escape DW_CFA_def_cfa_expression, 4, DW_OP_breg19, \
		(WT_PSTATE_SP & 0x7f) | 0x80, WT_PSTATE_SP >> 7, DW_OP_deref
	.irp	n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30
	saved_at \n, (WT_PSTATE_X0 + 8 * \n)
	.endr
	saved_at ALT_RETURN_COLUMN, WT_PSTATE_PC
	bl	wt_preempt_park
	mov	x0, x19
	bl	wt_preempt_resume
	brk	#0			/* wt_preempt_resume does not return */
	.cfi_endproc
	.size	wt_async_preempt, .-wt_async_preempt

	.section .note.GNU-stack,"",@progbits
