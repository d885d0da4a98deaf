/*
 * syscall.c (aarch64) — the runtime's raw system call: `svc #0` with the
 * kernel's register convention (number in x8, arguments in x0..x5, result
 * in x0).  It returns the kernel's value (-errno on failure) and never
 * touches errno, so runtime paths leave the program's errno as it was.
 */
#include "arch.h"

long wt_syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc #0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}
