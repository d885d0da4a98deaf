/*
 * offsets.h (aarch64) — the byte offsets the assembly and the C code
 * share: struct wt_ctx, the frame wt_ctx_switch saves (switch.S), the
 * state a preempted task keeps on its stack (struct wt_pstate, sigctx.c;
 * preempt.S's unwind rules read it), and glibc's tcbhead_t.  Plain
 * #defines, so the .S files include it too; offsets.c checks each one
 * against the C layout it names.
 */
#ifndef WEFT_ARCH_OFFSETS_H
#define WEFT_ARCH_OFFSETS_H

/* struct wt_ctx (arch.h). */
#define WT_CTX_SP 0                  /* stack pointer after the callee-saved stores */
#define WT_CTX_TP 8                  /* thread pointer to load, 0 = keep */

/* The frame wt_ctx_switch leaves at ctx.sp (struct wt_switch_frame). */
#define WT_FRAME_X19 0               /* x19..x28, 8 bytes each */
#define WT_FRAME_FP 80               /* x29 */
#define WT_FRAME_LR 88               /* x30: where the switch returns */
#define WT_FRAME_D8 96               /* d8..d15, 8 bytes each */
#define WT_FRAME_FPCR 160
#define WT_FRAME_SIZE 176            /* the caller's stack pointer is ctx.sp + this */

/* struct wt_pstate (sigctx.c): an interrupted task's whole state. */
#define WT_PSTATE_MAGIC 0
#define WT_PSTATE_X0 8               /* x0..x30, 8 bytes each */
#define WT_PSTATE_SP 256
#define WT_PSTATE_PC 264
#define WT_PSTATE_PSTATE 272
#define WT_PSTATE_FPSR 280           /* 4 bytes */
#define WT_PSTATE_FPCR 284           /* 4 bytes */
#define WT_PSTATE_V0 288             /* v0..v31, 16 bytes each */
#define WT_PSTATE_SIZE 800

/* The value of wt_tls_mode (sched/stack/tls.h: WT_TLS_WRFSBASE) for a switch
 * that writes the thread pointer from user space (always, here). */
#define WT_TLS_MODE_FAST 0

/* glibc's tcbhead_t (aarch64: {dtv, private}), at the thread pointer. */
#define WT_TCB_DTV 0x00              /* the DTV (glibc's dtv_t *) */
#define WT_TCB_HEADER 16             /* the header at tp, outside struct pthread (TLS_TCB_SIZE) */

#endif
