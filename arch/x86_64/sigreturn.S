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
 * deferred like any that interrupts weft (sched/signal/sighandler.c), and no
 * preemption lands there.  The bytes are glibc's (mov $15, %rax; syscall),
 * which unwinders recognise as a signal frame's return; the nop before it
 * keeps a return-address lookup (pc - 1) out of the previous function.
 * gdb looks at those bytes only under a name that is __restore_rt or
 * contains "sigaction" (amd64_linux_sigtramp_p), hence the name: with
 * another, a backtrace (a core of a fault in a task) stopped here.
 */
	.text
	.p2align 4
	nop
	.globl	wt_arch_sigaction_restorer
	.hidden	wt_arch_sigaction_restorer
	.type	wt_arch_sigaction_restorer, @function
wt_arch_sigaction_restorer:
	movq	$15, %rax		/* SYS_rt_sigreturn */
	syscall
	ud2
	.size	wt_arch_sigaction_restorer, .-wt_arch_sigaction_restorer
	.section .note.GNU-stack,"",@progbits
