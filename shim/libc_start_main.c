/*
 * libc_start_main.c — main() as a task.
 *
 * The runtime has already made the initial flow of control the main task
 * (sched/start.c, from the constructor).  Wrapping main gives it a cancel
 * buffer of its own, so pthread_exit(), or cancellation, in main unwinds
 * main's frames and lands here, and the main task then exits like any
 * other: the process lives on until the last task exits (glibc's rule),
 * instead of glibc ending the initial OS thread, which is worker 0.
 */
#include <setjmp.h>
#include <stdlib.h>

#include "shim.h"

extern void __pthread_register_cancel(__pthread_unwind_buf_t *);
extern void __pthread_unregister_cancel(__pthread_unwind_buf_t *);

static int (*user_main)(int, char **, char **);

static int main_wrapper(int argc, char **argv, char **envp)
{
	__pthread_unwind_buf_t buf;
	if (!wt_runtime_on() || !wt_cur())
		return user_main(argc, argv, envp);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
	/* As glibc's pthread_cleanup_push: sigsetjmp without the mask writes
	 * only the jump buffer, which __cancel_jmp_buf holds. */
	int jumped = __sigsetjmp((struct __jmp_buf_tag *)(void *)buf.__cancel_jmp_buf, 0);
#pragma GCC diagnostic pop
	if (jumped == 0) {
		__pthread_register_cancel(&buf);
		int r = user_main(argc, argv, envp);
		__pthread_unregister_cancel(&buf);
		return r; /* glibc calls exit(r) */
	}
	wt_task_exit(wt_cur()->retval);
}

WT_EXPORT int __libc_start_main(int (*main)(int, char **, char **), int argc, char **argv,
				void (*init)(void), void (*fini)(void), void (*rtld_fini)(void),
				void *stack_end)
{
	wt_real_init();
	user_main = main;
	return real.libc_start_main(main_wrapper, argc, argv, init, fini, rtld_fini, stack_end);
}
