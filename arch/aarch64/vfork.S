/*
 * vfork.S — the exported vfork, aarch64 (AAPCS64), ELF, GNU as.
 *
 * The child runs on this stack, below the caller's frame, until it execs
 * or exits, and returns from this function first: whatever it stores
 * below the caller's stack pointer may be overwritten by the other side.
 * So x29 and x30 stay in their registers across the system call (the
 * kernel keeps every register but x0, in both processes) and each side
 * saves them afresh before it calls C.  aarch64 has no vfork system call:
 * clone with CLONE_VM | CLONE_VFORK | SIGCHLD and no new stack is the same.
 *
 *   wt_vfork_enter()            before the call (sched/vfork.c)
 *   wt_vfork_child_start()      in the child, then vfork returns 0
 *   wt_vfork_parent(raw)        in the parent: vfork's value
 */
	.text
	.globl	vfork
	.type	vfork, @function
	.p2align 4
vfork:
	.cfi_startproc
	hint	34			/* bti c */
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset x29, -16
	.cfi_offset x30, -8
	mov	x29, sp
	bl	wt_vfork_enter
	ldp	x29, x30, [sp], #16
	.cfi_restore x29
	.cfi_restore x30
	.cfi_def_cfa_offset 0
	mov	x0, #0x4111		/* CLONE_VM | CLONE_VFORK | SIGCHLD */
	mov	x1, #0
	mov	x2, #0
	mov	x3, #0
	mov	x4, #0
	mov	x8, #220		/* SYS_clone */
	svc	#0
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset x29, -16
	.cfi_offset x30, -8
	mov	x29, sp
	cbz	x0, 1f
	bl	wt_vfork_parent
	ldp	x29, x30, [sp], #16
	.cfi_remember_state
	.cfi_restore x29
	.cfi_restore x30
	.cfi_def_cfa_offset 0
	ret
1:	.cfi_restore_state
	bl	wt_vfork_child_start
	ldp	x29, x30, [sp], #16
	.cfi_restore x29
	.cfi_restore x30
	.cfi_def_cfa_offset 0
	mov	x0, #0
	ret
	.cfi_endproc
	.size	vfork, .-vfork

	.section .note.GNU-stack,"",@progbits
