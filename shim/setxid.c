/*
 * setxid.c — setuid, setgid, seteuid, setegid, setreuid, setregid,
 * setresuid, setresgid, setgroups and initgroups: the change is made on
 * every OS thread of the process (sched/process/setxid.c), where glibc's own way
 * (signalling its threads and waiting) never finishes under weft.
 *
 * Each makes the system call glibc's does, with glibc's argument checks;
 * the results and errno are the system call's.  initgroups is interposed
 * too: glibc's calls its own setgroups directly, past this file.  While
 * weft does not run the program (before it starts, or when it refused to)
 * glibc's functions are called.
 */
#include <grp.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include "shim.h"
#include "process/setxid.h"

static int xid(long nr, long a, long b, long c)
{
	long r = wt_setxid(nr, a, b, c);
	wt_prio_creds_changed(); /* an id change can change capabilities */
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return 0;
}

WT_EXPORT int setuid(uid_t uid)
{
	wt_real_init();
	if (!wt_runtime_on())
		return real.setuid(uid);
	return xid(SYS_setuid, uid, 0, 0);
}

WT_EXPORT int setgid(gid_t gid)
{
	wt_real_init();
	if (!wt_runtime_on())
		return real.setgid(gid);
	return xid(SYS_setgid, gid, 0, 0);
}

/* glibc: seteuid(-1) is EINVAL; the change keeps the real and saved ids. */
WT_EXPORT int seteuid(uid_t uid)
{
	wt_real_init();
	if (!wt_runtime_on())
		return real.seteuid(uid);
	if (uid == (uid_t)-1) {
		errno = EINVAL;
		return -1;
	}
	return xid(SYS_setresuid, -1, uid, -1);
}

WT_EXPORT int setegid(gid_t gid)
{
	wt_real_init();
	if (!wt_runtime_on())
		return real.setegid(gid);
	if (gid == (gid_t)-1) {
		errno = EINVAL;
		return -1;
	}
	return xid(SYS_setresgid, -1, gid, -1);
}

WT_EXPORT int setreuid(uid_t r, uid_t e)
{
	wt_real_init();
	if (!wt_runtime_on())
		return real.setreuid(r, e);
	return xid(SYS_setreuid, (int)r, (int)e, 0);
}

WT_EXPORT int setregid(gid_t r, gid_t e)
{
	wt_real_init();
	if (!wt_runtime_on())
		return real.setregid(r, e);
	return xid(SYS_setregid, (int)r, (int)e, 0);
}

WT_EXPORT int setresuid(uid_t r, uid_t e, uid_t s)
{
	wt_real_init();
	if (!wt_runtime_on())
		return real.setresuid(r, e, s);
	return xid(SYS_setresuid, (int)r, (int)e, (int)s);
}

WT_EXPORT int setresgid(gid_t r, gid_t e, gid_t s)
{
	wt_real_init();
	if (!wt_runtime_on())
		return real.setresgid(r, e, s);
	return xid(SYS_setresgid, (int)r, (int)e, (int)s);
}

WT_EXPORT int setgroups(size_t n, const gid_t *groups)
{
	wt_real_init();
	if (!wt_runtime_on())
		return real.setgroups(n, groups);
	return xid(SYS_setgroups, (long)n, (long)groups, 0);
}

/* As glibc's: the user's groups from the group database, at most
 * NGROUPS_MAX of them, then as many as the kernel takes. */
WT_EXPORT int initgroups(const char *user, gid_t group)
{
	wt_real_init();
	if (!wt_runtime_on())
		return real.initgroups(user, group);
	long limit = sysconf(_SC_NGROUPS_MAX);
	int n = limit > 0 && limit < 64 ? (int)limit : 64;
	gid_t *g = malloc(n * sizeof *g);
	if (!g)
		return -1;
	int want = n;
	while (getgrouplist(user, group, g, &want) < 0) {
		if (want <= n)
			want = n * 2;
		gid_t *more = realloc(g, want * sizeof *g);
		if (!more) {
			free(g);
			return -1;
		}
		g = more;
		n = want;
	}
	if (limit > 0 && want > limit)
		want = (int)limit;
	int r;
	do
		r = xid(SYS_setgroups, want, (long)g, 0);
	while (r == -1 && errno == EINVAL && --want > 0);
	int e = errno;
	free(g);
	errno = e;
	return r;
}
