/*
 * patch.c (x86_64) — a jump written over the start of a function, so that
 * every call of it runs another.  A `jmp rel32` (5 bytes) when the target
 * lies within 2 GiB of the site, else `jmp *0(%rip)` followed by the
 * target's address (14 bytes).  Nothing else in the overwritten bytes
 * runs again: the function is entered only at its start.  x86 keeps the
 * instruction cache coherent with stores; the caller writes while no other
 * thread can be executing the bytes.
 */
#include <string.h>

#include "arch.h"

size_t wt_arch_jump_size(uintptr_t site, uintptr_t target)
{
	intptr_t rel = (intptr_t)target - (intptr_t)(site + 5);
	return rel == (int32_t)rel ? 5 : 14;
}

void wt_arch_jump_write(uintptr_t site, uintptr_t target)
{
	unsigned char b[14];
	size_t n = wt_arch_jump_size(site, target);
	if (n == 5) {
		int32_t rel = (int32_t)((intptr_t)target - (intptr_t)(site + 5));
		b[0] = 0xe9;
		memcpy(b + 1, &rel, 4);
	} else {
		b[0] = 0xff; /* jmp *0(%rip) */
		b[1] = 0x25;
		memset(b + 2, 0, 4);
		memcpy(b + 6, &target, 8);
	}
	memcpy((void *)site, b, n);
}

void wt_arch_code_written(uintptr_t site, size_t n)
{
	(void)site; /* x86 snoops stores into the instruction stream */
	(void)n;
}
