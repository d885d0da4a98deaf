/*
 * timeline_write.c — WEFTDEBUG=trace=FILE: the writer.  Turns the records
 * of every ring (timeline.c) into the Trace Event Format that
 * ui.perfetto.dev and chrome://tracing open:
 *
 *   {"traceEvents":[
 *   {"ph":"B","pid":P,"tid":T,"ts":12.345,"name":"G7 worker","cat":"task",
 *    "args":{"g":7,"fn":"worker"}},        a task's slice on a worker's track
 *   {"ph":"E",...},                         ... ends
 *   {"ph":"i","s":"t","name":"park",...,"args":{"g":7,"reason":"pthread_cond_wait"}},
 *   {"ph":"s","id":F,"cat":"wake",...,"args":{"g":9,"by":7}},  wake: the arrow
 *   {"ph":"f","bp":"e","id":F,...},         starts in the waker's slice and
 *                                           ends in the woken task's next one
 *   {"ph":"C","name":"runqueue","args":{"global":0,"P0":3,"P1":0}},
 *   ...
 *   {"ph":"M","name":"thread_name",...}],   one track per worker
 *   "displayTimeUnit":"ns","otherData":{"dropped":0,"end":"exit",...}}
 *
 * One track per worker (tid = its OS thread id), one shared by sysmon and
 * threads weft did not create.  Timestamps are µs since the runtime
 * started, with ns decimals.  Start functions are named here, once each
 * (symbol.c; a small cache of names by address), never when recording.
 *
 * Who writes: a thread of weft's own (it holds no proc and blocks every
 * signal), every 10 ms or when a ring is half full (wt_tl_kick); then,
 * once, whoever ends the trace: libweft's destructor at exit, the SIGQUIT
 * dumper, the crash report.  wlock orders them; the final writer waits
 * for it at most a second (the writer thread might have crashed holding
 * it) and then gives up.  The file is opened by its absolute path for
 * each write and closed again, so a program that closes every descriptor
 * (a daemon) or changes directory does not end the trace.
 *
 * Not captured: events after the file is ended; a process killed by a
 * signal with no handler (SIGKILL, SIGTERM) or ended by _exit leaves the
 * file without its last lines (tools/trace.py reads such a file).
 */
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "runtime.h"
#include "config.h"
#include "lock.h"
#include "print.h"
#include "runq.h"
#include "sigtask.h"
#include "slab.h"
#include "symbol.h"
#include "timeline.h"
#include "timer.h"
#include "worker.h"

#define NAMES 1024                      /* start functions named, cache slots */
#define PERIOD_NS 10000000ll            /* the writer's tick: 10 ms */

struct name_ent {
	uintptr_t pc;                   /* 0 = empty */
	char name[88];                  /* JSON-escaped */
};

static wt_lock_t wlock = WT_LOCK_INIT(WT_RANK_TIMELINE);
static char path[4096];                 /* [const] absolute path of the file */
static char exe[128];                   /* [const] the program's name, escaped */
static int pid;                         /* [const] */
static int64_t t0;                      /* [const] mono ns of ts 0 */
static bool closed;                     /* [wlock] the file is ended */
static struct name_ent *names;          /* [wlock] NAMES slots, mapped */
static char obuf[65536];                /* [wlock] */
static _Atomic int kick;                /* [atomic] futex word: write now */

/* Copies s into d (n bytes) as the inside of a JSON string. */
static void escape(char *d, size_t n, const char *s)
{
	size_t j = 0;
	for (; *s && j + 3 < n; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			d[j++] = '\\';
		d[j++] = c < 0x20 ? '?' : (char)c;
	}
	d[j] = 0;
}

/* FILE, with each "%p" replaced by the process id (programs that run
 * others under weft, with the same setting, each get a file), made
 * absolute. */
int wt_tl_file_open(const char *p)
{
	size_t n = 0;
	pid = (int)wt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	char name[512];
	size_t k = 0;
	for (const char *s = p; *s && k + 12 < sizeof name; s++) {
		if (s[0] == '%' && s[1] == 'p') {
			k += (size_t)wt_snprintf(name + k, sizeof name - k, "%d", pid);
			s++;
		} else {
			name[k++] = *s;
		}
	}
	name[k] = 0;
	p = name;
	if (p[0] != '/') {
		long r = wt_syscall6(SYS_getcwd, (long)path, sizeof path, 0, 0, 0, 0);
		if (r < 0)
			goto bad;
		n = strlen(path);
		if (n + 1 < sizeof path && path[n - 1] != '/')
			path[n++] = '/';
	}
	if (n + strlen(p) + 1 > sizeof path)
		goto bad;
	memcpy(path + n, p, strlen(p) + 1);
	long fd = wt_syscall6(SYS_openat, AT_FDCWD, (long)path,
			      O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644, 0, 0);
	if (fd < 0)
		goto bad;
	static const char head[] = "{\"traceEvents\":[\n";
	wt_syscall6(SYS_write, fd, (long)head, sizeof head - 1, 0, 0, 0);
	wt_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	names = wt_mmap_anon(sizeof *names * NAMES);
	if (!names)
		goto bad;
	char link[256];
	long ln = wt_syscall6(SYS_readlinkat, AT_FDCWD, (long)"/proc/self/exe", (long)link,
			      sizeof link - 1, 0, 0);
	link[ln > 0 ? ln : 0] = 0;
	const char *base = strrchr(link, '/');
	escape(exe, sizeof exe, base ? base + 1 : link);
	t0 = wt_nanotime();
	return 0;
bad:
	wt_print("weft: WEFTDEBUG: cannot write the trace to %s; no trace\n", name);
	return -1;
}

/* [wlock] The escaped name of start function pc, looked up once. */
static const char *fn_name(uintptr_t pc, bool may_load)
{
	if (!pc)
		return "main";
	struct name_ent *e = &names[(pc >> 4) * 0x9e3779b97f4a7c15ull >> 54];
	if (e->pc == pc)
		return e->name;
	struct wt_sym s;
	wt_symbolize(pc, false, &s, may_load);
	if (!s.name && !may_load)
		return "?"; /* not cached: a later write may find its table */
	char raw[88];
	if (s.name && s.off == 0)
		wt_snprintf(raw, sizeof raw, "%s", s.name);
	else if (s.name)
		wt_snprintf(raw, sizeof raw, "%s+0x%lx", s.name, (unsigned long)s.off);
	else
		wt_snprintf(raw, sizeof raw, "0x%lx", (unsigned long)pc);
	e->pc = pc;
	escape(e->name, sizeof e->name, raw);
	return e->name;
}

/* Appends for the frequent events (RUN, STOP, WAKE), which wt_wprint's
 * general formatting made most of the writer's time.  Each event starts
 * with head(), which leaves at least 1 KiB free (wt_wprint's promise too):
 * enough for an event's fields, whose strings are bounded (names 88
 * bytes, reasons 64). */
static void lit(struct wt_wbuf *o, const char *s, size_t n)
{
	memcpy(o->buf + o->n, s, n);
	o->n += n;
}
#define LIT(o, s) lit(o, s, sizeof s - 1)

static void str(struct wt_wbuf *o, const char *s)
{
	lit(o, s, strlen(s));
}

static void num(struct wt_wbuf *o, uint64_t v)
{
	char t[20];
	int n = 0;
	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		o->buf[o->n++] = t[--n];
}

/* {"ph":"X","pid":P,"tid":T,"ts":µs.ns — every event's start. */
static void head(struct wt_wbuf *o, char ph, int tid, int64_t ts)
{
	if (o->cap - o->n < 1024)
		wt_wflush(o);
	int64_t d = ts - t0;
	if (d < 0)
		d = 0;
	int ns = (int)(d % 1000);
	LIT(o, "{\"ph\":\"");
	o->buf[o->n++] = ph;
	LIT(o, "\",\"pid\":");
	num(o, (uint64_t)pid);
	LIT(o, ",\"tid\":");
	num(o, (uint64_t)tid);
	LIT(o, ",\"ts\":");
	num(o, (uint64_t)(d / 1000));
	o->buf[o->n++] = '.';
	o->buf[o->n++] = (char)('0' + ns / 100);
	o->buf[o->n++] = (char)('0' + ns / 10 % 10);
	o->buf[o->n++] = (char)('0' + ns % 10);
}

static void instant(struct wt_wbuf *o, int tid, int64_t ts, const char *name)
{
	head(o, 'i', tid, ts);
	LIT(o, ",\"s\":\"t\",\"cat\":\"sched\",\"name\":\"");
	str(o, name);
	LIT(o, "\"");
}

static const char *why_name[] = { "park", "yield", "preempted", NULL };

/* [wlock] One record of ring b. */
static void emit(struct wt_wbuf *o, struct wt_tlbuf *b, const struct wt_tl_rec *r, bool may_load)
{
	int tid = b->tid;
	unsigned long g = (unsigned long)r->task;
	switch (r->kind) {
	case WT_TL_RUN: {
		if (b->open) {
			head(o, 'E', tid, r->ts);
			LIT(o, "},\n");
		}
		const char *fn = fn_name((uintptr_t)r->arg, may_load);
		head(o, 'B', tid, r->ts);
		LIT(o, ",\"cat\":\"task\",\"name\":\"G");
		num(o, g);
		LIT(o, " ");
		str(o, fn);
		LIT(o, "\",\"args\":{\"g\":");
		num(o, g);
		LIT(o, ",\"fn\":\"");
		str(o, fn);
		LIT(o, "\"}},\n");
		if (r->arg2) {
			head(o, 'f', tid, r->ts);
			LIT(o, ",\"bp\":\"e\",\"cat\":\"wake\",\"name\":\"wake\",\"id\":");
			num(o, r->arg2);
			LIT(o, "},\n");
		}
		b->open = r->task;
		return;
	}
	case WT_TL_STOP: {
		if (b->open) {
			head(o, 'E', tid, r->ts);
			LIT(o, "},\n");
			b->open = 0;
		}
		unsigned why = (unsigned)(r->arg2 & 0xff);
		if (why >= WT_TL_OTHER)
			return;
		instant(o, tid, r->ts, why_name[why]);
		LIT(o, ",\"args\":{\"g\":");
		num(o, g);
		if (why == WT_TL_PARK) {
			char reason[64];
			escape(reason, sizeof reason, r->arg ? (const char *)(uintptr_t)r->arg : "wait");
			LIT(o, ",\"reason\":\"");
			str(o, reason);
			LIT(o, "\"");
			if (r->arg2 >> 8) {
				LIT(o, ",\"fd\":");
				num(o, (r->arg2 >> 8) - 1);
			}
		}
		LIT(o, "}},\n");
		return;
	}
	case WT_TL_WAKE:
		/* The arrow starts inside a slice: the waker's, else a mark. */
		if (!r->arg || !b->open) {
			head(o, 'X', tid, r->ts);
			LIT(o, ",\"dur\":0,\"cat\":\"sched\",\"name\":\"wake G");
			num(o, g);
			LIT(o, "\"},\n");
		}
		head(o, 's', tid, r->ts);
		LIT(o, ",\"cat\":\"wake\",\"name\":\"wake\",\"id\":");
		num(o, r->arg2);
		LIT(o, ",\"args\":{\"g\":");
		num(o, g);
		LIT(o, ",\"by\":");
		num(o, r->arg);
		LIT(o, "}},\n");
		return;
	case WT_TL_CREATE:
		instant(o, tid, r->ts, "create");
		wt_wprint(o, ",\"args\":{\"g\":%lu,\"fn\":\"%s\",\"by\":%lu}},\n", g,
			  fn_name((uintptr_t)r->arg, may_load), (unsigned long)r->arg2);
		return;
	case WT_TL_EXIT:
		instant(o, tid, r->ts, "exit");
		wt_wprint(o, ",\"args\":{\"g\":%lu}},\n", g);
		return;
	case WT_TL_STEAL:
		instant(o, tid, r->ts, "steal");
		wt_wprint(o, ",\"args\":{\"g\":%lu,\"from\":%lu,\"to\":%lu}},\n", g,
			  (unsigned long)r->arg, (unsigned long)r->arg2);
		return;
	case WT_TL_PREEMPT:
		instant(o, tid, r->ts, "preempt request");
		wt_wprint(o, ",\"args\":{\"g\":%lu,\"worker\":%lu}},\n", g, (unsigned long)r->arg);
		return;
	case WT_TL_RETAKE:
		instant(o, tid, r->ts, "syscall hand-off");
		wt_wprint(o, ",\"args\":{\"g\":%lu,\"proc\":%lu,\"worker\":%ld}},\n", g,
			  (unsigned long)r->arg, (long)r->arg2);
		return;
	case WT_TL_HANDOFF:
		instant(o, tid, r->ts, "proc hand-off");
		wt_wprint(o, ",\"args\":{\"proc\":%lu,\"worker\":%ld}},\n", (unsigned long)r->arg,
			  (long)r->arg2);
		return;
	case WT_TL_LOSTPROC:
		instant(o, tid, r->ts, "proc lost in system call");
		wt_wprint(o, ",\"args\":{\"g\":%lu}},\n", g);
		return;
	}
}

/* [wlock] Everything recorded so far in b that is complete. */
static void drain(struct wt_wbuf *o, struct wt_tlbuf *b, bool may_load)
{
	uint64_t t = atomic_load_explicit(&b->tail, memory_order_relaxed);
	uint64_t h = atomic_load_explicit(&b->head, memory_order_relaxed);
	for (; t != h; t++) {
		const struct wt_tl_rec *r = &b->rec[t % WT_TL_N];
		/* Acquire: pairs with the producer's release of seq. */
		if (atomic_load_explicit(&r->seq, memory_order_acquire) != (uint32_t)(t + 1))
			break; /* still being written: next time */
		struct wt_tl_rec c;
		memcpy(&c, r, offsetof(struct wt_tl_rec, seq));
		emit(o, b, &c, may_load);
	}
	/* Release: the slots before t are read; producers may reuse them. */
	atomic_store_explicit(&b->tail, t, memory_order_release);
}

static uint64_t dropped_total(void)
{
	uint64_t n = 0;
	for (struct wt_tlbuf *b = atomic_load_explicit(&wt_tl_bufs, memory_order_acquire); b; b = b->next)
		n += atomic_load_explicit(&b->dropped, memory_order_relaxed);
	return n;
}

/* [wlock] Run-queue lengths, OS threads and drops, now. */
static void counters(struct wt_wbuf *o, int64_t now)
{
	head(o, 'C', 0, now);
	wt_wprint(o, ",\"name\":\"runqueue\",\"args\":{\"global\":%d",
		  atomic_load_explicit(&wt_sched.runq_size, memory_order_relaxed));
	int n = atomic_load_explicit(&wt_sched.nprocs, memory_order_relaxed);
	for (int i = 0; i < n; i++)
		wt_wprint(o, ",\"P%d\":%u", i, wt_runq_len(&wt_sched.procs[i]));
	wt_wprint(o, "}},\n");
	head(o, 'C', 0, now);
	wt_wprint(o, ",\"name\":\"threads\",\"args\":{\"threads\":%d}},\n", atomic_load(&wt_nthreads));
	head(o, 'C', 0, now);
	wt_wprint(o, ",\"name\":\"dropped events\",\"args\":{\"dropped\":%lu}},\n",
		  (unsigned long)dropped_total());
}

/* [wlock] The end: open slices closed, track names, the array closed. */
static void finish(struct wt_wbuf *o, int64_t now, const char *why)
{
	int nw = 0;
	for (struct wt_tlbuf *b = atomic_load_explicit(&wt_tl_bufs, memory_order_acquire); b; b = b->next) {
		if (b->open) {
			head(o, 'E', b->tid, now);
			wt_wprint(o, "},\n");
			b->open = 0;
		}
		wt_wprint(o, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_name\",\"args\":"
			  "{\"name\":\"", pid, b->tid);
		if (b->id >= 0)
			wt_wprint(o, "worker %d\"}},\n", b->id);
		else
			wt_wprint(o, "sysmon, other threads\"}},\n");
		wt_wprint(o, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_sort_index\","
			  "\"args\":{\"sort_index\":%d}},\n", pid, b->tid, b->id + 1);
		nw += b->id >= 0;
	}
	wt_wprint(o, "{\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"name\":\"process_name\",\"args\":"
		  "{\"name\":\"%s (weft)\"}}\n],\n", pid, exe);
	wt_wprint(o, "\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"weft\":\"trace\",\"end\":\"%s\","
		  "\"dropped\":%lu,\"workers\":%d,\"gomaxprocs\":%d,\"duration_us\":%ld}}\n", why,
		  (unsigned long)dropped_total(), nw,
		  atomic_load_explicit(&wt_sched.nprocs, memory_order_relaxed), (long)((now - t0) / 1000));
	closed = true;
}

/* [wlock] */
static void write_out(bool close, const char *why, bool may_load)
{
	long fd = wt_syscall6(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_APPEND | O_CLOEXEC, 0,
			      0, 0);
	if (fd < 0) {
		static bool said;
		if (!said)
			wt_print("weft: trace: cannot open %s any more; events are lost\n", path);
		said = true;
		fd = -1; /* drained all the same: the rings must not fill */
	}
	struct wt_wbuf o = { obuf, 0, sizeof obuf, (int)fd };
	for (struct wt_tlbuf *b = atomic_load_explicit(&wt_tl_bufs, memory_order_acquire); b; b = b->next)
		drain(&o, b, may_load);
	int64_t now = wt_nanotime();
	counters(&o, now);
	if (close)
		finish(&o, now, why);
	if (fd >= 0) {
		wt_wflush(&o);
		wt_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	}
}

void wt_tl_flush(bool close, const char *why, bool may_load)
{
	if (!wt_tl_on)
		return;
	/* The writer thread normally lets go within a write; if it died
	 * holding the lock (a crash inside it), give up after a second. */
	for (int i = 0; !wt_trylock(&wlock); i++) {
		if (i == 1000)
			return;
		struct timespec ms = { 0, 1000000 };
		wt_syscall6(SYS_nanosleep, (long)&ms, 0, 0, 0, 0, 0);
	}
	if (!closed)
		write_out(close, why, may_load);
	wt_unlock(&wlock);
}

void wt_tl_kick(void)
{
	if (!atomic_exchange_explicit(&kick, 1, memory_order_relaxed))
		wt_futex_wake(&kick, 1, false);
}

static void *writer(void *arg)
{
	(void)arg;
	wt_sig_block_all();
	for (;;) {
		int64_t until = wt_nanotime() + PERIOD_NS;
		struct timespec ts = { until / 1000000000, until % 1000000000 };
		if (!atomic_load_explicit(&kick, memory_order_relaxed))
			wt_futex_wait(&kick, 0, &ts, false);
		atomic_store_explicit(&kick, 0, memory_order_relaxed);
		wt_lock(&wlock);
		bool done = closed;
		if (!done)
			write_out(false, NULL, true);
		wt_unlock(&wlock);
		if (done)
			break;
	}
	atomic_fetch_sub(&wt_nthreads, 1);
	return NULL;
}

void wt_tl_writer_start(void)
{
	atomic_fetch_add(&wt_nthreads, 1);
	if (wt_thread_spawn(writer, NULL, 256 << 10) != 0) {
		atomic_fetch_sub(&wt_nthreads, 1);
		wt_print("weft: trace: cannot start the writer thread; events are written at exit "
			 "only\n");
	}
}

/* At exit (glibc runs libweft's destructor after the program's atexit
 * handlers and destructors): the rest of the events, and the end. */
__attribute__((destructor)) static void tl_at_exit(void)
{
	wt_tl_flush(true, "exit", true);
}
