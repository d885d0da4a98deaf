/*
 * setjmp.c — longjmp, _longjmp, siglongjmp and __longjmp_chk (the name
 * _FORTIFY_SOURCE gives the three): glibc's own, after weft has seen where
 * the jump goes.
 *
 * A signal handler may leave by a longjmp instead of returning; the
 * trampoline that ran it then never learns that it is over
 * (sched/signal/sighandler.c: wt_sig_longjmp ends what it began).  And glibc
 * restores the mask sigsetjmp saved by an internal system call, which
 * weft's pthread_sigmask never sees: the task's mask is set here instead,
 * and glibc jumps with a copy of the buffer that says no mask was saved
 * (the registers and the shadow-stack pointer are the same), so the jump
 * costs the one system call it costs natively.  Without a handler running
 * and without a saved mask, the call goes straight on to glibc's.
 * Jumps glibc makes inside itself (a cancellation's unwinding) are not
 * seen, nor is a C++ exception thrown out of a handler.
 */
#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include "shim.h"
#include "signal/sighandler.h"
#include "signal/sigstack.h"
#include "process/vfork.h"

#undef longjmp
#undef _longjmp
#undef siglongjmp

/* Context: program code on any thread, a handler's included; jumps to env
 * through glibc's jump, which one of the four names. */
__attribute__((noreturn)) static void jump(void (*fn)(struct __jmp_buf_tag *, int),
					   struct __jmp_buf_tag *env, int val)
{
	struct wt_task *t = wt_runtime_on() && !wt_vfork_child() ? wt_cur() : NULL;
	if (t && (t->sigframe || env->__mask_was_saved)) {
		uint64_t mask;
		memcpy(&mask, &env->__saved_mask, sizeof mask);
		wt_sig_longjmp(t, wt_arch_jmpbuf_sp(env->__jmpbuf, t->tp),
			       env->__mask_was_saved ? &mask : NULL);
		if (env->__mask_was_saved) {
			struct __jmp_buf_tag copy = *env;
			copy.__mask_was_saved = 0;
			fn(&copy, val);
			__builtin_unreachable();
		}
	}
	fn(env, val);
	__builtin_unreachable();
}

WT_EXPORT void longjmp(struct __jmp_buf_tag env[1], int val)
{
	wt_real_init();
	jump(real.longjmp, env, val);
}

WT_EXPORT void _longjmp(struct __jmp_buf_tag env[1], int val)
{
	wt_real_init();
	jump(real._longjmp, env, val);
}

WT_EXPORT void siglongjmp(sigjmp_buf env, int val)
{
	wt_real_init();
	jump(real.siglongjmp, env, val);
}

/* glibc's check refuses a jump to a stack pointer below the caller's
 * unless the caller runs on its thread's alternate signal stack and the
 * target lies outside it, which it asks the kernel (sigaltstack).  A
 * task's alternate stack is the task's own (sched/signal/sigstack.c), the
 * kernel's the worker's: a handler on the task's alternate stack (a
 * malloc'ed one, above the task stacks) leaving for its task's stack was
 * refused ("longjmp causes uninitialized stack frame").  So on a task the
 * check is made here, with the task's alternate stack, and the jump is
 * glibc's unchecked one; a jump the check refuses goes to glibc's check,
 * which refuses it as natively. */
WT_EXPORT void __longjmp_chk(struct __jmp_buf_tag env[1], int val)
{
	wt_real_init();
	struct wt_task *t = wt_runtime_on() && !wt_vfork_child() ? wt_cur() : NULL;
	if (t) {
		uintptr_t to = wt_arch_jmpbuf_sp(env->__jmpbuf, t->tp);
		uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
		stack_t alt;
		bool ok = to && (to >= sp ||
				 (wt_sigstack_set(t, NULL, &alt, sp) == 0 &&
				  (alt.ss_flags & SS_ONSTACK) &&
				  (uintptr_t)alt.ss_sp + alt.ss_size - to >= alt.ss_size));
		if (ok)
			jump(real.longjmp, env, val);
	}
	jump(real.longjmp_chk, env, val);
}
