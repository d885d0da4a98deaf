/*
 * sigctx.c (x86_64) — reading and rewriting the context a signal
 * interrupted (the ucontext_t of an SA_SIGINFO handler).
 */
#include <errno.h>

#include "arch.h"

/* Context: a signal handler on the interrupted thread, which must return to
 * the rewritten context on the same stack.  As Go's pushCall: the
 * interrupted pc becomes the return address, stored 8 bytes below the
 * red zone, which the callee (preempt.S) skips on return. */
void wt_arch_uc_push_call(ucontext_t *uc, void (*fn)(void))
{
	greg_t *g = uc->uc_mcontext.gregs;
	uintptr_t sp = (uintptr_t)g[REG_RSP] - (WT_REDZONE + 8);
	*(uintptr_t *)sp = (uintptr_t)g[REG_RIP];
	g[REG_RSP] = (greg_t)sp;
	g[REG_RIP] = (greg_t)(uintptr_t)fn;
}

/* Context: a signal handler, on a context wt_arch_uc_in_syscall accepted.
 * Makes the call end with -EINTR, as a handler without SA_RESTART would:
 * a call the kernel was to restart (or not yet entered) is stepped over. */
void wt_arch_uc_syscall_eintr(ucontext_t *uc)
{
	greg_t *g = uc->uc_mcontext.gregs;
	const unsigned char *ip = (const unsigned char *)g[REG_RIP];
	if (ip[0] == 0x0f && ip[1] == 0x05)
		g[REG_RIP] += 2;
	g[REG_RAX] = -EINTR;
}

/* Context: a signal handler.  The kernel leaves a context interrupted in a
 * blocking call on its `syscall` instruction (0f 05) when it will restart
 * it (SA_RESTART), or just after it with rax = -EINTR when it will not.
 * Reads the code at the pc, and the two bytes before it only when they lie
 * on the same page. */
bool wt_arch_uc_in_syscall(const ucontext_t *uc)
{
	const greg_t *g = uc->uc_mcontext.gregs;
	const unsigned char *ip = (const unsigned char *)g[REG_RIP];
	if (ip[0] == 0x0f && ip[1] == 0x05)
		return true;
	return ((uintptr_t)ip & 4095) >= 2 && ip[-2] == 0x0f && ip[-1] == 0x05 &&
	       g[REG_RAX] == -EINTR;
}

/* glibc's __jmpbuf: rbx, rbp, r12-r15, rsp (JB_RSP, 6), pc; rbp, rsp and pc
 * mangled as PTR_MANGLE does: xor with the TCB's pointer guard, then
 * rotated left by 17 bits. */
uintptr_t wt_arch_jmpbuf_sp(const void *env, uintptr_t tp)
{
	uintptr_t v = ((const uintptr_t *)env)[6];
	v = (v >> 17) | (v << 47);
	return v ^ *(const uintptr_t *)(tp + WT_TCB_POINTER_GUARD);
}
