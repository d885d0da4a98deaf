/*
 * hooks.h — what the runtime below observe/ calls in it: the timeline's
 * recording calls, the task dump's and the profiles' requests and
 * starts, sysmon's looks for deadlocks and its schedtrace line, and the
 * crash report's backtrace and names.
 *
 * observe/ sits above everything else in sched/ (sched/README.md: a
 * folder under it never includes one of its headers).  The calls the
 * layers under it make into it are declared here, in the lower layer,
 * and defined in observe/ (whose headers include this one, so that a
 * definition that strays from its declaration does not compile).  They
 * are plain calls to declared functions, as they were: no pointer is
 * registered, nothing is added on the switch, park or spawn paths.
 */
#ifndef WEFT_HOOKS_H
#define WEFT_HOOKS_H

#include <signal.h>
#include <ucontext.h>

#include "base/base.h"
#include "timer.h"

struct wt_m;
struct wt_task;
struct wt_tlbuf;

/* ---- The timeline (observe/timeline.c, observe/timeline_write.c):
 * WEFTDEBUG=trace=FILE. */

/* What a record says.  task is a task id; arg and arg2 as listed. */
enum wt_tl_kind {
	WT_TL_RUN = 1,   /* task starts on this worker: arg start function (0 = main),
			  * arg2 the flow id of the wake that readied it (0 none) */
	WT_TL_STOP,      /* task switches out: arg its wait reason (a static string,
			  * 0 none), arg2 enum wt_tl_why | (descriptor + 1) << 8 */
	WT_TL_WAKE,      /* task made runnable: arg the waker's task id (0 none),
			  * arg2 this wake's flow id (wt_tl_put fills it in) */
	WT_TL_CREATE,    /* task created: arg start function, arg2 the creator's id */
	WT_TL_EXIT,      /* task exits */
	WT_TL_STEAL,     /* task stolen: arg the victim proc, arg2 the thief proc */
	WT_TL_PREEMPT,   /* sysmon asks that task be preempted: arg its worker */
	WT_TL_RETAKE,    /* sysmon took proc arg from worker arg2, blocked in a
			  * system call running task */
	WT_TL_HANDOFF,   /* proc arg handed to worker arg2 (~0 = a new worker) */
	WT_TL_LOSTPROC,  /* task back from a system call found its proc taken */
};
enum wt_tl_why { WT_TL_PARK = 0, WT_TL_YIELD = 1, WT_TL_PREEMPTED = 2, WT_TL_OTHER = 3 };

extern bool wt_tl_on;                      /* [const after start] tracing is on */
extern struct wt_tlbuf *wt_tl_shared;      /* [const] sysmon and threads without a buffer */

/* Context for all: any thread, signal handlers included; never blocks or
 * allocates.  Callers test wt_tl_on first (one predictable branch). */
uint64_t wt_tl_put(struct wt_tlbuf *b, uint32_t kind, uint64_t task, uint64_t arg,
		   uint64_t arg2);         /* returns the flow id of the record, 0 dropped */
void wt_tl_run(struct wt_m *m, struct wt_task *t);
/* t switches out of m for `why` (enum wt_tl_why); next runs, or g0 (NULL). */
void wt_tl_switch(struct wt_m *m, struct wt_task *t, int why, struct wt_task *next);
void wt_tl_wake(struct wt_m *m, struct wt_task *t);
void wt_tl_event(struct wt_m *m, uint32_t kind, uint64_t task, uint64_t arg, uint64_t arg2);

void wt_tl_start(struct wt_m *m0);         /* core/start.c: before sysmon; m0 runs main */
void wt_tl_worker(struct wt_m *m);         /* a new worker, on its own thread */
void wt_tl_fork_reset(void);               /* fork child, alone: rings emptied */
void wt_tl_fork_child(void);               /* fork child, end of reset: its track, writer */
/* Writes out what is recorded (close: and ends the file, after which
 * nothing more is written).  may_load: symbol tables may be read (not in
 * a signal handler).  Waits at most about a second for the writer. */
void wt_tl_flush(bool close, const char *why, bool may_load);

/* ---- The task dump (observe/dump.c): SIGQUIT's, and weft stack's. */

enum { WT_DUMP_QUIT = 1, WT_DUMP_STACK = 2 };
extern _Atomic int wt_dump_req;            /* [atomic] WT_DUMP_* asked; sysmon reads */
void wt_dump_init(void);                   /* start, after sysmon */
void wt_dump_start(void);                  /* sysmon: start the dumper thread */
bool wt_dump_signal(const siginfo_t *si); /* SIGURG handler: weft stack's request? */
bool wt_dump_fault(void);                  /* signal/crash.c: a fault in the dumper's walk */
void wt_dump_hide(struct sigaction *old);  /* sigaction: weft's handler reads as SIG_DFL */
void wt_dump_fork_reset(void);

/* ---- The CPU profile (observe/pprof.c): WEFTDEBUG=cpuprofile=FILE. */

extern bool wt_prof_on;                    /* [const after start] profiling */
void wt_prof_start(struct wt_m *m0);       /* core/start.c: before sysmon; m0 runs main */
void wt_prof_worker(struct wt_m *m);       /* a new worker, on its own thread */
bool wt_prof_signal(const siginfo_t *si, void *uc); /* SIGURG handler: a tick or a request? */
bool wt_prof_req(void);                    /* sysmon: a request waits */
void wt_prof_poll(void);                   /* sysmon: starts its profiler thread */

/* ---- The block profile (observe/pprof.c): WEFTDEBUG=blockprofile=FILE
 * and weft profile --block: waits of the tasks (parks, blocking system
 * calls), sampled, by stack. */

extern _Atomic bool wt_bprof_on;           /* [atomic] sampling */
static inline int64_t wt_bprof_begin(void) /* 0, or the wait's start (ns) */
{
	return unlikely(atomic_load_explicit(&wt_bprof_on, memory_order_relaxed)) ? wt_nanotime() : 0;
}
void wt_bprof_waited(int64_t t0);          /* the task waited since t0 */

/* ---- sysmon's looks (observe/deadlock.c, observe/trace.c). */

/* Context: sysmon, every cycle; returns at once until the next look is due
 * (about twice a second), and always with deadlock=off. */
void wt_deadlock_look(int64_t now);
void wt_deadlock_fork_reset(void);
void wt_sched_trace(int64_t now);          /* WEFTDEBUG=schedtrace's line */

/* ---- The crash report (signal/crash.c): names (observe/symbol.c) and
 * the backtrace of a signal context (observe/unwind.c). */

struct wt_sym {
	const char *name;               /* NULL = unknown */
	uintptr_t off;                  /* pc - start of name */
	const char *file;               /* object's path, NULL = unknown */
	uintptr_t fbase;                /* object's load address */
};
/* Names pc (a return address when ret, looked up as pc - 1).  may_load:
 * read an object's symbol table now if it is not yet (libelf, which
 * allocates: never in a signal handler); else only tables read before and
 * dladdr.  Context: any thread. */
void wt_symbolize(uintptr_t pc, bool ret, struct wt_sym *s, bool may_load);
/* The backtrace from uc on fd 2, one line a frame, names and file:line
 * where known.  Context: the dying process's report (loads libunwind,
 * libelf, libdw). */
void wt_backtrace_ctx(ucontext_t *uc);

#endif
