/*
 * pstate.h (aarch64) — the state of a preempted task, copied from the
 * signal frame that interrupted it onto its own stack
 * (wt_arch_uc_push_call) and back into the frame of the signal that
 * resumes it (wt_arch_uc_resume).  preempt.S's unwind rules read it at the
 * offsets.h values (WT_PSTATE_*), which offsets.c checks.
 */
#ifndef WEFT_ARCH_PSTATE_H
#define WEFT_ARCH_PSTATE_H

#include <stdint.h>

/* The magic word of a saved state ("weftpst"); cleared when it is loaded. */
#define WT_PSTATE_WORD 0x77656674707374ULL

struct wt_pstate {
	uint64_t magic;     /* WT_PSTATE_WORD while the state is unused */
	uint64_t x[31];     /* x0..x30 */
	uint64_t sp, pc, pstate;
	uint32_t fpsr, fpcr;
	__uint128_t v[32];  /* v0..v31 (16-byte aligned) */
};

#endif
