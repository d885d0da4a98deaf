/*
 * libc_start_main.c — main() as a task, on a stack that grows.
 *
 * The runtime has already made the initial flow of control the main task
 * (sched/start.c, from the constructor), on the initial thread's stack.
 * The wrapper around main moves main onto an arena slot (sched/stack.c),
 * like every task's stack: it grows to WEFT_STACK_MAX, so a recursion a
 * million calls deep finishes in main as it does in a thread.  main keeps
 * its TCB (the initial thread's: constructors wrote its TLS; its canary is
 * the one the program's frames already hold).  When main returns, the
 * wrapper returns on the initial stack, where glibc runs exit().
 *
 * The wrapper also gives main a cancel buffer of its own, so pthread_exit(),
 * or cancellation, in main unwinds main's frames and lands here, and the
 * main task then exits like any other: the process lives on until the last
 * task exits (glibc's rule), instead of glibc ending the initial OS thread,
 * which is worker 0.
 *
 * Left as they were: __libc_stack_end (read-only after start) still points
 * into the initial stack, so code that finds main's stack through it
 * (Boehm GC's default, an executable-stack dlopen) sees the old stack;
 * pthread_getattr_np on main reports the new one.
 */
#include <setjmp.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "shim.h"
#include "../sched/stack.h"
#include "../sched/task.h"

extern void __pthread_register_cancel(__pthread_unwind_buf_t *);
extern void __pthread_unregister_cancel(__pthread_unwind_buf_t *);

static int (*user_main)(int, char **, char **);

struct main_args {
	int argc;
	char **argv, **envp;
	int ret;
};

/* On main's slot stack: its first frame, where an unwind stops. */
static void main_on_slot(void *p)
{
	struct main_args *a = p;
	__pthread_unwind_buf_t buf;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
	/* As glibc's pthread_cleanup_push: sigsetjmp without the mask writes
	 * only the jump buffer, which __cancel_jmp_buf holds. */
	int jumped = __sigsetjmp((struct __jmp_buf_tag *)(void *)buf.__cancel_jmp_buf, 0);
#pragma GCC diagnostic pop
	if (jumped == 0) {
		__pthread_register_cancel(&buf);
		a->ret = user_main(a->argc, a->argv, a->envp);
		__pthread_unregister_cancel(&buf);
		return;
	}
	wt_task_exit(wt_cur()->retval);
}

static int main_wrapper(int argc, char **argv, char **envp)
{
	struct wt_task *t = wt_cur();
	if (!wt_runtime_on() || !t || !t->main)
		return user_main(argc, argv, envp);
	struct main_args a = { argc, argv, envp, 0 };
	struct rlimit rl;
	size_t ssz = 8u << 20;
	if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		ssz = rl.rlim_cur;
	if (wt_stack_alloc(t, ssz, 0) != 0) {
		/* No slot (a tiny address space): main stays where it is. */
		main_on_slot(&a);
		return a.ret;
	}
	wt_call_on_stack((void *)WT_ALIGN_DOWN((uintptr_t)t->stack_hi, 16), main_on_slot, &a);
	return a.ret; /* on the initial stack again; glibc calls exit(ret) */
}

WT_EXPORT int __libc_start_main(int (*main)(int, char **, char **), int argc, char **argv,
				void (*init)(void), void (*fini)(void), void (*rtld_fini)(void),
				void *stack_end)
{
	wt_real_init();
	user_main = main;
	return real.libc_start_main(main_wrapper, argc, argv, init, fini, rtld_fini, stack_end);
}
