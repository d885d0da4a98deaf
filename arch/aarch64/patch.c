/*
 * patch.c (aarch64) — a jump written over the start of a function, so that
 * every call of it runs another: `b` when the target lies within 128 MiB
 * of the site (4 bytes), else `ldr x16, 8; br x16` followed by the
 * target's address (16 bytes; x16 is the procedure-call scratch register
 * that veneers use).  Nothing else in the overwritten bytes runs again:
 * the function is entered only at its start.  The instruction cache is
 * made to see the new bytes; the caller writes while no other thread can
 * be executing them.
 */
#include <string.h>

#include "arch.h"

size_t wt_arch_jump_size(uintptr_t site, uintptr_t target)
{
	intptr_t rel = (intptr_t)target - (intptr_t)site;
	return rel >= -(1l << 27) && rel < (1l << 27) && !(rel & 3) ? 4 : 16;
}

void wt_arch_jump_write(uintptr_t site, uintptr_t target)
{
	uint32_t insn[4];
	size_t n = wt_arch_jump_size(site, target);
	if (n == 4) {
		intptr_t rel = (intptr_t)target - (intptr_t)site;
		insn[0] = 0x14000000u | ((uint32_t)(rel >> 2) & 0x03ffffffu); /* b */
	} else {
		insn[0] = 0x58000050u; /* ldr x16, #8 */
		insn[1] = 0xd61f0200u; /* br x16 */
		memcpy(&insn[2], &target, 8);
	}
	memcpy((void *)site, insn, n);
	wt_arch_code_written(site, n);
}

void wt_arch_code_written(uintptr_t site, size_t n)
{
	__builtin___clear_cache((char *)site, (char *)site + n);
}
