/*
 * entry.S — first frame of every task, x86_64 System V, ELF, GNU as.
 *
 * wt_ctx_make (ctx.c) builds a switch frame whose return address is
 * wt_task_trampoline, whose r13 holds the function to call and r12 its
 * argument (wt_task_entry(task) for tasks, wt_schedule(m) for a g0).  The frame is 16-byte
 * aligned after the return, so the call below enters C with the ABI's
 * alignment.  `.cfi_undefined rip` marks the outermost frame: gdb,
 * libunwind and the C++ unwinder stop here instead of walking into the
 * scheduler's stack.
 */
	.text
	.globl	wt_task_trampoline
	.hidden	wt_task_trampoline
	.type	wt_task_trampoline, @function
	.p2align 4
wt_task_trampoline:
	.cfi_startproc
	.cfi_undefined rip
	xorl	%ebp, %ebp		/* frame-pointer walkers stop too */
	movq	%r12, %rdi
	call	*%r13
	ud2				/* the entry functions never return */
	.cfi_endproc
	.size	wt_task_trampoline, .-wt_task_trampoline

/*
 * wt_call_on_stack(sp, fn, arg): calls fn(arg) with the stack pointer at sp
 * (16-byte aligned), then returns on the caller's stack.  main() runs on a
 * growable slot stack this way (shim/libc_start_main.c).  The CFA is kept in
 * %rbp, so debuggers and unwinders walk from fn's frames back to the
 * caller's, on the old stack.
 */
	.globl	wt_call_on_stack
	.hidden	wt_call_on_stack
	.type	wt_call_on_stack, @function
	.p2align 4
wt_call_on_stack:
	.cfi_startproc
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rbp, 0
	movq	%rsp, %rbp
	.cfi_def_cfa_register rbp
	movq	%rdi, %rsp
	movq	%rdx, %rdi
	call	*%rsi
	movq	%rbp, %rsp
	.cfi_def_cfa_register rsp
	popq	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore rbp
	ret
	.cfi_endproc
	.size	wt_call_on_stack, .-wt_call_on_stack

	.section .note.GNU-stack,"",@progbits
