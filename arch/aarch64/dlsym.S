/*
 * dlsym.S — the exported dlsym, aarch64 (AAPCS64), ELF, GNU as.
 *
 * glibc's dlsym reads its own return address (x30 at entry) to know which
 * object called it (RTLD_NEXT means "after the caller").  So this entry
 * asks wt_dlsym_redirect (shim/dlsym.c) with the caller's return address,
 * and when it answers NULL branches to glibc's dlsym with x0, x1, x30 and
 * sp as they were at entry: glibc sees the original caller, never libweft.
 *
 * Frame while asking (32 bytes): x29, x30, then x0 (handle), x1 (name).
 */
	.text
	.globl	dlsym
	.type	dlsym, @function
	.p2align 4
dlsym:
	.cfi_startproc
	hint	34			/* bti c */
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset x29, -32
	.cfi_offset x30, -24
	mov	x29, sp
	stp	x0, x1, [sp, #16]
	mov	x2, x30			/* the caller's return address */
	bl	wt_dlsym_redirect
	mov	x9, x0
	ldp	x0, x1, [sp, #16]
	ldp	x29, x30, [sp], #32
	.cfi_restore x29
	.cfi_restore x30
	.cfi_def_cfa_offset 0
	cbnz	x9, 1f
	adrp	x16, wt_dlsym_next
	ldr	x16, [x16, :lo12:wt_dlsym_next]
	br	x16			/* glibc's, as if called directly */
1:	mov	x0, x9			/* weft's own function */
	ret
	.cfi_endproc
	.size	dlsym, .-dlsym

	.section .note.GNU-stack,"",@progbits
