/*
 * cgroup.c — how many CPUs the process may use: the GOMAXPROCS default.
 *
 * As Go 1.25 does on Linux: the CPUs in the affinity mask, lowered by the
 * cgroup v2 CPU limit to ceil(quota / period), never below 2 unless the
 * mask holds fewer CPUs.  The limit is the smallest quota/period of the
 * process's cgroup and each of its ancestors (cpu.max, "max" = none); the
 * root cgroup has no cpu.max.  The process's cgroup is the "0::/path" line
 * of /proc/self/cgroup, found under the cgroup2 mount: /sys/fs/cgroup or
 * /sys/fs/cgroup/unified where the cgroup's directory is there, else the
 * one /proc/self/mountinfo lists (the mount's own root, seen from this
 * cgroup namespace, is cut from the front of the path).  WEFT_CGROUP_ROOT
 * replaces the mount point (tests; unusual mounts); WEFT_NCPU replaces the
 * affinity count (tests on machines with few CPUs).
 *
 * Where it runs: wt_cgroup_init from sysmon once the process has a second
 * task, before sysmon makes a worker for it (wt_cgroup_first; at start
 * only for a bad GOMAXPROCS's message); wt_procs_update from sysmon then
 * and about once a second, unless GOMAXPROCS is set: a
 * changed limit resizes the procs at run time (core/proc.c: wt_procs_resize).
 * Files are read with raw system calls into fixed buffers: no malloc, no
 * errno, no interposed open, and in weft's own descriptor table (io/privfd.c:
 * the helper thread), never the program's.  The paths are written once by
 * wt_cgroup_init and published by cg_ok; a task's sched_setaffinity
 * (affinity.c) reads them too.
 *
 * Not followed: cgroup v1 (cpu.cfs_quota_us), affinity changes after start,
 * a move of the process to another cgroup after start.
 */
#include <fcntl.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#include "core/runtime.h"
#include "affinity.h"
#include "cgroup.h"
#include "core/config.h"
#include "base/print.h"
#include "io/privfd.h"
#include "core/proc.h"
#include "io/readfile.h"

#define PATHMAX 4096

static char cg_dir[PATHMAX] WT_BSS_LARGE;   /* [const after init] the process's cgroup directory */
static size_t cg_rootlen;      /* [const after init] length of the mount point in cg_dir */
static _Atomic bool cg_ok;     /* [atomic] release once cg_dir and cg_rootlen are set */
/* [const after start] WEFT_CGROUP_ROOT, kept for sysmon's lookup */
static char deferred_root[PATHMAX / 2] WT_BSS_LARGE;
static bool looked;            /* [start; sysmon] wt_cgroup_init ran (a fork child keeps it) */
static bool warned;            /* [sysmon; init] a bad cpu.max was reported */

/* Copies a mountinfo path field (octal escapes such as \040 decoded) from
 * s up to the next space into out.  Returns the end of the field. */
static const char *field(const char *s, char *out, size_t n)
{
	size_t k = 0;
	while (*s && *s != ' ' && *s != '\n') {
		char c = *s++;
		if (c == '\\' && s[0] >= '0' && s[0] <= '3' && s[1] >= '0' && s[1] <= '7' &&
		    s[2] >= '0' && s[2] <= '7') {
			c = (char)((s[0] - '0') * 64 + (s[1] - '0') * 8 + (s[2] - '0'));
			s += 3;
		}
		if (k + 1 < n)
			out[k++] = c;
	}
	out[k] = 0;
	return s;
}

static const char *skip_fields(const char *s, int n)
{
	while (n-- > 0) {
		while (*s && *s != ' ' && *s != '\n')
			s++;
		while (*s == ' ')
			s++;
	}
	return s;
}

/* The cgroup2 mount point and its root into mnt/mroot; false if none.
 * mountinfo is read in pieces: it can be longer than any fixed buffer. */
static bool find_mount(char *mnt, char *mroot)
{
	long fd = wt_privfd_syscall(SYS_openat, AT_FDCWD, (long)"/proc/self/mountinfo",
				    O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return false;
	char buf[8192];
	size_t have = 0;
	bool found = false, eof = false;
	while (!found && !eof) {
		long r = wt_privfd_syscall(SYS_read, fd, (long)(buf + have), sizeof buf - 1 - have, 0,
					   0, 0);
		if (r == -4)
			continue;
		if (r <= 0)
			eof = true;
		else
			have += r;
		buf[have] = 0;
		char *line = buf;
		for (char *nl; !found && (nl = strchr(line, '\n')); line = nl + 1) {
			*nl = 0;
			const char *sep = strstr(line, " - ");
			if (sep && !strncmp(sep + 3, "cgroup2 ", 8)) {
				const char *f = skip_fields(line, 3); /* id parent major:minor */
				f = field(f, mroot, PATHMAX);
				field(skip_fields(f, 1), mnt, PATHMAX);
				found = true;
			}
		}
		have -= line - buf;
		memmove(buf, line, have);
		if (have == sizeof buf - 1) /* a line longer than buf: drop it */
			have = 0;
	}
	wt_privfd_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
	return found;
}

/* The "0::/path" line of /proc/self/cgroup into path. */
static bool find_path(char *path)
{
	char buf[8192];
	if (wt_read_file("/proc/self/cgroup", buf, sizeof buf) <= 0)
		return false;
	for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		if (!strncmp(line, "0::", 3)) {
			field(line + 3, path, PATHMAX);
			return path[0] == '/';
		}
	}
	return false;
}

/* The process's cgroup directory from the mount point mnt, the mount's
 * root mroot and the cgroup path: into cg_dir; false if the cgroup is not
 * under that mount or the name is too long. */
static bool set_dir(const char *mnt, const char *mroot, const char *path)
{
	/* The path is relative to the cgroup namespace's root; the mount
	 * shows the tree from mroot down. */
	const char *rel = path;
	size_t rl = strlen(mroot);
	if (strcmp(mroot, "/")) {
		if (strncmp(path, mroot, rl) || (path[rl] != '/' && path[rl] != 0))
			return false; /* our cgroup is not under this mount */
		rel = path + rl;
	}
	size_t ml = strlen(mnt);
	while (ml > 1 && mnt[ml - 1] == '/')
		ml--;
	if (ml + strlen(rel) + 1 >= PATHMAX)
		return false;
	memcpy(cg_dir, mnt, ml);
	strcpy(cg_dir + ml, rel);
	size_t dl = strlen(cg_dir);
	while (dl > ml && cg_dir[dl - 1] == '/')
		cg_dir[--dl] = 0;
	cg_rootlen = ml;
	return true;
}

static bool is_cgroup2(const char *dir)
{
	struct statfs sf;
	return wt_syscall6(SYS_statfs, (long)dir, (long)&sf, 0, 0, 0, 0) == 0 &&
	       sf.f_type == CGROUP2_SUPER_MAGIC;
}

/* The usual cgroup2 mount points: the unified layout's, then the hybrid
 * layout's.  Tried before mountinfo, which the kernel writes out mount by
 * mount with a path walk each (measured: about a tenth of a process's
 * start under weft with 21 mounts).  Such a mount is taken to show the
 * whole tree of this cgroup namespace (root "/"), which holds when the
 * cgroup's own directory is there (for the namespace's root cgroup, the
 * mount point itself); where it is not (a mount of a subtree), mountinfo
 * decides. */
static bool usual_mount(const char *path)
{
	static const char *const dirs[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
		if (is_cgroup2(dirs[i]))
			return set_dir(dirs[i], "/", path) &&
			       (!strcmp(path, "/") || is_cgroup2(cg_dir));
	return false;
}

/* Context: sysmon as it starts (wt_cgroup_first), or the initial thread at
 * start for a bad GOMAXPROCS's message.  root: WEFT_CGROUP_ROOT or NULL. */
void wt_cgroup_init(const char *root)
{
	char mnt[PATHMAX], mroot[PATHMAX], path[PATHMAX];
	looked = true;
	if (!find_path(path))
		return;
	bool ok;
	if (root)
		ok = strlen(root) < PATHMAX / 2 && set_dir(root, "/", path);
	else
		ok = usual_mount(path) || (find_mount(mnt, mroot) && set_dir(mnt, mroot, path));
	atomic_store_explicit(&cg_ok, ok, memory_order_release);
}

/* The lookup costs a process start about 85 µs on one VM measured (the
 * kernel writes /proc/self/cgroup out hierarchy by hierarchy), so start
 * leaves it to sysmon, which makes it once the process has a second task,
 * before it makes any worker: until then only the initial thread runs
 * tasks, whatever the procs count, and a process of one task never pays
 * (nor makes io/privfd.c's thread for it).  Context:
 * start, initial thread. */
void wt_cgroup_defer(const char *root)
{
	if (root && strlen(root) < sizeof deferred_root)
		strcpy(deferred_root, root);
}

/* Context: sysmon, once the process has a second task. */
void wt_cgroup_first(void)
{
	if (wt_cfg.gomaxprocs_set || looked)
		return;
	wt_cgroup_init(deferred_root[0] ? deferred_root : NULL);
	wt_procs_update();
}

/* Parses "max PERIOD" or "QUOTA PERIOD" (a newline may follow).  Returns
 * the limit in whole CPUs rounded up, 0 for none, -1 for anything else. */
long wt_cgroup_parse_max(const char *s)
{
	long long q = -1, per = 0;
	if (!strncmp(s, "max", 3)) {
		s += 3;
	} else {
		if (*s < '0' || *s > '9')
			return -1;
		for (q = 0; *s >= '0' && *s <= '9'; s++)
			if ((q = q * 10 + (*s - '0')) > (1ll << 50))
				return -1;
	}
	if (*s++ != ' ' || *s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++)
		if ((per = per * 10 + (*s - '0')) > (1ll << 50))
			return -1;
	if (*s == '\n')
		s++;
	if (*s || per == 0 || q == 0)
		return -1;
	return q < 0 ? 0 : (long)((q + per - 1) / per);
}

/* The smallest limit of the process's cgroup and its ancestors up to the
 * mount point: CPUs (rounded up), 0 for none, -1 if a cpu.max is garbage
 * (reported once; the limit is then ignored).  Context: start or sysmon. */
long wt_cgroup_limit(void)
{
	if (!atomic_load_explicit(&cg_ok, memory_order_acquire))
		return 0;
	char dir[PATHMAX + 16], buf[128];
	strcpy(dir, cg_dir);
	size_t len = strlen(dir);
	long best = 0;
	for (;;) {
		strcpy(dir + len, "/cpu.max");
		if (wt_read_file(dir, buf, sizeof buf) > 0) {
			long v = wt_cgroup_parse_max(buf);
			if (v < 0) {
				if (!warned) {
					char *nl = strchr(buf, '\n');
					if (nl)
						*nl = 0;
					wt_print("weft: %s: \"%s\" is not \"max PERIOD\" or \"QUOTA PERIOD\"; "
						 "ignoring the cgroup CPU limit\n", dir, buf);
				}
				warned = true;
				return -1;
			}
			if (v > 0 && (best == 0 || v < best))
				best = v;
		}
		dir[len] = 0;
		if (len <= cg_rootlen)
			break;
		while (len > cg_rootlen && dir[len - 1] != '/')
			len--;
		if (len > cg_rootlen)
			len--; /* the slash */
		dir[len] = 0;
	}
	return best;
}

/* GOMAXPROCS from a CPU count and a limit (0 = none): Go 1.25's rule. */
int wt_procs_default(int ncpu, long limit)
{
	if (limit <= 0)
		return ncpu;
	long n = limit < 2 ? 2 : limit;
	return n < ncpu ? (int)n : ncpu;
}

/* Context: sysmon, about once a second.  Follows a changed limit. */
void wt_procs_update(void)
{
	if (wt_cfg.gomaxprocs_set || !atomic_load_explicit(&cg_ok, memory_order_relaxed))
		return;
	int n = wt_procs_default(wt_sched.maxprocs, wt_cgroup_limit());
	int aff = wt_aff_ncpu(); /* the CPUs the tasks' masks allow (affinity.c) */
	if (aff > 0 && aff < n)
		n = aff;
	if (n != atomic_load_explicit(&wt_sched.nprocs, memory_order_relaxed))
		wt_procs_resize(n);
}
