/*
 * spawn.c — process creation from tasks, safe with trap-mode TLS.
 *
 * posix_spawn (and system and popen, which use it) blocks every signal and
 * clones a child that shares memory and starts with the thread pointer the
 * kernel knows.  In trap mode (sched/tls.c) that is the worker's guard
 * address, and with SIGSEGV blocked the child's first TLS access would kill
 * it.  So these calls run pinned: the kernel-known thread pointer is the
 * task's own for their duration.  They block the worker while the child
 * runs (system waits for it); issue 3 hands the proc off meanwhile.
 */
#include <dlfcn.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>

#include "shim.h"

#define PINNED(call)                            \
	({                                      \
		struct wt_pin p_ = wt_tls_pin(); \
		__typeof__(call) r_ = call;     \
		wt_tls_unpin(p_);               \
		r_;                             \
	})

static void *next(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	if (!p)
		wt_throw("libc lacks a process-creation function weft wraps");
	return p;
}

WT_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			  const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
	static int (*f)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[], char *const[]);
	if (!f)
		f = next("posix_spawn");
	return PINNED(f(pid, path, fa, at, argv, envp));
}

WT_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			   const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
	static int (*f)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[], char *const[]);
	if (!f)
		f = next("posix_spawnp");
	return PINNED(f(pid, file, fa, at, argv, envp));
}

WT_EXPORT int system(const char *cmd)
{
	static int (*f)(const char *);
	if (!f)
		f = next("system");
	return PINNED(f(cmd));
}

WT_EXPORT FILE *popen(const char *cmd, const char *mode)
{
	static FILE *(*f)(const char *, const char *);
	if (!f)
		f = next("popen");
	return PINNED(f(cmd, mode));
}

/* fork: the child starts with the thread pointer the kernel knows.  Pinned,
 * that is the forking task's own TCB, so the child never depends on trap
 * repairs (a child that blocks SIGSEGV, as shells do around fork, would die
 * of one).  The child is single-threaded: it switches its thread pointer by
 * system call from then on.  (A fresh runtime in the child is issue 3.) */
WT_EXPORT pid_t fork(void)
{
	static pid_t (*f)(void);
	if (!f)
		f = next("fork");
	struct wt_pin pin = wt_tls_pin();
	pid_t pid = f();
	if (pid != 0) {
		wt_tls_unpin(pin);
	} else {
		wt_netpoll_after_fork();
		if (pin.guard) {
			wt_tls_trap = false;
			wt_tls_mode = 1;
		}
	}
	return pid;
}

/* vfork may be a fork (POSIX); weft's is, so the child gets the pinning
 * above instead of running on the parent's memory with a guard base. */
WT_EXPORT pid_t vfork(void)
{
	return fork();
}
