/*
 * ctx.c — building a fresh task context and reading/writing the thread
 * pointer outside a switch.  The frame layout is switch.S's.
 */
#include <asm/prctl.h>
#include <sys/syscall.h>

#include "../../sched/base.h"
#include "arch.h"

void wt_task_trampoline(void);

/* Context: any.  Does not allocate. */
void wt_ctx_make(struct wt_ctx *c, void *stack_top, void (*fn)(void *), void *arg, uintptr_t tp)
{
	uintptr_t *sp = (uintptr_t *)WT_ALIGN_DOWN((uintptr_t)stack_top, 16);
	uint32_t mxcsr;
	uint16_t fcw;

	/* A new thread inherits the creator's floating-point environment. */
	__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
	__asm__ volatile("fnstcw %0" : "=m"(fcw));
	sp -= 8;                                  /* 8 words: the saved frame */
	sp[0] = mxcsr | ((uintptr_t)fcw << 32);
	sp[1] = 0;                                /* r15 */
	sp[2] = 0;                                /* r14 */
	sp[3] = (uintptr_t)fn;                    /* r13: entry function */
	sp[4] = (uintptr_t)arg;                   /* r12: its argument */
	sp[5] = 0;                                /* rbx */
	sp[6] = 0;                                /* rbp */
	sp[7] = (uintptr_t)wt_task_trampoline;    /* return address */
	c->sp = (uintptr_t)sp;
	c->tp = tp;
}

uintptr_t wt_arch_get_tp(void)
{
	uintptr_t tp;
	__asm__ volatile("movq %%fs:0, %0" : "=r"(tp));
	return tp;
}

/* Sets the thread pointer the kernel knows about (survives preemption). */
void wt_arch_set_tp(uintptr_t tp)
{
	wt_syscall6(SYS_arch_prctl, ARCH_SET_FS, (long)tp, 0, 0, 0, 0);
}
