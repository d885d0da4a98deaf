/*
 * dlsym.S — the exported dlsym, x86_64 System V, ELF, GNU as.
 *
 * glibc's dlsym reads its own return address to know which object called
 * it (RTLD_NEXT means "after the caller").  So this entry asks
 * wt_dlsym_redirect (shim/dlsym.c) with the caller's return address, and
 * when it answers NULL jumps to glibc's dlsym with the stack as it was at
 * entry: glibc sees the original caller, never libweft.
 *
 * Frame while asking: return address, rdi, rsi, 8 bytes of padding (the
 * call needs rsp 16-byte aligned; it was 8 off at entry).
 */
	.text
	.globl	dlsym
	.type	dlsym, @function
	.p2align 4
dlsym:
	.cfi_startproc
	endbr64
	pushq	%rdi			/* handle */
	.cfi_adjust_cfa_offset 8
	pushq	%rsi			/* name */
	.cfi_adjust_cfa_offset 8
	subq	$8, %rsp
	.cfi_adjust_cfa_offset 8
	movq	24(%rsp), %rdx		/* the caller's return address */
	call	wt_dlsym_redirect
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	popq	%rsi
	.cfi_adjust_cfa_offset -8
	popq	%rdi
	.cfi_adjust_cfa_offset -8
	testq	%rax, %rax
	jnz	1f
	jmp	*wt_dlsym_next(%rip)	/* glibc's, as if called directly */
1:	ret				/* weft's own function */
	.cfi_endproc
	.size	dlsym, .-dlsym

	.section .note.GNU-stack,"",@progbits
