/*
 * vfork.S — the exported vfork, x86_64 System V, ELF, GNU as.
 *
 * The child runs on this stack, below the caller's frame, until it execs
 * or exits, and returns from this function first: whatever it pushes or
 * calls overwrites what lies below the caller's stack pointer, the return
 * address included.  So the return address waits in rdi (the kernel keeps
 * every register but rax, rcx and r11 across the system call, in both
 * processes) and each side pushes it back before it calls C or returns.
 *
 *   wt_vfork_enter()            before the call (sched/process/vfork.c)
 *   wt_vfork_child_start()      in the child, then vfork returns 0
 *   wt_vfork_parent(raw)        in the parent: vfork's value
 *
 * Each call is made with rsp 16-byte aligned (8 off at entry, the return
 * address pushed).
 */
	.text
	.globl	vfork
	.type	vfork, @function
	.p2align 4
vfork:
	.cfi_startproc
	endbr64
	subq	$8, %rsp
	.cfi_adjust_cfa_offset 8
	call	wt_vfork_enter
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	popq	%rdi			/* the return address */
	.cfi_adjust_cfa_offset -8
	.cfi_register 16, 5		/* the return address column: rdi */
	movl	$58, %eax		/* SYS_vfork */
	syscall
	pushq	%rdi
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset 16, 0
	subq	$8, %rsp
	.cfi_adjust_cfa_offset 8
	testq	%rax, %rax
	jz	1f
	movq	%rax, %rdi
	call	wt_vfork_parent
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	ret
1:	.cfi_adjust_cfa_offset 8
	call	wt_vfork_child_start
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	xorl	%eax, %eax
	ret
	.cfi_endproc
	.size	vfork, .-vfork

	.section .note.GNU-stack,"",@progbits
