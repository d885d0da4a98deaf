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
 * (a daemon) or changes directory does not end the trace; it is opened in
 * a descriptor table of weft's own (io/privfd.c: the writer's, or the
 * helper's for the other writers), never the program's.
 *
 * The file is valid JSON after every write, not only at the end: each
 * write puts its events at `body_end`, where the previous write's tail
 * began, then a tail (open slices ended now, track names, otherData with
 * "end":"running") and truncates the file after it; the last write's tail
 * says why the trace ended ("exit", "SIGQUIT", "exec", a crash).  So a
 * process killed by SIGKILL, ended by _exit or replaced by exec leaves a
 * valid file that lacks only the events of its last 10 ms (exec: none;
 * shim/exec.c writes them first, and a failed exec goes on appending).
 *
 * One file per process.  Every process that inherits WEFTDEBUG=trace=FILE
 * (a shell, `timeout`, what they start, a fork child) writes its own
 * file: FILE if no live process holds it, else FILE with ".PID" before
 * its extension (t.json, t.4242.json; a second image of process 4242
 * after exec: t.4242.2.json, ...), said in one `weft:` line.  The first
 * event of a file names its process: process_name's args carry
 * weft_pid, weft_start (the kernel's start time of the process, field 22
 * of /proc/PID/stat, so that a reused pid is not taken for it), ppid and
 * the command line.  A name is held when that process still exists
 * (a zombie too) with that start time; a file of a process gone is
 * overwritten, as a trace of an earlier run.  Choosing and creating the
 * file is done under flock of its directory, so two processes starting
 * at once never pick the same name.  A fork child traces on, from an
 * empty ring and its own writer thread; it claims its file at its first
 * write (10 ms, or its end), so a child that execs at once leaves none:
 * the new image has its own.
 *
 * Not captured: events after the file is ended; the last 10 ms of a
 * process killed by a signal with no handler (SIGKILL, SIGTERM) or ended
 * by _exit.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <time.h>

#include "core/runtime.h"
#include "core/config.h"
#include "base/lock.h"
#include "base/print.h"
#include "io/privfd.h"
#include "io/readfile.h"
#include "core/runq.h"
#include "signal/sigtask.h"
#include "base/slab.h"
#include "symbol.h"
#include "timeline.h"
#include "core/timer.h"
#include "core/worker.h"

#define NAMES 1024                      /* start functions named, cache slots */
#define PERIOD_NS 10000000ll            /* the writer's tick: 10 ms */

struct name_ent {
	uintptr_t pc;                   /* 0 = empty */
	char name[88];                  /* JSON-escaped */
};

static wt_lock_t wlock = WT_LOCK_INIT(WT_RANK_TIMELINE);
static char want[4096] WT_BSS_LARGE;                 /* [const] FILE, absolute, %p expanded */
static char path[4096] WT_BSS_LARGE;                 /* [wlock] the file this process claimed */
static char exe[128];                   /* [const] the program's name, escaped */
static char cmd[512];                   /* [const] its command line, escaped */
static int pid;                         /* [const; fork child] */
static int64_t t0;                      /* [const; fork child] mono ns of ts 0 */
static bool closed;                     /* [wlock] the file is ended */
static bool claimed;                    /* [wlock] path is chosen and created */
static long body_end;                   /* [wlock] offset of the tail: the next events go there */
static struct name_ent *names;          /* [wlock] NAMES slots, mapped */
static char obuf[65536] WT_BSS_LARGE;                /* [wlock] */
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

/* The kernel's start time of process p (field 22 of /proc/p/stat), 0 if
 * it does not exist. */
static uint64_t start_of(int p)
{
	char f[40], b[1024];
	wt_snprintf(f, sizeof f, "/proc/%d/stat", p);
	if (wt_read_file(f, b, sizeof b) <= 0)
		return 0;
	const char *c = strrchr(b, ')'); /* comm may hold spaces and parens */
	if (!c)
		return 0;
	for (int field = 2; *c; c++) /* c at field 2's end; fields from 3 on follow */
		if (*c == ' ' && ++field == 22)
			break;
	uint64_t v = 0;
	while (*c == ' ')
		c++;
	for (; *c >= '0' && *c <= '9'; c++)
		v = v * 10 + (uint64_t)(*c - '0');
	return v;
}

/* The number after key in s, 0 if none. */
static uint64_t field_of(const char *s, const char *key)
{
	const char *c = strstr(s, key);
	uint64_t v = 0;
	if (c)
		for (c += strlen(key); *c >= '0' && *c <= '9'; c++)
			v = v * 10 + (uint64_t)(*c - '0');
	return v;
}

/* Is the file at f a trace of a process that still exists (this one's
 * earlier image after exec included)?  Its first event names it. */
static bool held(const char *f)
{
	char b[2048];
	if (wt_read_file(f, b, sizeof b) <= 0)
		return false;
	int p = (int)field_of(b, "\"weft_pid\":");
	uint64_t st = field_of(b, "\"weft_start\":");
	return p > 0 && st && start_of(p) == st;
}

/* Candidate k for this process's file: FILE, then FILE with ".PID" (k 1)
 * or ".PID.k" before the extension of its last component. */
static void candidate(char *d, size_t n, int k)
{
	if (k == 0) {
		wt_snprintf(d, n, "%s", want);
		return;
	}
	const char *base = strrchr(want, '/') + 1;
	const char *dot = strrchr(base, '.');
	size_t stem = dot && dot != base ? (size_t)(dot - want) : strlen(want);
	char tag[32];
	if (k == 1)
		wt_snprintf(tag, sizeof tag, ".%d", pid);
	else
		wt_snprintf(tag, sizeof tag, ".%d.%d", pid, k);
	if (stem + strlen(tag) + strlen(want + stem) + 1 > n) {
		d[0] = 0;
		return;
	}
	memcpy(d, want, stem);
	wt_snprintf(d + stem, n - stem, "%s%s", tag, want + stem);
}

static void trailer(struct wt_wbuf *o, int64_t now, const char *why, bool final);
static void write_out(bool close, const char *why, bool may_load);

/* [wlock] Chooses this process's file (the first candidate no live
 * process holds), creates it with its first event, and says so when it
 * is not FILE.  Under flock of the directory: one chooser at a time among
 * the processes that write there.  0 or -errno. */
static int claim(void)
{
	char dir[4096];
	uint64_t me = start_of(pid);
	size_t dl = (size_t)(strrchr(want, '/') - want);
	memcpy(dir, want, dl ? dl : 1);
	dir[dl ? dl : 1] = 0;
	long dfd = wt_privfd_syscall(SYS_openat, AT_FDCWD, (long)dir,
				     O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
	if (dfd >= 0)
		wt_privfd_syscall(SYS_flock, dfd, LOCK_EX, 0, 0, 0, 0); /* released by close */
	int k = 0;
	for (; k < 1000; k++) {
		candidate(path, sizeof path, k);
		if (!path[0] || !held(path))
			break;
	}
	long fd = wt_privfd_syscall(SYS_openat, AT_FDCWD, (long)path,
			      O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644, 0, 0);
	if (fd >= 0) {
		struct wt_wbuf o = { obuf, 0, sizeof obuf, (int)fd, wt_privfd_write };
		wt_wprint(&o, "{\"traceEvents\":[\n{\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
			  "\"name\":\"process_name\",\"args\":{\"name\":\"%s (weft)\",",
			  pid, exe);
		wt_wprint(&o, "\"weft_pid\":%d,\"weft_start\":%lu,\"ppid\":%d,\"cmd\":\"%s\"}},\n",
			  pid, (unsigned long)me, (int)wt_syscall6(SYS_getppid, 0, 0, 0, 0, 0, 0), cmd);
		body_end = (long)o.n;
		trailer(&o, wt_nanotime(), "running", false);
		wt_wflush(&o);
		wt_privfd_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
	}
	if (dfd >= 0)
		wt_privfd_syscall(SYS_close, dfd, 0, 0, 0, 0, 0);
	/* Said through wt_privfd_say: claim may run on the writer thread,
	 * whose table of its own has no stderr. */
	char msg[1024];
	if (fd < 0) {
		wt_privfd_say(msg, (size_t)wt_snprintf(msg, sizeof msg,
				"weft: WEFTDEBUG: cannot write the trace to %s; no trace\n", path));
		return (int)fd;
	}
	claimed = true;
	if (k > 0)
		wt_privfd_say(msg, (size_t)wt_snprintf(msg, sizeof msg,
				"weft: trace: %s is another live process's; this one (pid %d, %s) writes %s\n",
				want, pid, exe, path));
	return 0;
}

/* FILE, with each "%p" replaced by the process id, made absolute; the
 * file claimed (claim), unless claim_now is false (a fork child claims at
 * its first write). */
static int file_open(const char *p)
{
	size_t n = 0;
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
		long r = wt_syscall6(SYS_getcwd, (long)want, sizeof want, 0, 0, 0, 0);
		if (r < 0)
			goto bad;
		n = strlen(want);
		if (n + 1 < sizeof want && want[n - 1] != '/')
			want[n++] = '/';
	}
	if (n + strlen(p) + 1 > sizeof want)
		goto bad;
	memcpy(want + n, p, strlen(p) + 1);
	return 0;
bad:
	wt_print("weft: WEFTDEBUG: cannot write the trace to %s; no trace\n", name);
	return -1;
}

/* Context: wt_tl_start, on the initial thread, before any other thread
 * of weft's.  0 or -1 (no trace; said on stderr). */
int wt_tl_file_open(const char *p)
{
	pid = (int)wt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	if (file_open(p) < 0)
		return -1;
	names = wt_mmap_anon(sizeof *names * NAMES);
	if (!names) {
		wt_print("weft: WEFTDEBUG: no memory for the trace; no trace\n");
		return -1;
	}
	char link[256];
	long ln = wt_syscall6(SYS_readlinkat, AT_FDCWD, (long)"/proc/self/exe", (long)link,
			      sizeof link - 1, 0, 0);
	link[ln > 0 ? ln : 0] = 0;
	const char *base = strrchr(link, '/');
	escape(exe, sizeof exe, base ? base + 1 : link);
	char cl[sizeof cmd];
	long cn = wt_read_file("/proc/self/cmdline", cl, sizeof cl);
	for (long i = 0; i < cn - 1; i++)
		if (cl[i] == 0)
			cl[i] = ' ';
	escape(cmd, sizeof cmd, cn > 0 ? cl : exe);
	t0 = wt_nanotime();
	return claim();
}

/* Context: a fork child, on the forking thread, before any other thread
 * of weft's exists in it (process/fork.c).  The parent's file is not the child's:
 * a new one is claimed at the child's first write. */
void wt_tl_file_fork(void)
{
	wlock = (wt_lock_t)WT_LOCK_INIT(WT_RANK_TIMELINE);
	pid = (int)wt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	claimed = false;
	body_end = 0;
	t0 = wt_nanotime();
	atomic_store_explicit(&kick, 0, memory_order_relaxed);
}

/* The writer's lock, waited for up to a second: the writer thread lets go
 * within a write, and one that died holding it (a crash inside it) must
 * not hang the caller.  false: not taken. */
static bool wlock_take(void)
{
	for (int i = 0; !wt_trylock(&wlock); i++) {
		if (i == 1000)
			return false;
		struct timespec ms = { 0, 1000000 };
		wt_syscall6(SYS_nanosleep, (long)&ms, 0, 0, 0, 0, 0);
	}
	return true;
}

/* Context: shim/exec.c, on a task, just before exec.  Written out to this
 * moment with the tail "exec"; if the exec fails, the next write goes on
 * from the same place. */
void wt_tl_exec(void)
{
	/* A child that shares this memory (vfork) is not this process. */
	if (!wt_tl_on || (int)wt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0) != pid)
		return;
	if (!wlock_take())
		return;
	if (claimed && !closed)
		write_out(false, "exec", true);
	wt_unlock(&wlock);
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

/* [wlock] The tail: open slices ended at now, track names, the array
 * and the object closed.  final: the trace ends here (slices stay ended);
 * else the next write replaces this tail. */
static void trailer(struct wt_wbuf *o, int64_t now, const char *why, bool final)
{
	int nw = 0;
	for (struct wt_tlbuf *b = atomic_load_explicit(&wt_tl_bufs, memory_order_acquire); b; b = b->next) {
		if (b->open) {
			head(o, 'E', b->tid, now);
			wt_wprint(o, "},\n");
			if (final)
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
	/* The array's last element: no comma after it. */
	wt_wprint(o, "{\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"name\":\"process_labels\",\"args\":"
		  "{\"labels\":\"pid %d\"}}\n],\n", pid, pid);
	wt_wprint(o, "\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"weft\":\"trace\",\"end\":\"%s\","
		  "\"dropped\":%lu,\"workers\":%d,\"gomaxprocs\":%d,\"duration_us\":%ld,"
		  "\"pid\":%d,\"command\":\"%s\"}}\n", why,
		  (unsigned long)dropped_total(), nw,
		  atomic_load_explicit(&wt_sched.nprocs, memory_order_relaxed), (long)((now - t0) / 1000),
		  pid, cmd);
	if (final)
		closed = true;
}

/* [wlock] The events so far at body_end, then the tail; the file cut
 * after it.  A fork child's first write claims its file. */
static void write_out(bool close, const char *why, bool may_load)
{
	if (!claimed && claim() < 0)
		claimed = true, path[0] = 0; /* no file: drained all the same */
	long fd = path[0] ? wt_privfd_syscall(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_CLOEXEC, 0,
					0, 0)
			  : -1;
	if (fd < 0 && path[0]) {
		static bool said;
		char msg[512];
		if (!said)
			wt_privfd_say(msg, (size_t)wt_snprintf(msg, sizeof msg,
					"weft: trace: cannot open %s any more; events are lost\n", path));
		said = true;
	}
	if (fd >= 0 && wt_privfd_syscall(SYS_lseek, fd, body_end, SEEK_SET, 0, 0, 0) != body_end) {
		wt_privfd_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
		fd = -1;
	}
	if (fd < 0)
		fd = -1; /* drained all the same: the rings must not fill */
	struct wt_wbuf o = { obuf, 0, sizeof obuf, (int)fd, wt_privfd_write };
	for (struct wt_tlbuf *b = atomic_load_explicit(&wt_tl_bufs, memory_order_acquire); b; b = b->next)
		drain(&o, b, may_load);
	int64_t now = wt_nanotime();
	counters(&o, now);
	if (fd >= 0) {
		wt_wflush(&o);
		long at = wt_privfd_syscall(SYS_lseek, fd, 0, SEEK_CUR, 0, 0, 0);
		if (at > 0)
			body_end = at;
	}
	o.n = 0;
	trailer(&o, now, close ? why : why ? why : "running", close);
	if (fd >= 0) {
		wt_wflush(&o);
		long at = wt_privfd_syscall(SYS_lseek, fd, 0, SEEK_CUR, 0, 0, 0);
		if (at > 0)
			wt_privfd_syscall(SYS_ftruncate, fd, at, 0, 0, 0, 0);
		wt_privfd_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
	}
}

void wt_tl_flush(bool close, const char *why, bool may_load)
{
	if (!wt_tl_on)
		return;
	if (!wlock_take())
		return;
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
	wt_sig_block_program(); /* SIGURG open: a change of ids reaches it (process/setxid.c) */
	/* Its opens in a table of its own (io/privfd.c); failing that, the
	 * helper's. */
	wt_privfd_own(0);
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
WT_DORMANT_TEXT __attribute__((destructor)) static void tl_at_exit(void)
{
	if (wt_tl_on)
		wt_tl_flush(true, "exit", true);
}
