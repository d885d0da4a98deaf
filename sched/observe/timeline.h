/*
 * timeline.h — WEFTDEBUG=trace=FILE: the scheduler's events, recorded per
 * worker (timeline.c) and written out as a Chrome/Perfetto trace by a
 * writer thread (timeline_write.c).
 */
#ifndef WEFT_TIMELINE_H
#define WEFT_TIMELINE_H

#include "core/hooks.h"
#include "core/runtime.h"

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

extern struct wt_tlbuf *_Atomic wt_tl_bufs;/* [atomic: push with CAS, release] */

/* The kinds, wt_tl_on, wt_tl_shared and the recording calls the runtime
 * makes: core/hooks.h.  Context: any thread, signal handlers included;
 * never blocks or allocates. */
struct wt_tlbuf *wt_tl_here(void);        /* the calling thread's buffer */

/* timeline_write.c */
int wt_tl_file_open(const char *path);     /* wt_tl_start: 0 or -1; claims the file */
void wt_tl_file_fork(void);                /* fork child: claims a file at its first write */
void wt_tl_exec(void);                     /* shim/exec.c: written out before exec */
void wt_tl_writer_start(void);             /* the writer thread */
void wt_tl_kick(void);                     /* a ring is half full */
/* wt_tl_flush: core/hooks.h. */

#endif
