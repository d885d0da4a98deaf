/*
 * ctx.c (aarch64) — building a fresh task context, and reading a
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
	uint64_t fpcr;

	/* A new thread inherits the creator's floating-point environment. */
	__asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
	*f = (struct wt_switch_frame){
		.x19 = (uintptr_t)fn,             /* entry.S: the entry function */
		.x20 = (uintptr_t)arg,            /* its argument */
		.fp = 0,                          /* ends the frame-record chain */
		.lr = (uintptr_t)wt_task_trampoline,
		.fpcr = fpcr,
	};
	c->sp = (uintptr_t)f;
	c->tp = tp;
}

/* Context: any (the task dump's thread).  Reads the frame only. */
void wt_ctx_regs(uintptr_t sp, ucontext_t *uc)
{
	const struct wt_switch_frame *f = (const struct wt_switch_frame *)sp;
	memset(uc, 0, sizeof *uc);
	/* x19..x28, fp, lr: consecutive in the frame (offsets.h) as in regs[]. */
	memcpy(&uc->uc_mcontext.regs[19], &f->x19, 12 * sizeof f->x19);
	uc->uc_mcontext.sp = sp + WT_FRAME_SIZE;
	uc->uc_mcontext.pc = f->lr;
}
