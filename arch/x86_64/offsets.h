/*
 * offsets.h (x86_64) — the byte offsets the assembly and the C code share:
 * struct wt_ctx, the frame wt_ctx_switch saves (switch.S), the preemption
 * stub's red zone and XSAVE header (preempt.S), and glibc's tcbhead_t, the
 * start of every TCB.  Plain #defines, so the .S files include it too;
 * offsets.c checks each one against the C layout it names.
 */
#ifndef WEFT_ARCH_OFFSETS_H
#define WEFT_ARCH_OFFSETS_H

/* struct wt_ctx (arch.h). */
#define WT_CTX_SP 0                  /* stack pointer after the callee-saved pushes */
#define WT_CTX_TP 8                  /* thread pointer to load, 0 = keep */

/* The frame wt_ctx_switch leaves at ctx.sp (struct wt_switch_frame). */
#define WT_FRAME_MXCSR 0             /* SSE control/status (4 bytes) */
#define WT_FRAME_FCW 4               /* x87 control word (2 bytes, 2 of padding) */
#define WT_FRAME_R15 8
#define WT_FRAME_R14 16
#define WT_FRAME_R13 24
#define WT_FRAME_R12 32
#define WT_FRAME_RBX 40
#define WT_FRAME_RBP 48
#define WT_FRAME_RET 56              /* return address */
#define WT_FRAME_SIZE 64             /* the caller's stack pointer is ctx.sp + this */

/* The System V red zone below the stack pointer, which the preemption stub
 * must not touch. */
#define WT_REDZONE 128
/* The 64-byte XSAVE header after the 512-byte legacy area, which xrstor
 * checks: the stub zeroes it before xsave. */
#define WT_XSAVE_HDR 512

/* The value of wt_tls_mode (sched/stack/tls.h: WT_TLS_WRFSBASE) for which
 * switch.S loads the thread pointer with wrfsbase. */
#define WT_TLS_MODE_FAST 0
/* struct wt_m's tp_mode, from its cur_tp (wt_ctx_switch's third argument) */
#define WT_CURTP_MODE 8

/* glibc's tcbhead_t (x86_64; stable since glibc 2.3), at the thread pointer. */
#define WT_TCB_TCB 0x00              /* the TCB itself */
#define WT_TCB_DTV 0x08              /* the DTV (glibc's dtv_t *) */
#define WT_TCB_SELF 0x10             /* struct pthread *: pthread_self */
#define WT_TCB_MULTIPLE_THREADS 0x18
#define WT_TCB_SYSINFO 0x20
#define WT_TCB_STACK_GUARD 0x28      /* the stack protector's canary */
#define WT_TCB_POINTER_GUARD 0x30    /* PTR_MANGLE's key */
#define WT_TCB_FEATURE_1 0x48        /* CET feature bits */
#define WT_TCB_HEADER 0              /* the header's bytes outside struct pthread: none */

#endif
