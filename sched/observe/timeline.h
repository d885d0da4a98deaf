/*
 * timeline.h — WEFTDEBUG=trace=FILE: the scheduler's events, recorded per
 * worker (timeline.c) and written out as a Chrome/Perfetto trace by a
 * writer thread (timeline_write.c).
 */
#ifndef WEFT_TIMELINE_H
#define WEFT_TIMELINE_H

#include "core/runtime.h"

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

/* One event: 40 bytes, written by whoever reserved its slot. */
struct wt_tl_rec {
	int64_t ts;                     /* CLOCK_MONOTONIC ns */
	uint64_t task, arg, arg2;
	uint32_t kind;                  /* enum wt_tl_kind */
	/* [atomic] reservation index + 1 once the record is complete (release;
	 * the writer's acquire load pairs with it). */
	_Atomic uint32_t seq;
};

#define WT_TL_N 65536u                  /* records a buffer holds (2.5 MiB) */

/* A ring of records.  Producers (the worker's own thread: its tasks, its
 * g0, its signal handlers; for the shared buffer any thread) reserve a
 * slot with a CAS on head; the writer alone advances tail.  Full: the
 * event is dropped and counted, the producer never waits. */
struct wt_tlbuf {
	_Atomic uint64_t head;          /* [atomic] next slot to reserve */
	_Atomic uint64_t dropped;       /* [atomic, relaxed] events lost to a full ring */
	char pad1[48];
	_Atomic uint64_t tail;          /* [atomic] writer: slots before it are free */
	int id;                         /* [const; fork child] worker id, -1 = the shared buffer */
	int tid;                        /* [const; fork child] OS thread id of its track */
	struct wt_tlbuf *next;          /* [const after publish] list of all buffers */
	/* [writer] the task whose slice is open on this track, 0 none */
	uint64_t open;
	char pad2[24];
	struct wt_tl_rec rec[WT_TL_N];  /* [seq] */
};

extern bool wt_tl_on;                      /* [const after start] tracing is on */
extern struct wt_tlbuf *_Atomic wt_tl_bufs;/* [atomic: push with CAS, release] */
extern struct wt_tlbuf *wt_tl_shared;      /* [const] sysmon and threads without a buffer */

/* Context for all: any thread, signal handlers included; never blocks or
 * allocates.  Callers test wt_tl_on first (one predictable branch). */
uint64_t wt_tl_put(struct wt_tlbuf *b, uint32_t kind, uint64_t task, uint64_t arg,
		   uint64_t arg2);         /* returns the flow id of the record, 0 dropped */
struct wt_tlbuf *wt_tl_here(void);        /* the calling thread's buffer */
void wt_tl_run(struct wt_m *m, struct wt_task *t);
/* t switches out of m for `why` (enum wt_tl_why); next runs, or g0 (NULL). */
void wt_tl_switch(struct wt_m *m, struct wt_task *t, int why, struct wt_task *next);
void wt_tl_wake(struct wt_m *m, struct wt_task *t);
void wt_tl_event(struct wt_m *m, uint32_t kind, uint64_t task, uint64_t arg, uint64_t arg2);

void wt_tl_start(struct wt_m *m0);         /* core/start.c: before sysmon; m0 runs main */
void wt_tl_worker(struct wt_m *m);         /* a new worker, on its own thread */
void wt_tl_fork_reset(void);               /* fork child, alone: rings emptied */
void wt_tl_fork_child(void);               /* fork child, end of reset: its track, writer */

/* timeline_write.c */
int wt_tl_file_open(const char *path);     /* wt_tl_start: 0 or -1; claims the file */
void wt_tl_file_fork(void);                /* fork child: claims a file at its first write */
void wt_tl_exec(void);                     /* shim/exec.c: written out before exec */
void wt_tl_writer_start(void);             /* the writer thread */
void wt_tl_kick(void);                     /* a ring is half full */
/* Writes out what is recorded (close: and ends the file, after which
 * nothing more is written).  may_load: symbol tables may be read (not in
 * a signal handler).  Waits at most about a second for the writer. */
void wt_tl_flush(bool close, const char *why, bool may_load);

#endif
