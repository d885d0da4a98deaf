/*
 * libc_start_main.c — main() as a task, on a stack that grows.
 *
 * glibc's start code calls main through __libc_start_main: weft's passes
 * glibc a wrapper in its place, which has the runtime run main as the main
 * task (sched/core/task.c: wt_task_run_main moves it onto an arena slot and
 * gives it a first frame that pthread_exit in main unwinds to).
 */
#include "shim.h"
#include "core/task.h"

static WT_DORMANT_DATA int (*user_main)(int, char **, char **);

WT_DORMANT_TEXT static int main_wrapper(int argc, char **argv, char **envp)
{
	return wt_task_run_main(user_main, argc, argv, envp);
}

WT_DORMANT_TEXT WT_EXPORT int __libc_start_main(int (*main)(int, char **, char **), int argc, char **argv,
				void (*init)(void), void (*fini)(void), void (*rtld_fini)(void),
				void *stack_end)
{
	__typeof__(real.libc_start_main) start = wt_real_libc_start_main();
	user_main = main;
	return start(main_wrapper, argc, argv, init, fini, rtld_fini, stack_end);
}
