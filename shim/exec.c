/*
 * exec.c — the exec family: the image about to be replaced writes out its
 * WEFTDEBUG=trace file first (sched/observe/timeline_write.c: wt_tl_exec), so the
 * file ends with its last events and "end":"exec".  Nothing else changes:
 * the call is libc's.  If it fails, the trace goes on in the same file.
 *
 * Every name is interposed: glibc's execv, execvp, execl, ... reach
 * execve inside libc, where no interposition sees them.  The variadic
 * forms gather their arguments into an array on the stack and call
 * execve or execvpe with it, as glibc's do.
 */
#include <stdarg.h>
#include <unistd.h>

#include "shim.h"
#include "observe/timeline.h"

extern char **environ;

WT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	wt_real_init();
	wt_tl_exec();
	return real.execve(path, argv, envp);
}

WT_EXPORT int execv(const char *path, char *const argv[])
{
	wt_real_init();
	wt_tl_exec();
	return real.execve(path, argv, environ);
}

WT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	wt_real_init();
	wt_tl_exec();
	return real.execvpe(file, argv, envp);
}

WT_EXPORT int execvp(const char *file, char *const argv[])
{
	wt_real_init();
	wt_tl_exec();
	return real.execvpe(file, argv, environ);
}

WT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	wt_real_init();
	wt_tl_exec();
	return real.fexecve(fd, argv, envp);
}

WT_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		       int flags)
{
	wt_real_init();
	if (!real.execveat) {
		errno = ENOSYS;
		return -1;
	}
	wt_tl_exec();
	return real.execveat(dirfd, path, argv, envp, flags);
}

/* The arguments after arg0, up to the NULL, counted (and for execle the
 * environment after it). */
#define COUNT_ARGS(arg0, n)                                   \
	do {                                                  \
		va_list ap_;                                  \
		va_start(ap_, arg0);                          \
		for (n = 1; va_arg(ap_, const char *); n++)   \
			;                                     \
		va_end(ap_);                                  \
	} while (0)

/* argv[0..n]: arg0, the rest, the NULL; envp: execle's, after it. */
#define FILL_ARGS(arg0, argv, n, envp)                        \
	do {                                                  \
		va_list ap_;                                  \
		va_start(ap_, arg0);                          \
		argv[0] = (char *)arg0;                       \
		for (size_t i_ = 1; i_ <= n; i_++)            \
			argv[i_] = va_arg(ap_, char *);       \
		if (envp != NULL)                             \
			*(char ***)(envp) = va_arg(ap_, char **); \
		va_end(ap_);                                  \
	} while (0)

WT_EXPORT int execl(const char *path, const char *arg, ...)
{
	size_t n;
	COUNT_ARGS(arg, n);
	char *argv[n + 1];
	FILL_ARGS(arg, argv, n, (void *)NULL);
	return execv(path, argv);
}

WT_EXPORT int execlp(const char *file, const char *arg, ...)
{
	size_t n;
	COUNT_ARGS(arg, n);
	char *argv[n + 1];
	FILL_ARGS(arg, argv, n, (void *)NULL);
	return execvp(file, argv);
}

WT_EXPORT int execle(const char *path, const char *arg, ...)
{
	size_t n;
	COUNT_ARGS(arg, n);
	char *argv[n + 1], **envp;
	FILL_ARGS(arg, argv, n, (void *)&envp);
	return execve(path, argv, envp);
}
