/*
 * offsets.c (aarch64) — the one place that checks offsets.h against the C
 * layouts and values it names: struct wt_ctx and struct wt_switch_frame
 * (arch.h), struct wt_pstate (pstate.h), the fast thread-pointer mode
 * (sched/stack/tls.h), and glibc's tcbhead_t (aarch64: {dtv, private}), mirrored
 * here.  Nothing here is code.
 */
#include <stddef.h>

#include "arch.h"
#include "pstate.h"
#include "stack/tls.h"

struct tcbhead {
	void *dtv;
	void *private;
};

_Static_assert(offsetof(struct wt_ctx, sp) == WT_CTX_SP, "wt_ctx.sp");
_Static_assert(offsetof(struct wt_ctx, tp) == WT_CTX_TP, "wt_ctx.tp");

_Static_assert(offsetof(struct wt_switch_frame, x19) == WT_FRAME_X19, "frame x19");
_Static_assert(offsetof(struct wt_switch_frame, x28) == WT_FRAME_X19 + 72, "frame x28");
_Static_assert(offsetof(struct wt_switch_frame, fp) == WT_FRAME_FP, "frame fp");
_Static_assert(offsetof(struct wt_switch_frame, lr) == WT_FRAME_LR, "frame lr");
_Static_assert(offsetof(struct wt_switch_frame, d) == WT_FRAME_D8, "frame d8");
_Static_assert(offsetof(struct wt_switch_frame, fpcr) == WT_FRAME_FPCR, "frame fpcr");
_Static_assert(sizeof(struct wt_switch_frame) == WT_FRAME_SIZE, "frame size");
_Static_assert(WT_FRAME_SIZE % 16 == 0, "the frame keeps the stack 16-byte aligned");

_Static_assert(offsetof(struct wt_pstate, magic) == WT_PSTATE_MAGIC, "pstate magic");
_Static_assert(offsetof(struct wt_pstate, x) == WT_PSTATE_X0, "pstate x0");
_Static_assert(offsetof(struct wt_pstate, sp) == WT_PSTATE_SP, "pstate sp");
_Static_assert(offsetof(struct wt_pstate, pc) == WT_PSTATE_PC, "pstate pc");
_Static_assert(offsetof(struct wt_pstate, pstate) == WT_PSTATE_PSTATE, "pstate pstate");
_Static_assert(offsetof(struct wt_pstate, fpsr) == WT_PSTATE_FPSR, "pstate fpsr");
_Static_assert(offsetof(struct wt_pstate, fpcr) == WT_PSTATE_FPCR, "pstate fpcr");
_Static_assert(offsetof(struct wt_pstate, v) == WT_PSTATE_V0, "pstate v0");
_Static_assert(sizeof(struct wt_pstate) == WT_PSTATE_SIZE, "pstate size");
_Static_assert(WT_PSTATE_SIZE % 16 == 0, "the state keeps the stack 16-byte aligned");

_Static_assert(WT_TLS_WRFSBASE == WT_TLS_MODE_FAST, "the fast thread-pointer mode");

_Static_assert(offsetof(struct tcbhead, dtv) == WT_TCB_DTV, "tcbhead.dtv");
_Static_assert(sizeof(struct tcbhead) == WT_TCB_HEADER, "tcbhead size");
