/*
 * limits.c — setrlimit, prlimit and capset: libc's calls, made as libc
 * makes them, then the runtime is told (sched/process/prio.c keeps the limits and
 * the capability its priority checks read until the process changes them).
 */
#include <sys/resource.h>
#include <sys/syscall.h>

#include "shim.h"

static int result(long r)
{
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (int)r;
}

/* glibc's setrlimit and prlimit are the prlimit64 system call. */
static int limit(pid_t pid, int res, const struct rlimit *new, struct rlimit *old)
{
	long r = wt_syscall6(SYS_prlimit64, pid, res, (long)new, (long)old, 0, 0);
	if (new)
		wt_prio_creds_changed();
	return result(r);
}

WT_EXPORT int setrlimit(__rlimit_resource_t res, const struct rlimit *rl)
{
	return limit(0, (int)res, rl, NULL);
}

WT_EXPORT int setrlimit64(__rlimit_resource_t res, const struct rlimit64 *rl)
{
	return limit(0, (int)res, (const struct rlimit *)rl, NULL);
}

WT_EXPORT int prlimit(pid_t pid, __rlimit_resource_t res, const struct rlimit *new,
		      struct rlimit *old)
{
	return limit(pid, (int)res, new, old);
}

WT_EXPORT int prlimit64(pid_t pid, __rlimit_resource_t res, const struct rlimit64 *new,
			struct rlimit64 *old)
{
	return limit(pid, (int)res, (const struct rlimit *)new, (struct rlimit *)old);
}

/* Declared by libcap's <sys/capability.h>, not by libc's headers. */
int capset(void *hdr, const void *data);

WT_EXPORT int capset(void *hdr, const void *data)
{
	long r = wt_syscall6(SYS_capset, (long)hdr, (long)data, 0, 0, 0, 0);
	wt_prio_creds_changed();
	return result(r);
}
