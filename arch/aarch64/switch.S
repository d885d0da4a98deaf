/*
 * switch.S — weft's context switch, aarch64 (AAPCS64), ELF, GNU as.
 *
 * void wt_ctx_switch(struct wt_ctx *save, const struct wt_ctx *load,
 *                    uintptr_t *cur_tp);
 *
 * Saves the callee-saved state of the caller on its own stack, stores the
 * stack pointer in save->sp, loads load->tp as the thread pointer (unless it
 * is 0 or already *cur_tp), switches to load->sp and returns there (to the
 * loaded x30).
 *
 * Saved frame, at save->sp (offsets in bytes; offsets.h: WT_FRAME_*,
 * struct wt_switch_frame in arch.h):
 *
 *   +0    x19 .. x28
 *   +80   x29 (frame pointer)
 *   +88   x30 (return address)
 *   +96   d8 .. d15 (the low halves of v8-v15, all the ABI preserves)
 *   +160  FPCR
 *   +168  pad
 *
 * Thread pointer: TPIDR_EL0 is written from user space and the kernel keeps
 * it per thread, so there is no other mode (wt_tls_mode is always
 * WT_TLS_MODE_FAST here).  *cur_tp is stored before the write, as on every
 * architecture.  Writing FPCR may stall the pipeline: it is loaded only when
 * it differs from the caller's.
 */
#include "offsets.h"

	.text
	.globl	wt_ctx_switch
	.hidden	wt_ctx_switch
	.type	wt_ctx_switch, @function
	.p2align 4
wt_ctx_switch:
	.cfi_startproc
	hint	34			/* bti c */
	sub	sp, sp, #WT_FRAME_SIZE
	.cfi_adjust_cfa_offset WT_FRAME_SIZE
	stp	x19, x20, [sp, #WT_FRAME_X19]
	.cfi_rel_offset x19, WT_FRAME_X19
	.cfi_rel_offset x20, WT_FRAME_X19 + 8
	stp	x21, x22, [sp, #WT_FRAME_X19 + 16]
	.cfi_rel_offset x21, WT_FRAME_X19 + 16
	.cfi_rel_offset x22, WT_FRAME_X19 + 24
	stp	x23, x24, [sp, #WT_FRAME_X19 + 32]
	.cfi_rel_offset x23, WT_FRAME_X19 + 32
	.cfi_rel_offset x24, WT_FRAME_X19 + 40
	stp	x25, x26, [sp, #WT_FRAME_X19 + 48]
	.cfi_rel_offset x25, WT_FRAME_X19 + 48
	.cfi_rel_offset x26, WT_FRAME_X19 + 56
	stp	x27, x28, [sp, #WT_FRAME_X19 + 64]
	.cfi_rel_offset x27, WT_FRAME_X19 + 64
	.cfi_rel_offset x28, WT_FRAME_X19 + 72
	stp	x29, x30, [sp, #WT_FRAME_FP]
	.cfi_rel_offset x29, WT_FRAME_FP
	.cfi_rel_offset x30, WT_FRAME_LR
	stp	d8, d9, [sp, #WT_FRAME_D8]
	.cfi_rel_offset d8, WT_FRAME_D8
	.cfi_rel_offset d9, WT_FRAME_D8 + 8
	stp	d10, d11, [sp, #WT_FRAME_D8 + 16]
	.cfi_rel_offset d10, WT_FRAME_D8 + 16
	.cfi_rel_offset d11, WT_FRAME_D8 + 24
	stp	d12, d13, [sp, #WT_FRAME_D8 + 32]
	.cfi_rel_offset d12, WT_FRAME_D8 + 32
	.cfi_rel_offset d13, WT_FRAME_D8 + 40
	stp	d14, d15, [sp, #WT_FRAME_D8 + 48]
	.cfi_rel_offset d14, WT_FRAME_D8 + 48
	.cfi_rel_offset d15, WT_FRAME_D8 + 56
	mrs	x9, fpcr		/* kept for the compare below */
	str	x9, [sp, #WT_FRAME_FPCR]
	mov	x10, sp
	str	x10, [x0, #WT_CTX_SP]	/* save->sp */

	ldr	x11, [x1, #WT_CTX_TP]	/* load->tp */
	cbz	x11, 1f
	ldr	x12, [x2]
	cmp	x11, x12		/* already loaded on this thread? */
	b.eq	1f
	str	x11, [x2]		/* *cur_tp first: see the header */
	msr	tpidr_el0, x11
1:	ldr	x10, [x1, #WT_CTX_SP]
	mov	sp, x10			/* the other stack from here on */
	ldr	x11, [sp, #WT_FRAME_FPCR]
	cmp	x11, x9
	b.eq	2f
	msr	fpcr, x11
2:	ldp	d8, d9, [sp, #WT_FRAME_D8]
	ldp	d10, d11, [sp, #WT_FRAME_D8 + 16]
	ldp	d12, d13, [sp, #WT_FRAME_D8 + 32]
	ldp	d14, d15, [sp, #WT_FRAME_D8 + 48]
	ldp	x19, x20, [sp, #WT_FRAME_X19]
	ldp	x21, x22, [sp, #WT_FRAME_X19 + 16]
	ldp	x23, x24, [sp, #WT_FRAME_X19 + 32]
	ldp	x25, x26, [sp, #WT_FRAME_X19 + 48]
	ldp	x27, x28, [sp, #WT_FRAME_X19 + 64]
	ldp	x29, x30, [sp, #WT_FRAME_FP]
	add	sp, sp, #WT_FRAME_SIZE
	.cfi_adjust_cfa_offset -WT_FRAME_SIZE
	.cfi_restore x19
	.cfi_restore x20
	.cfi_restore x21
	.cfi_restore x22
	.cfi_restore x23
	.cfi_restore x24
	.cfi_restore x25
	.cfi_restore x26
	.cfi_restore x27
	.cfi_restore x28
	.cfi_restore x29
	.cfi_restore x30
	.cfi_restore d8
	.cfi_restore d9
	.cfi_restore d10
	.cfi_restore d11
	.cfi_restore d12
	.cfi_restore d13
	.cfi_restore d14
	.cfi_restore d15
	ret
	.cfi_endproc
	.size	wt_ctx_switch, .-wt_ctx_switch

	.section .note.GNU-stack,"",@progbits
