/*
 * entry.S — first frame of every task, aarch64 (AAPCS64), ELF, GNU as.
 *
 * wt_ctx_make (ctx.c) builds a switch frame whose return address (x30) is
 * wt_task_trampoline, whose x19 holds the function to call and x20 its
 * argument (wt_task_entry(task) for tasks, wt_schedule(m) for a g0).  The
 * stack pointer is 16-byte aligned after the switch pops the frame, as the
 * ABI wants at a call.  `.cfi_undefined x30` marks the outermost frame:
 * gdb, libunwind and the C++ unwinder stop here instead of walking into the
 * scheduler's stack; x29 = 0 ends the frame-record chain for frame-pointer
 * walkers.
 */
	.text
	.globl	wt_task_trampoline
	.hidden	wt_task_trampoline
	.type	wt_task_trampoline, @function
	.p2align 4
wt_task_trampoline:
	.cfi_startproc
	.cfi_undefined x30
	mov	x29, #0			/* frame-pointer walkers stop too */
	mov	x0, x20
	blr	x19
	brk	#0			/* the entry functions never return */
	.cfi_endproc
	.size	wt_task_trampoline, .-wt_task_trampoline

/*
 * wt_call_on_stack(sp, fn, arg): calls fn(arg) with the stack pointer at sp
 * (16-byte aligned), then returns on the caller's stack.  main() runs on a
 * growable slot stack this way (shim/libc_start_main.c).  The CFA is kept in
 * x29, whose frame record links to the caller's, so debuggers and unwinders
 * walk from fn's frames back to the caller's, on the old stack.
 */
	.globl	wt_call_on_stack
	.hidden	wt_call_on_stack
	.type	wt_call_on_stack, @function
	.p2align 4
wt_call_on_stack:
	.cfi_startproc
	hint	34			/* bti c */
	stp	x29, x30, [sp, #-16]!
	.cfi_adjust_cfa_offset 16
	.cfi_rel_offset x29, 0
	.cfi_rel_offset x30, 8
	mov	x29, sp
	.cfi_def_cfa_register x29
	mov	sp, x0
	mov	x0, x2
	blr	x1
	mov	sp, x29
	.cfi_def_cfa_register sp
	ldp	x29, x30, [sp], #16
	.cfi_adjust_cfa_offset -16
	.cfi_restore x29
	.cfi_restore x30
	ret
	.cfi_endproc
	.size	wt_call_on_stack, .-wt_call_on_stack

	.section .note.GNU-stack,"",@progbits
