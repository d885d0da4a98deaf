/*
 * sigreturn.S — the return path of weft's own signal handlers (the fault
 * handler, SIGURG), aarch64.
 *
 * The kernel enters a handler with this address in x30 (the sigaction's
 * SA_RESTORER; without one, the vDSO's trampoline); the handler's ret lands
 * here and rt_sigreturn restores the interrupted context.  Outside libweft,
 * a signal taken on these instructions looks like one that interrupted the
 * program, though the context about to be restored may be weft code holding
 * a lock: its handler would then run under the lock.  In libweft's text,
 * such a signal is deferred like any that interrupts weft
 * (sched/signal/sighandler.c), and no preemption lands there.  The instructions are
 * the vDSO's (mov x8, #139; svc #0), which unwinders recognise as a signal
 * frame's return; the nop before keeps a return-address lookup (pc - 4)
 * out of the previous function.
 */
	.text
	.p2align 4
	nop
	.globl	wt_arch_sigaction_restorer
	.hidden	wt_arch_sigaction_restorer
	.type	wt_arch_sigaction_restorer, %function
wt_arch_sigaction_restorer:
	mov	x8, #139		/* SYS_rt_sigreturn */
	svc	#0
	brk	#0
	.size	wt_arch_sigaction_restorer, .-wt_arch_sigaction_restorer
	.section .note.GNU-stack,"",%progbits
