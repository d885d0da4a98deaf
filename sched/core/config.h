/*
 * config.h — settings from the environment, read once at start (config.c).
 */
#ifndef WEFT_CONFIG_H
#define WEFT_CONFIG_H

#include <stddef.h>

#include "base/base.h"

enum { WT_SIGQUIT_OFF = 0, WT_SIGQUIT_EXIT = 1, WT_SIGQUIT_CONTINUE = 2 };
/* WEFTDEBUG=deadlock= (observe/deadlock.c): off, on (lock cycles reported), abort
 * (reported, then exit status 134), all (on, and every task asleep). */
enum { WT_DEADLOCK_OFF = 0, WT_DEADLOCK_ON = 1, WT_DEADLOCK_ABORT = 2, WT_DEADLOCK_ALL = 3 };

struct wt_config {
	int gomaxprocs;                 /* at start */
	bool gomaxprocs_set;            /* GOMAXPROCS given: fixed, no cgroup updates */
	int ncpu;                       /* affinity CPUs, or WEFT_NCPU */
	int maxthreads;                 /* WEFT_MAXTHREADS */
	bool maxthreads_fail;           /* WEFT_MAXTHREADS_POLICY=fail */
	int thread_idle_ms;             /* WEFT_THREAD_IDLE_MS, 0 = idle workers stay */
	int schedtrace_ms;
	bool scheddetail;
	size_t stack_size;              /* WEFT_STACK_SIZE, 0 = RLIMIT_STACK */
	size_t stack_max;               /* WEFT_STACK_MAX, 0 = 1 GiB */
	int tls_mode;                   /* WEFT_TLS: WT_TLS_* (stack/tls.h) */
	bool static_tls_full;           /* WEFT_STATIC_TLS=full */
	bool asyncpreemptoff;           /* WEFTDEBUG=asyncpreemptoff=1 */
	int deadlock;                   /* WEFTDEBUG=deadlock=: WT_DEADLOCK_*, default on */
	char trace_path[256];           /* WEFTDEBUG=trace=FILE, "" = off (observe/timeline.c) */
	char cpuprofile_path[256];      /* WEFTDEBUG=cpuprofile=FILE, "" = off (observe/pprof.c) */
	char mutexprofile_path[256];    /* WEFTDEBUG=mutexprofile=FILE, "" = off (observe/pprof.c) */
	char blockprofile_path[256];    /* WEFTDEBUG=blockprofile=FILE, "" = off (observe/pprof.c) */
	int sigquit;                    /* WEFT_SIGQUIT: WT_SIGQUIT_* */
	bool sigquit_set;               /* WEFT_SIGQUIT was given */
	bool libc_locks_park;           /* WEFT_LIBC_LOCKS=park (default) */
	bool secure;                    /* secure-execution mode: nothing read */
};
extern struct wt_config wt_cfg;        /* [const after start] */
void wt_config_read(void);
int wt_ncpu_affinity(void);            /* CPUs in the affinity mask */

#endif
