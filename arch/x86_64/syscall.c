/*
 * syscall.c (x86_64) — the runtime's raw system call: the `syscall`
 * instruction with the kernel's register convention.  It returns the
 * kernel's value (-errno on failure) and never touches errno, so runtime
 * paths leave the program's errno as it was.
 */
#include "arch.h"

long wt_syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
