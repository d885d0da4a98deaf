/*
 * ctx.c (x86_64) — building a fresh task context, and reading a
 * switched-out one back as registers.  The frame layout is switch.S's
 * (struct wt_switch_frame, offsets.h).
 */
#include <string.h>

#include "base/base.h"
#include "arch.h"

void wt_task_trampoline(void);

/* Context: any.  Does not allocate. */
void wt_ctx_make(struct wt_ctx *c, void *stack_top, void (*fn)(void *), void *arg, uintptr_t tp)
{
	uintptr_t top = WT_ALIGN_DOWN((uintptr_t)stack_top, 16);
	struct wt_switch_frame *f = (struct wt_switch_frame *)top - 1;
	uint32_t mxcsr;
	uint16_t fcw;

	/* A new thread inherits the creator's floating-point environment. */
	__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
	__asm__ volatile("fnstcw %0" : "=m"(fcw));
	f->mxcsr = mxcsr;
	f->fcw = fcw;
	f->pad = 0;
	f->r15 = 0;
	f->r14 = 0;
	f->r13 = (uintptr_t)fn;                   /* entry.S: the entry function */
	f->r12 = (uintptr_t)arg;                  /* its argument */
	f->rbx = 0;
	f->rbp = 0;
	f->ret = (uintptr_t)wt_task_trampoline;
	c->sp = (uintptr_t)f;
	c->tp = tp;
}

/* Context: any (the task dump's thread).  Reads the frame only. */
void wt_ctx_regs(uintptr_t sp, ucontext_t *uc)
{
	const struct wt_switch_frame *f = (const struct wt_switch_frame *)sp;
	memset(uc, 0, sizeof *uc);
	greg_t *g = uc->uc_mcontext.gregs;
	g[REG_R15] = (greg_t)f->r15;
	g[REG_R14] = (greg_t)f->r14;
	g[REG_R13] = (greg_t)f->r13;
	g[REG_R12] = (greg_t)f->r12;
	g[REG_RBX] = (greg_t)f->rbx;
	g[REG_RBP] = (greg_t)f->rbp;
	g[REG_RIP] = (greg_t)f->ret;
	g[REG_RSP] = (greg_t)(sp + WT_FRAME_SIZE);
}
