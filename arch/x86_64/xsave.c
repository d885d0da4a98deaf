/*
 * xsave.c (x86_64) — the extended state the preemption stub saves
 * (preempt.S): with xsave and the XCR0 mask where the CPU and the kernel
 * enable XSAVE (CPUID.1:ECX.OSXSAVE), in the size CPUID leaf 0xd gives for
 * that mask; else with fxsave, 512 bytes.  Either way 64 bytes more leave
 * room to align the area.
 */
#include <cpuid.h>

#include "arch.h"

/* [const once wt_xsave_probed] preempt.S reads these. */
uint32_t wt_xsave_size __attribute__((visibility("hidden"))) = 512 + 64;
uint8_t wt_xsave_ok __attribute__((visibility("hidden")));
uint64_t wt_xsave_mask __attribute__((visibility("hidden")));
uint8_t wt_xsave_probed __attribute__((visibility("hidden")));

/* Context: any (arch.h: wt_arch_preempt_state_size).  Two threads that
 * probe at once store the same values. */
void wt_arch_xsave_probe(void)
{
	unsigned a, b, c, d;
	if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_OSXSAVE) && (c & bit_XSAVE)) {
		unsigned lo, hi;
		__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
		__cpuid_count(0xd, 0, a, b, c, d);
		__atomic_store_n(&wt_xsave_mask, ((uint64_t)hi << 32) | lo, __ATOMIC_RELAXED);
		__atomic_store_n(&wt_xsave_size, b + 64, __ATOMIC_RELAXED);
		__atomic_store_n(&wt_xsave_ok, 1, __ATOMIC_RELAXED);
	} /* else fxsave: 512 bytes, + 64 for the alignment */
	__atomic_store_n(&wt_xsave_probed, 1, __ATOMIC_RELEASE);
}
