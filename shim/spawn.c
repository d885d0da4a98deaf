/*
 * spawn.c — process creation from tasks.
 *
 * posix_spawn (and popen, which uses it) blocks every signal and clones a
 * child that shares memory and starts with the thread pointer the kernel
 * knows.  In trap mode (sched/stack/tls.c) that is the worker's guard address,
 * and with SIGSEGV blocked the child's first TLS access would kill it.  So
 * these calls run pinned: the kernel-known thread pointer is the task's own
 * for their duration.  system and pclose wait for the child inside libc and
 * run as blocking system calls.  fork: sched/process/fork.c.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>

#include "shim.h"
#include "process/fork.h"
#include "io/netpoll.h"
#include "core/worker.h"

#define PINNED(call)                            \
	({                                      \
		struct wt_pin p_ = wt_tls_pin(); \
		__typeof__(call) pr_ = call;    \
		wt_tls_unpin(p_);               \
		pr_;                            \
	})

WT_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			  const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
	wt_real_init();
	return PINNED(real.posix_spawn(pid, path, fa, at, argv, envp));
}

WT_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			   const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
	wt_real_init();
	return PINNED(real.posix_spawnp(pid, file, fa, at, argv, envp));
}

/* system waits for its child inside libc (an internal waitpid nobody can
 * interpose): the whole call is a blocking system call, so the proc goes to
 * other tasks meanwhile (sched/io/syscall.c).  Pinned inside the bracket: the
 * task does not switch until exitsyscall. */
WT_EXPORT int system(const char *cmd)
{
	wt_real_init();
	return BRACKETED(PINNED(real.system(cmd)));
}

WT_EXPORT FILE *popen(const char *cmd, const char *mode)
{
	wt_real_init();
	return PINNED(real.popen(cmd, mode));
}

/* pclose waits for the child inside libc, as system does. */
WT_EXPORT int pclose(FILE *fp)
{
	wt_real_init();
	int fd = WT_OPAQUE(fp) ? fileno(fp) : -1;
	wt_netpoll_close(fd); /* libc closes it: forget the number first */
	return BRACKETED(real.pclose(fp));
}

/* fork: the child continues with the forking task alone on a fresh runtime
 * (sched/process/fork.c, from the atfork handlers weft registers first); here, once
 * the program's child handlers have run, trap-mode TLS comes back. */
WT_EXPORT pid_t fork(void)
{
	wt_real_init();
	pid_t pid = real.fork();
	if (pid == 0 && wt_runtime_on())
		wt_fork_child_tls();
	return pid;
}

/* pthread_atfork is libc_nonshared's, linked into each program and
 * library, and registers through this: weft's handlers go in first
 * (sched/process/fork.c). */
WT_EXPORT int __register_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void),
				void *dso)
{
	return wt_fork_register(prepare, parent, child, dso);
}

/* _Fork runs no atfork handlers: the same steps, here. */
WT_EXPORT pid_t _Fork(void)
{
	wt_real_init();
	if (!real._Fork) { /* a libc older than _Fork */
		errno = ENOSYS;
		return -1;
	}
	if (!wt_runtime_on())
		return real._Fork();
	wt_spawn_fork_prepare();
	struct wt_pin pin = wt_tls_pin();
	wt_fork_window(true);
	pid_t pid = real._Fork();
	if (pid != 0) {
		wt_tls_unpin(pin);
		wt_spawn_fork_parent();
		wt_fork_window(false);
	} else {
		wt_fork_child_nohandlers();
		wt_fork_child_tls();
	}
	return pid;
}

/* vfork: the kernel's, the child on the parent's memory and the calling
 * task's stack until it execs or exits.  The entry is arch vfork.S, since
 * the child returns through the caller's frame; around the system call it
 * calls sched/process/vfork.c.  An architecture without one has vfork as a fork
 * (POSIX allows it): aarch64, tested only under qemu-user, whose vfork is
 * a fork, which a child that leaves weft's runtime alone cannot survive.
 * export: vfork */
#ifndef WT_ARCH_VFORK
WT_EXPORT pid_t vfork(void)
{
	return fork();
}
#endif
