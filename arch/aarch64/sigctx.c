/*
 * sigctx.c (aarch64) — reading and rewriting the context a signal
 * interrupted (the ucontext_t of an SA_SIGINFO handler), and moving a
 * preempted task's state between such a context and its stack.
 *
 * Besides the general registers, uc_mcontext.__reserved holds a chain of
 * records (struct _aarch64_ctx, ended by magic 0): FP/SIMD always, first;
 * SVE when the CPU has it, possibly in an extra area an EXTRA_MAGIC record
 * points at.  sigreturn loads the V registers from the FP/SIMD record,
 * or, when the SVE record carries register data, the Z registers from it,
 * whose low 128 bits are the V registers.
 */
#include <asm/sigcontext.h>
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "base/base.h"
#include "arch.h"
#include "pstate.h"

#define SVC0 0xd4000001u   /* svc #0 */
#define PSTATE_BTYPE 0xc00 /* PSTATE.BTYPE: the last indirect branch's kind */

/* The record with magic in the context's chain, or NULL. */
static struct _aarch64_ctx *record(mcontext_t *mc, uint32_t magic)
{
	struct _aarch64_ctx *h = (struct _aarch64_ctx *)mc->__reserved;
	while (h->magic != 0) {
		if (h->magic == magic)
			return h;
		if (h->magic == EXTRA_MAGIC) /* the rest follows in the extra area */
			h = (struct _aarch64_ctx *)((struct extra_context *)h)->datap;
		else if (h->size < sizeof *h)
			return NULL;
		else
			h = (struct _aarch64_ctx *)((char *)h + h->size);
	}
	return NULL;
}

/* Context: a signal handler on the interrupted thread, on its alternate
 * stack, which must return to the rewritten context.  The interrupted
 * state goes below the interrupted sp (there is no red zone here), 16-byte
 * aligned; the context then enters fn with sp and x19 at it and x30 = 0.
 * BTYPE is cleared: fn is entered as by a return, not a branch. */
void wt_arch_uc_push_call(ucontext_t *uc, void (*fn)(void))
{
	mcontext_t *mc = &uc->uc_mcontext;
	struct wt_pstate *s = (struct wt_pstate *)WT_ALIGN_DOWN(mc->sp - sizeof *s, 16);
	struct fpsimd_context *fp = (struct fpsimd_context *)record(mc, FPSIMD_MAGIC);

	s->magic = WT_PSTATE_WORD;
	memcpy(s->x, mc->regs, sizeof s->x);
	s->sp = mc->sp;
	s->pc = mc->pc;
	s->pstate = mc->pstate;
	if (fp) {
		s->fpsr = fp->fpsr;
		s->fpcr = fp->fpcr;
		memcpy(s->v, fp->vregs, sizeof s->v);
	}
	mc->sp = (uintptr_t)s;
	mc->pc = (uintptr_t)fn;
	mc->regs[19] = (uintptr_t)s;
	mc->regs[30] = 0;
	mc->pstate &= ~(unsigned long long)PSTATE_BTYPE;
}

/* Context: a signal handler whose return is to resume the task that saved
 * state (preempt.S: wt_preempt_resume's signal).  The V registers also go
 * into the low 128 bits of the SVE record's Z registers when it carries
 * them, the rest of each Z zeroed, as sigreturn loads Z after V.  Not
 * preserved: the upper bits of the Z registers, the predicates and FFR the
 * interrupted code had (its SVE state beyond the V registers is lost). */
bool wt_arch_uc_resume(ucontext_t *uc, void *state)
{
	struct wt_pstate *s = (struct wt_pstate *)state; /* its magic is cleared */
	mcontext_t *mc = &uc->uc_mcontext;
	if (s->magic != WT_PSTATE_WORD)
		return false;
	memcpy(mc->regs, s->x, sizeof s->x);
	mc->sp = s->sp;
	mc->pc = s->pc;
	mc->pstate = s->pstate;

	struct fpsimd_context *fp = (struct fpsimd_context *)record(mc, FPSIMD_MAGIC);
	if (fp) {
		fp->fpsr = s->fpsr;
		fp->fpcr = s->fpcr;
		memcpy(fp->vregs, s->v, sizeof fp->vregs);
	}
	struct sve_context *sve = (struct sve_context *)record(mc, SVE_MAGIC);
	if (sve && sve->head.size > sizeof *sve) {
		unsigned vq = sve_vq_from_vl(sve->vl);
		for (int n = 0; n < 32; n++) {
			char *z = (char *)sve + SVE_SIG_ZREG_OFFSET(vq, n);
			memcpy(z, &s->v[n], 16); /* little-endian: the same bytes */
			memset(z + 16, 0, SVE_SIG_ZREG_SIZE(vq) - 16);
		}
	}
	s->magic = 0;
	return true;
}

/* Context: a signal handler, on a context wt_arch_uc_in_syscall accepted.
 * Makes the call end with -EINTR, as a handler without SA_RESTART would:
 * a call the kernel was to restart (or not yet entered) is stepped over. */
void wt_arch_uc_syscall_eintr(ucontext_t *uc)
{
	mcontext_t *mc = &uc->uc_mcontext;
	if (*(const uint32_t *)mc->pc == SVC0)
		mc->pc += 4;
	mc->regs[0] = (unsigned long long)-EINTR;
}

/* Context: a signal handler.  The kernel leaves a context interrupted in a
 * blocking call on its `svc #0` when it will restart it (SA_RESTART), or
 * just after it with x0 = -EINTR when it will not.  Reads the instruction
 * at the pc, and the one before it only when it lies on the same page. */
bool wt_arch_uc_in_syscall(const ucontext_t *uc)
{
	const mcontext_t *mc = &uc->uc_mcontext;
	const uint32_t *ip = (const uint32_t *)mc->pc;
	if (*ip == SVC0)
		return true;
	return ((uintptr_t)ip & 4095) >= 4 && ip[-1] == SVC0 && (long)mc->regs[0] == -EINTR;
}

/* glibc's __jmpbuf: x19-x28, x29, x30 (mangled), then sp (JB_SP, 13),
 * mangled as PTR_MANGLE does here: xor with __pointer_chk_guard, a
 * variable of ld.so's (GLIBC_PRIVATE), not a TCB field. */
uintptr_t wt_arch_jmpbuf_sp(const void *env, uintptr_t tp)
{
	static const uintptr_t *guard; /* [relaxed atomic; every finder finds the same] */
	(void)tp;
	const uintptr_t *g = __atomic_load_n(&guard, __ATOMIC_RELAXED);
	if (!g) {
		g = dlsym(RTLD_DEFAULT, "__pointer_chk_guard");
		if (!g)
			return 0;
		__atomic_store_n(&guard, g, __ATOMIC_RELAXED);
	}
	return ((const uintptr_t *)env)[13] ^ *g;
}
