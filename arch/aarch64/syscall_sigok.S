/*
 * syscall_sigok.S — wt_syscall6_sigok(nr, a, b, c, d, e, f): a system call
 * at which a program's signal handler may run, aarch64, ELF, GNU as.
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
	hint	34			/* bti c */
	mov	x8, x0
	mov	x0, x1
	mov	x1, x2
	mov	x2, x3
	mov	x3, x4
	mov	x4, x5
	mov	x5, x6
	svc	#0
	ret
	.cfi_endproc
wt_syscall6_sigok_end:
	.size	wt_syscall6_sigok, .-wt_syscall6_sigok

	.section .note.GNU-stack,"",@progbits
