/*
 * xsave.c (x86_64) — the extended state the preemption stub saves
 * (preempt.S): with xsave and the XCR0 mask where the CPU and the kernel
 * enable XSAVE (CPUID.1:ECX.OSXSAVE), in the size CPUID leaf 0xd gives for
 * that mask; else with fxsave, 512 bytes.  Either way 64 bytes more leave
 * room to align the area.
 */
#include <cpuid.h>

#include "arch.h"

/* [const after init] preempt.S reads these. */
uint32_t wt_xsave_size __attribute__((visibility("hidden"))) = 512 + 64;
uint8_t wt_xsave_ok __attribute__((visibility("hidden")));
uint64_t wt_xsave_mask __attribute__((visibility("hidden")));

/* Context: the initial thread, at start, before the SIGURG handler. */
void wt_arch_preempt_init(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_XSAVE))
		return; /* fxsave: 512 bytes, + 64 for the alignment */
	unsigned lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	__cpuid_count(0xd, 0, a, b, c, d);
	wt_xsave_mask = ((uint64_t)hi << 32) | lo;
	wt_xsave_size = b + 64;
	wt_xsave_ok = 1;
}
