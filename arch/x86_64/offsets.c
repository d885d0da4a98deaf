/*
 * offsets.c (x86_64) — the one place that checks offsets.h against the C
 * layouts and values it names: struct wt_ctx and struct wt_switch_frame
 * (arch.h), the fast thread-pointer mode (sched/stack/tls.h), and glibc's
 * tcbhead_t (x86_64, stable since glibc 2.3), mirrored here
 * (only the fields weft touches are named).  Nothing here is code.
 */
#include <stddef.h>

#include "arch.h"
#include "core/runtime.h"
#include "stack/tls.h"

struct tcbhead {
	void *tcb;
	void *dtv;
	void *self;
	int multiple_threads;
	int gscope_flag;
	uintptr_t sysinfo;
	uintptr_t stack_guard;
	uintptr_t pointer_guard;
	unsigned long unused_vgetcpu_cache[2];
	unsigned int feature_1;
};

_Static_assert(offsetof(struct wt_ctx, sp) == WT_CTX_SP, "wt_ctx.sp");
_Static_assert(offsetof(struct wt_ctx, tp) == WT_CTX_TP, "wt_ctx.tp");

_Static_assert(offsetof(struct wt_switch_frame, mxcsr) == WT_FRAME_MXCSR, "frame mxcsr");
_Static_assert(offsetof(struct wt_switch_frame, fcw) == WT_FRAME_FCW, "frame fcw");
_Static_assert(offsetof(struct wt_switch_frame, r15) == WT_FRAME_R15, "frame r15");
_Static_assert(offsetof(struct wt_switch_frame, r14) == WT_FRAME_R14, "frame r14");
_Static_assert(offsetof(struct wt_switch_frame, r13) == WT_FRAME_R13, "frame r13");
_Static_assert(offsetof(struct wt_switch_frame, r12) == WT_FRAME_R12, "frame r12");
_Static_assert(offsetof(struct wt_switch_frame, rbx) == WT_FRAME_RBX, "frame rbx");
_Static_assert(offsetof(struct wt_switch_frame, rbp) == WT_FRAME_RBP, "frame rbp");
_Static_assert(offsetof(struct wt_switch_frame, ret) == WT_FRAME_RET, "frame return address");
_Static_assert(sizeof(struct wt_switch_frame) == WT_FRAME_SIZE, "frame size");
_Static_assert(WT_FRAME_SIZE % 16 == 0, "the frame keeps the stack 16-byte aligned");

_Static_assert(WT_TLS_WRFSBASE == WT_TLS_MODE_FAST, "switch.S tests tp_mode against this");
_Static_assert(offsetof(struct wt_m, tp_mode) - offsetof(struct wt_m, cur_tp) == WT_CURTP_MODE,
	       "wt_m.tp_mode from cur_tp");

_Static_assert(offsetof(struct tcbhead, tcb) == WT_TCB_TCB, "tcbhead.tcb");
_Static_assert(offsetof(struct tcbhead, self) == WT_TCB_SELF, "tcbhead.self");
_Static_assert(offsetof(struct tcbhead, multiple_threads) == WT_TCB_MULTIPLE_THREADS,
	       "tcbhead.multiple_threads");
_Static_assert(offsetof(struct tcbhead, sysinfo) == WT_TCB_SYSINFO, "tcbhead.sysinfo");
_Static_assert(offsetof(struct tcbhead, stack_guard) == WT_TCB_STACK_GUARD,
	       "tcbhead.stack_guard");
_Static_assert(offsetof(struct tcbhead, pointer_guard) == WT_TCB_POINTER_GUARD,
	       "tcbhead.pointer_guard");
_Static_assert(offsetof(struct tcbhead, feature_1) == WT_TCB_FEATURE_1, "tcbhead.feature_1");
