/*
 * sigreturn.S — the return path of weft's own signal handlers (the fault
 * handler, SIGURG), x86_64.
 *
 * The kernel enters a handler with this address as its return address (the
 * sigaction's SA_RESTORER); the handler's ret lands here and rt_sigreturn
 * restores the interrupted context.  glibc's restorer lies in libc, where a
 * signal taken on its two instructions looks like one that interrupted the
 * program, though the context about to be restored may be weft code holding
 * a lock (a thread-pointer fault in the parking lot): that signal's handler
 * would then run under the lock.  In libweft's text, such a signal is
 * deferred like any that interrupts weft (sched/sighandler.c), and no
 * preemption lands there.  The bytes are glibc's (mov $15, %rax; syscall),
 * which unwinders recognise as a signal frame's return; the nop before it
 * keeps a return-address lookup (pc - 1) out of the previous function.
 */
	.text
	.p2align 4
	nop
	.globl	wt_arch_sigreturn
	.hidden	wt_arch_sigreturn
	.type	wt_arch_sigreturn, @function
wt_arch_sigreturn:
	movq	$15, %rax		/* SYS_rt_sigreturn */
	syscall
	ud2
	.size	wt_arch_sigreturn, .-wt_arch_sigreturn
	.section .note.GNU-stack,"",@progbits
