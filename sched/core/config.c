/*
 * config.c — settings, read once at start from the environment.
 *
 *   GOMAXPROCS        procs (OS threads running task code at once).
 *                     Default: CPUs in the affinity mask, lowered by the
 *                     cgroup v2 CPU limit (process/cgroup.c), followed at run time.
 *   WEFT_MAXTHREADS   cap on weft's OS threads (workers, sysmon, the
 *                     initial thread), as Go's SetMaxThreads.  Default 10000.
 *   WEFT_MAXTHREADS_POLICY  wait (a proc waits for a worker to come back
 *                     from its system call) or fail (abort).  Default wait.
 *   WEFT_THREAD_IDLE_MS  how long a worker beyond GOMAXPROCS stays idle
 *                     before its OS thread exits (worker.c); 0: never.
 *                     Default 1000, the idle time of glibc's own helper
 *                     threads for POSIX AIO.
 *   WEFT_CGROUP_ROOT  the cgroup2 mount point (tests, unusual mounts).
 *   WEFT_NCPU         the CPU count to assume instead of the affinity mask's
 *                     (tests; sizes the procs array).
 *   WEFTDEBUG         comma-separated key=value: schedtrace=MS, scheddetail=1,
 *                     asyncpreemptoff=1 (no preemption by signal: a task
 *                     yields only when it enters weft; as Go's GODEBUG key),
 *                     trace=FILE (a Perfetto timeline of the scheduler,
 *                     observe/timeline.c; FILE has no comma, %p in it is the
 *                     process id), deadlock=off|on|abort|all (observe/deadlock.c:
 *                     lock cycles reported on stderr, the default; abort
 *                     exits with status 134 after the report; all also
 *                     reports every task asleep with nothing to wake it;
 *                     default deadlock=on, off in secure-execution mode),
 *                     cpuprofile=FILE (a CPU profile of the tasks in
 *                     pprof's format, written at exit; observe/pprof.c),
 *                     mutexprofile=FILE (contended mutex waits, the same),
 *                     blockprofile=FILE (where tasks waited, the same).
 *   WEFT_STACK_SIZE   default task stack in bytes (suffix k/m/g allowed).
 *                     Default: RLIMIT_STACK (as glibc), 8 MiB if unlimited.
 *   WEFT_STACK_MAX    most a task's stack may grow to (suffix k/m/g), never
 *                     less than its native size.  Default: 1 GiB, as Go.
 *   WEFT_TLS          auto | wrfsbase | trap | syscall (sched/stack/tls.c).
 *   WEFT_STATIC_TLS   compact | full (sched/stack/tls_static.c): static TLS kept
 *                     under each task.  Default compact: the TLS in use plus
 *                     512 bytes for later dlopens, one page per parked task.
 *   WEFT_SIGQUIT      dump-exit | dump-continue | off (sched/observe/dump.c): what
 *                     SIGQUIT does while the program has no handler for it.
 *                     Default dump-exit, as Go; off in secure-execution mode
 *                     (a dump shows addresses a setuid program keeps hidden)
 *                     and, unless set, where SIGQUIT came in ignored.
 *   WEFT_START        eager: the runtime starts in libweft's constructor;
 *                     otherwise (lazy, the default) at the program's first
 *                     need of it, its second thread (sched/core/start.c reads
 *                     it, in the constructor, before the rest).  WEFTDEBUG
 *                     set also starts it in the constructor.
 *   WEFT_LIBC_LOCKS   park | kernel (sched/core/lowlock.c): whether a task that
 *                     waits for one of glibc's internal locks (malloc's,
 *                     stdio's) parks, the default, or sleeps in the kernel
 *                     holding its worker, as before.
 *
 * A bad value prints one "weft: ..." line and keeps the default.  In
 * secure-execution mode (setuid/setgid, AT_SECURE) nothing is read.
 */

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>

#include "arch.h"
#include "process/cgroup.h"
#include "config.h"
#include "base/print.h"
#include "stack/tls.h"

struct wt_config wt_cfg = { .tls_mode = WT_TLS_AUTO, .maxthreads = 10000, .thread_idle_ms = 1000, .sigquit = WT_SIGQUIT_EXIT,
				.libc_locks_park = true,
				.deadlock = WT_DEADLOCK_ON };

int wt_ncpu_affinity(void)
{
	cpu_set_t set;
	/* The raw call (errno untouched) fills the kernel's mask size only. */
	CPU_ZERO(&set);
	if (wt_syscall6(SYS_sched_getaffinity, 0, sizeof set, (long)&set, 0, 0, 0) < 0)
		return 1;
	int n = CPU_COUNT(&set);
	return n > 0 ? n : 1;
}

/* Parses a decimal number with an optional k/m/g suffix.  -1 on error. */
static long long parse_num(const char *s, bool suffix)
{
	if (!s || !*s)
		return -1;
	long long v = 0;
	const char *p = s;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (*p - '0');
		if (v > (1ll << 50))
			return -1;
		p++;
	}
	if (p == s)
		return -1;
	if (suffix && *p) {
		int sh = *p == 'k' || *p == 'K' ? 10 : *p == 'm' || *p == 'M' ? 20
				: *p == 'g' || *p == 'G' ? 30 : -1;
		if (sh < 0)
			return -1;
		v <<= sh;
		p++;
	}
	return *p ? -1 : v;
}

static void parse_debug(const char *s)
{
	char buf[256];
	size_t n = strlen(s);
	if (n >= sizeof buf) {
		wt_print("weft: WEFTDEBUG is too long; ignored\n");
		return;
	}
	memcpy(buf, s, n + 1);
	for (char *tok = buf, *next; tok && *tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = 0;
		char *eq = strchr(tok, '=');
		if (!eq) {
			wt_print("weft: WEFTDEBUG: '%s' is not key=value; ignored\n", tok);
			continue;
		}
		*eq = 0;
		if (!strcmp(tok, "trace")) {
			if (!eq[1])
				wt_print("weft: WEFTDEBUG: trace= names no file; ignored\n");
			else
				memcpy(wt_cfg.trace_path, eq + 1, strlen(eq + 1) + 1);
			continue;
		}
		if (!strcmp(tok, "deadlock")) {
			static const char *const names[] = { "off", "on", "abort", "all" };
			int k = 0;
			while (k < 4 && strcmp(eq + 1, names[k]))
				k++;
			if (k == 4)
				wt_print("weft: WEFTDEBUG: deadlock=%s is not off, on, abort or all; "
					 "ignored\n", eq + 1);
			else
				wt_cfg.deadlock = k;
			continue;
		}
		if (!strcmp(tok, "cpuprofile") || !strcmp(tok, "mutexprofile") ||
		    !strcmp(tok, "blockprofile")) {
			if (!eq[1])
				wt_print("weft: WEFTDEBUG: %s= names no file; ignored\n", tok);
			else
				memcpy(tok[0] == 'c'   ? wt_cfg.cpuprofile_path
				       : tok[0] == 'm' ? wt_cfg.mutexprofile_path
						       : wt_cfg.blockprofile_path,
				       eq + 1, strlen(eq + 1) + 1);
			continue;
		}
		long long v = parse_num(eq + 1, false);
		if (!strcmp(tok, "schedtrace")) {
			if (v < 0 || v > 3600000)
				wt_print("weft: WEFTDEBUG: schedtrace=%s is not a number of ms; ignored\n",
					 eq + 1);
			else
				wt_cfg.schedtrace_ms = (int)v;
		} else if (!strcmp(tok, "scheddetail")) {
			if (v < 0)
				wt_print("weft: WEFTDEBUG: scheddetail=%s is not 0 or 1; ignored\n",
					 eq + 1);
			else
				wt_cfg.scheddetail = v != 0;
		} else if (!strcmp(tok, "asyncpreemptoff")) {
			if (v < 0 || v > 1)
				wt_print("weft: WEFTDEBUG: asyncpreemptoff=%s is not 0 or 1; ignored\n",
					 eq + 1);
			else
				wt_cfg.asyncpreemptoff = v != 0;
		} else {
			wt_print("weft: WEFTDEBUG: unknown key '%s'; ignored\n", tok);
		}
	}
}

void wt_config_read(void)
{
	int ncpu = wt_ncpu_affinity();
	wt_cfg.ncpu = ncpu;
	wt_cfg.gomaxprocs = ncpu;
	if (getauxval(AT_SECURE)) {
		wt_cfg.secure = true;
		wt_cgroup_defer(NULL);
		wt_cfg.sigquit = WT_SIGQUIT_OFF;
		wt_cfg.deadlock = WT_DEADLOCK_OFF; /* a report shows addresses too */
		return;
	}
	const char *s = getenv("WEFT_NCPU");
	if (s && *s) {
		long long v = parse_num(s, false);
		if (v < 1 || v > 1024)
			wt_print("weft: WEFT_NCPU=%s is not a number from 1 to 1024; using %d\n", s, ncpu);
		else
			wt_cfg.ncpu = ncpu = (int)v;
	}
	const char *root = getenv("WEFT_CGROUP_ROOT");
	if (root && *root != '/') {
		if (*root)
			wt_print("weft: WEFT_CGROUP_ROOT=%s is not an absolute path; ignored\n", root);
		root = NULL;
	}
	/* Unset, GOMAXPROCS is the CPU count until sysmon, as it starts,
	 * lowers it to the cgroup limit (process/cgroup.c: wt_cgroup_defer); set, it
	 * makes the lookup needless.  A bad value's message names the default,
	 * so that one is looked up now. */
	s = getenv("GOMAXPROCS");
	long long want = s && *s ? parse_num(s, false) : 0;
	if (want >= 1 && want <= 1024) {
		wt_cfg.gomaxprocs = (int)want;
		wt_cfg.gomaxprocs_set = true;
	} else if (s && *s) {
		wt_cgroup_init(root);
		wt_cfg.gomaxprocs = wt_procs_default(ncpu, wt_cgroup_limit());
		wt_print("weft: GOMAXPROCS=%s is not a number from 1 to 1024; using %d\n", s,
			 wt_cfg.gomaxprocs);
	} else {
		wt_cfg.gomaxprocs = ncpu; /* WEFT_NCPU's, if set */
		wt_cgroup_defer(root);
	}
	if ((s = getenv("WEFT_MAXTHREADS")) && *s) {
		long long v = parse_num(s, false);
		if (v < 2 || v > 10000000)
			wt_print("weft: WEFT_MAXTHREADS=%s is not a number from 2 to 10000000; "
				 "using %d\n", s, wt_cfg.maxthreads);
		else
			wt_cfg.maxthreads = (int)v;
	}
	if ((s = getenv("WEFT_THREAD_IDLE_MS")) && *s) {
		long long v = parse_num(s, false);
		if (v < 0 || v > 86400000)
			wt_print("weft: WEFT_THREAD_IDLE_MS=%s is not a number of ms from 0 to "
				 "86400000; using %d\n", s, wt_cfg.thread_idle_ms);
		else
			wt_cfg.thread_idle_ms = (int)v;
	}
	if ((s = getenv("WEFT_MAXTHREADS_POLICY")) && *s) {
		if (!strcmp(s, "fail"))
			wt_cfg.maxthreads_fail = true;
		else if (strcmp(s, "wait"))
			wt_print("weft: WEFT_MAXTHREADS_POLICY=%s is not wait or fail; using wait\n", s);
	}
	if ((s = getenv("WEFTDEBUG")) && *s)
		parse_debug(s);
	if ((s = getenv("WEFT_STACK_SIZE")) && *s) {
		long long v = parse_num(s, true);
		if (v < 16384 || v > (1ll << 36))
			wt_print("weft: WEFT_STACK_SIZE=%s is not a size from 16k to 64g; "
				 "using RLIMIT_STACK\n", s);
		else
			wt_cfg.stack_size = (size_t)v;
	}
	if ((s = getenv("WEFT_STACK_MAX")) && *s) {
		long long v = parse_num(s, true);
		if (v < 65536 || v > (1ll << 36))
			wt_print("weft: WEFT_STACK_MAX=%s is not a size from 64k to 64g; using 1g\n", s);
		else
			wt_cfg.stack_max = (size_t)v;
	}
	if ((s = getenv("WEFT_TLS")) && *s) {
		if (!strcmp(s, "auto"))
			wt_cfg.tls_mode = WT_TLS_AUTO;
		else if (!strcmp(s, "wrfsbase"))
			wt_cfg.tls_mode = WT_TLS_WRFSBASE;
		else if (!strcmp(s, "syscall"))
			wt_cfg.tls_mode = WT_TLS_SYSCALL;
		else if (!strcmp(s, "trap"))
			wt_cfg.tls_mode = WT_TLS_TRAP;
		else
			wt_print("weft: WEFT_TLS=%s is not auto, wrfsbase, trap or syscall; using auto\n",
				 s);
	}
	if ((s = getenv("WEFT_STATIC_TLS")) && *s) {
		if (!strcmp(s, "full"))
			wt_cfg.static_tls_full = true;
		else if (strcmp(s, "compact"))
			wt_print("weft: WEFT_STATIC_TLS=%s is not compact or full; using compact\n", s);
	}
	if ((s = getenv("WEFT_SIGQUIT")) && *s) {
		if (!strcmp(s, "dump-exit"))
			wt_cfg.sigquit = WT_SIGQUIT_EXIT;
		else if (!strcmp(s, "dump-continue"))
			wt_cfg.sigquit = WT_SIGQUIT_CONTINUE;
		else if (!strcmp(s, "off"))
			wt_cfg.sigquit = WT_SIGQUIT_OFF;
		else
			wt_print("weft: WEFT_SIGQUIT=%s is not dump-exit, dump-continue or off; "
				 "using dump-exit\n", s);
		wt_cfg.sigquit_set = true;
	}
	if ((s = getenv("WEFT_LIBC_LOCKS")) && *s) {
		if (!strcmp(s, "kernel"))
			wt_cfg.libc_locks_park = false;
		else if (strcmp(s, "park"))
			wt_print("weft: WEFT_LIBC_LOCKS=%s is not park or kernel; using park\n", s);
	}
}
