/*
 * syscall_sigok.S — wt_syscall6_sigok(nr, a, b, c, d, e, f): a system call
 * at which a program's signal handler may run.
 *
 * weft defers a program's handler that interrupts weft's own code (which may
 * hold a lock the handler would need: sched/signal/sighandler.c), except where the
 * interrupted instruction lies in this function: the waits weft makes
 * holding nothing (an idle worker's sleep, the poller's epoll_wait) and the
 * calls that raise a task's signals on purpose.  Its end label bounds it.
 */
	.text
	.globl	wt_syscall6_sigok
	.hidden	wt_syscall6_sigok
	.type	wt_syscall6_sigok, @function
	.globl	wt_syscall6_sigok_end
	.hidden	wt_syscall6_sigok_end
	.p2align 4
wt_syscall6_sigok:
	.cfi_startproc
	movq	%rdi, %rax
	movq	%rsi, %rdi
	movq	%rdx, %rsi
	movq	%rcx, %rdx
	movq	%r8, %r10
	movq	%r9, %r8
	movq	8(%rsp), %r9
	syscall
	ret
	.cfi_endproc
wt_syscall6_sigok_end:
	.size	wt_syscall6_sigok, .-wt_syscall6_sigok

	.section .note.GNU-stack,"",@progbits
