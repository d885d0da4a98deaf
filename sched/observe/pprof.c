/*
 * at exit in the pprof format (profile.proto), which `go tool pprof` reads
 * as it is (uncompressed protobuf: pprof accepts it as well as gzip).
 *
 * Sampling.  Every worker thread (the initial one included) owns a POSIX
 * timer on its own CPU clock (CLOCK_THREAD_CPUTIME_ID, every 10 ms of
 * that thread's CPU time: 100 Hz per busy worker, none while it sleeps),
 * delivered to that thread alone (SIGEV_THREAD_ID).  The carrier is
 * SIGURG, weft's own signal: tasks never block it at the thread level,
 * natively it is ignored, and its handler (core/preempt.c) already tells
 * weft's uses apart by si_code and si_value; this one has si_code
 * SI_TIMER and the address of `cookie` as its value.  SIGPROF was
 * rejected: it is the program's (setitimer(ITIMER_PROF), gperftools, the
 * prio_sigprof test), and taking it would change what the program sees.
 * A SIGURG timer signal that finds another SIGURG pending is merged into
 * it (a standard signal queues once), as sysmon's requests are: a sample
 * may be lost, and a poke that it absorbed is done by the sample's
 * handler (wt_sig_poked), as any SIGURG of weft's does.
 *
 * A sample: the interrupted task (its id and name as the program set it
 * with pthread_setname_np or prctl) and its stack, the interrupted pc
 * first, then the return addresses found by following the frame-pointer
 * chain from the signal's context, each frame checked to lie on the
 * task's own stack above the last (a function built without frame
 * pointers ends the chain early; a stale frame pointer fails the checks).
 * libunwind was rejected inside the handler: it takes the loader's lock
 * (dl_iterate_phdr), which the interrupted task may hold.  Samples go to
 * a buffer mapped at start (NREC records, about 9 MiB of address space,
 * touched only as it fills): a slot is claimed with one atomic add and
 * published with a release store; a full buffer counts what it dropped.
 * A sample's values: its ticks (1 + the timer's overruns) and the
 * worker's CPU time since its previous sample (10 ms unless ticks were
 * lost: see last_cpu).
 *
 * Writing.  libweft's destructor (after the program's atexit handlers)
 * symbolizes the pcs (symbol.c, which may read symbol tables then), and
 * encodes the profile into memory of weft's own (mmap), never the
 * program's malloc.  Every process that inherits WEFTDEBUG (a shell,
 * `timeout`, what they start) profiles itself, and writes FILE, each "%p"
 * in it replaced by its process id, only if it took a sample: `timeout
 * 60 prog` leaves prog's profile, not timeout's empty one.  A fork child
 * writes none (it has no timers; its copy of the samples is its
 * parent's).
 *
 * `weft profile PID` (tools/pprof.py) asks as `weft stack` does (dump.c):
 * an unlinked, empty file on the caller's descriptor D and SIGURG queued
 * with WT_PROF_MAGIC << 32 | seconds << 20 | D.  The handler records the
 * request and kicks sysmon, which starts the profiler thread (one at a
 * time; a request meanwhile is dropped): it opens /proc/SENDER/fd/D in a
 * descriptor table of its own (io/privfd.c), gives each worker a timer on
 * that thread's CPU clock (the kernel's per-thread clock id, made from
 * its tid: one thread may arm another's), sleeps, deletes them, and
 * writes the samples of the window.  The file ends with the period field,
 * written last, which the caller waits for.  Once a request was made the
 * handler keeps recognizing ticks (wt_prof_on stays set): a tick pending
 * as the timers are deleted is not the program's SIGURG.
 *
 * WEFTDEBUG=mutexprofile=FILE: each wait for a mutex of weft's (the
 * normal, recursive and errorcheck kinds; shim/pthread_mutex.c) that
 * parked is a sample, written at exit as FILE is for the CPU profile:
 * sample types contentions (samples/count) and delay/nanoseconds, the
 * time from the first park to the lock, charged twice, as Go charges
 * both: to the call site of the waiter's pthread_mutex_lock (its return
 * address, which the exported call passes down; a condition variable's
 * re-lock names weft's code) and to the call site of the pthread_mutex_
 * unlock that let it go (the last unlock of that mutex, in a table by
 * its address, `unlocked`).  The waiter's frames above its call site are
 * walked (libunwind) for a sample of the waits only, chosen as the block
 * profile chooses its samples (below): a backtrace costs more than many
 * short waits.
 *
 * WEFTDEBUG=blockprofile=FILE and weft profile --block: every park and
 * blocking system call of a task while the profile is on is timed (two
 * clock reads), and a sample of them by delay (Go's block-profile rule,
 * with a rate that follows the waiting) records the task's stack from
 * the interposed call the program made.
 *
 * Cost while profiling is off: one predictable branch in
 * wt_worker_init_self, one compare of si_code in the SIGURG handler, one
 * in pthread_mutex_unlock and one in a lock's slow path, and a relaxed
 * load and branch around each park and blocking system call (the block
 * profile's wt_bprof_begin); nothing on a switch.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>

#include "core/runtime.h"
#include "arch.h"
#include "core/config.h"
#include "pprof.h"
#include "base/print.h"
#include "io/privfd.h"
#include "core/sysmon.h"
#include "core/thread.h"
#include "core/timer.h"
#include "core/worker.h"
#include "signal/sigtask.h"
#include "symbol.h"
#include "core/task.h"
#include "core/text.h"
#include "unwind.h"

#define MAXF 32          /* frames kept of a sample */
#define NREC (1u << 15)  /* samples kept: 160 s of two busy workers */
#define PERIOD_NS 10000000ll

struct rec {
	_Atomic uint32_t ready; /* [release by the sampler] the rest is written */
	uint16_t n;             /* pcs */
	uint16_t ticks;         /* 1 + the timer's overruns (ticks merged into this one) */
	uint64_t ns;            /* the thread's CPU time since its last sample */
	uint64_t task;          /* task id, 0: no task (weft's own code) */
	char name[16];
	uintptr_t pc[MAXF];
};

_Atomic bool wt_mprof_on;            /* [atomic] mutex waits are recorded */
static struct rec *mrecs;            /* [set once, release] NREC contended waits */
static _Atomic uint32_t nmrec;       /* [atomic] slots claimed */
static bool mprof_at_start;          /* [const after start] WEFTDEBUG=mutexprofile=FILE */
_Atomic bool wt_bprof_on;            /* [atomic] waits are sampled */
static struct rec *brecs;            /* [set once, release] NREC sampled waits */
static _Atomic uint32_t nbrec;       /* [atomic] slots claimed */
static bool bprof_at_start;          /* [const after start] WEFTDEBUG=blockprofile=FILE */
/* The block profile's rate R: a wait of at least R ns is a sample; a
 * shorter wait of d ns is one with probability d / R, and then counts
 * R / d waits of R ns (so the expected totals are the waits' own: Go's
 * rule).  Each sample costs a backtrace by libunwind (about 100 µs for a
 * CPython stack, its cache cold in each task), and a program's tasks may
 * wait for many task-seconds each second (CPython's 200 threads: a fixed
 * R of 10 ms took 7,800 samples in a 1 s run, and doubled its time), so
 * R follows the waiting: every BLOCK_WINDOW_NS it becomes the waits'
 * total of the last window over BLOCK_PER_WINDOW, never under
 * BLOCK_RATE_MIN_NS: about 200 samples a second at most, and every wait
 * of 1 ms or more sampled in a program that waits little. */
#define BLOCK_RATE_MIN_NS 1000000
#define BLOCK_WINDOW_NS 100000000
#define BLOCK_PER_WINDOW 20
struct sampler {
	_Atomic int64_t rate;   /* [atomic] R */
	_Atomic int64_t waited; /* [atomic] the window's waits, ns */
	_Atomic int64_t window; /* [atomic] the window's end, 0 none yet */
};
static struct sampler bsamp = { BLOCK_RATE_MIN_NS, 0, 0 }; /* the block profile's */
static struct sampler msamp = { BLOCK_RATE_MIN_NS, 0, 0 }; /* the mutex profile's stacks */
/* [atomic] the kind weft profile asked for with the request in req */
enum { KIND_CPU, KIND_MUTEX, KIND_BLOCK };
static _Atomic int req_kind;
bool wt_prof_on;                     /* [set once: start, or the first request] ticks are recognized */
static _Atomic bool active;          /* [atomic] a new worker makes its timer */
/* [atomic] weft profile's request: sender << 32 | seconds << 20 | fd; 0 none */
static _Atomic uint64_t req;
static _Atomic bool busy;            /* [atomic] a request's profiler thread runs */
#define NTIMER 1024
static _Atomic int timers[NTIMER];   /* [atomic] timer ids made (id + 1), 0 free */
static _Atomic uint32_t ntimer;      /* [atomic] slots of timers[] used */
static struct rec *recs;             /* [const after start] NREC records */
static _Atomic uint32_t nrec;        /* [atomic] slots claimed */
static int prof_pid;                 /* [const after start] */
static struct timespec t0;           /* [const after start] */
static bool at_start;                /* [const after start] cpuprofile=FILE */
static const char cookie = 'p';      /* its address: the timer's si_value */
/* [the thread whose timer id it is, in its handler] each worker's CPU time
 * (ns) at its last sample, by kernel timer id (small numbers, one timer a
 * worker): a tick lost to another SIGURG pending (sysmon's, a poke) is
 * charged to the next sample of that worker, so the profile's CPU time is
 * the workers' whole CPU time even when samples are lost. */
#define NLAST 4096
static uint64_t last_cpu[NLAST];

/* Context: a worker thread, its own, first thing (wt_worker_init_self,
 * wt_prof_start for the initial thread).  May not allocate. */
static int make_timer(int tid, clockid_t clock)
{
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGURG;
	ev.sigev_value.sival_ptr = (void *)&cookie;
	ev._sigev_un._tid = tid;
	int id; /* the kernel's timer id */
	long r = wt_syscall6(SYS_timer_create, clock, (long)&ev, (long)&id, 0, 0, 0);
	if (r < 0)
		return (int)r;
	uint32_t k = atomic_fetch_add(&ntimer, 1);
	if (k < NTIMER)
		atomic_store(&timers[k], id + 1);
	struct itimerspec its = { { 0, PERIOD_NS }, { 0, PERIOD_NS } };
	wt_syscall6(SYS_timer_settime, id, 0, (long)&its, 0, 0, 0);
	return 0;
}

void wt_prof_worker(struct wt_m *m)
{
	(void)m;
	if (!atomic_load_explicit(&active, memory_order_relaxed))
		return;
	int r = make_timer((int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0), CLOCK_THREAD_CPUTIME_ID);
	if (r < 0)
		wt_print("weft: cpuprofile: cannot create a worker's timer (%d); its samples are missing\n", r);
}

static void *wmap(size_t n);

/* libunwind for the profiles' stacks, stepped from getcontext's context
 * with its global cache.  Not unw_backtrace: its fast path gives every
 * thread a 256 KiB cache, zeroed at the thread's first backtrace (a
 * program that starts 4,000 short threads took 100,000 page faults
 * instead of 17,000, and ran 1.7 times as long).  Not the cache per
 * thread: libunwind's thread-local cache is tens of KiB a task.  The
 * global cache costs two sigprocmask calls a frame (it blocks signals
 * around its lock).  The policy is the process's (a task dump sets the
 * cache per thread while it walks).  Context: a thread that may take the
 * loader's lock. */
static const struct wt_unw *bprof_unwinder(void)
{
	static _Atomic bool set;
	const struct wt_unw *u = wt_unwind();
	if (u && !atomic_exchange(&set, true))
		u->set_caching_policy(*u->local_addr_space, UNW_CACHE_GLOBAL);
	return u;
}

/* A wait profile asked for from the start: its records' buffer, turned
 * on.  The block profile's libunwind is loaded at its first sample: a
 * call into a library dlopen'ed here, inside the loader's constructors
 * (bash starts weft there), faulted in the lazy binder. */
static bool waits_start(struct rec **buf, _Atomic bool *on)
{
	*buf = wmap(NREC * sizeof(struct rec));
	prof_pid = wt_pid;
	wt_syscall6(SYS_clock_gettime, CLOCK_REALTIME, (long)&t0, 0, 0, 0, 0);
	atomic_store(on, *buf != NULL);
	return *buf != NULL;
}

/* Context: start, the initial thread, before sysmon and the workers (they
 * read wt_prof_on); m0 runs main. */
void wt_prof_start(struct wt_m *m0)
{
	if (wt_cfg.mutexprofile_path[0])
		mprof_at_start = waits_start(&mrecs, &wt_mprof_on);
	if (wt_cfg.blockprofile_path[0])
		bprof_at_start = waits_start(&brecs, &wt_bprof_on);
	if (!wt_cfg.cpuprofile_path[0])
		return;
	void *p = (void *)wt_syscall6(SYS_mmap, 0, NREC * sizeof(struct rec), PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if ((long)p < 0 && (long)p > -4096) {
		wt_print("weft: cpuprofile: no memory for the samples; no profile\n");
		return;
	}
	recs = p;
	prof_pid = wt_pid;
	wt_syscall6(SYS_clock_gettime, CLOCK_REALTIME, (long)&t0, 0, 0, 0, 0);
	wt_prof_on = true;
	atomic_store(&active, true);
	at_start = true;
	wt_prof_worker(m0);
}

/* Context: the SIGURG handler (core/preempt.c), any thread.  Is si a profiling
 * tick?  Then the interrupted task's stack is recorded.  Async-signal-safe:
 * reads of the task's own stack and one atomic add. */
bool wt_prof_signal(const siginfo_t *si, void *ucv)
{
	uint64_t v = (uint64_t)(uintptr_t)si->si_value.sival_ptr;
	if (si->si_code == SI_QUEUE && si->si_pid != wt_pid && si->si_pid > 0 &&
	    (v >> 32 == WT_PROF_MAGIC || v >> 32 == WT_PROF_MAGIC_MUTEX ||
	     v >> 32 == WT_PROF_MAGIC_BLOCK)) {
		atomic_store_explicit(&req_kind,
				      v >> 32 == WT_PROF_MAGIC_MUTEX	 ? KIND_MUTEX
				      : v >> 32 == WT_PROF_MAGIC_BLOCK ? KIND_BLOCK
									 : KIND_CPU,
				      memory_order_relaxed);
		atomic_store_explicit(&req, (uint64_t)si->si_pid << 32 | (uint32_t)v, memory_order_relaxed);
		wt_sysmon_kick();
		return true;
	}
	if (si->si_code != SI_TIMER || si->si_value.sival_ptr != (void *)&cookie)
		return false;
	ucontext_t *uc = ucv;
	uint32_t i = atomic_fetch_add_explicit(&nrec, 1, memory_order_relaxed);
	if (recs && i < NREC) {
		struct rec *r = &recs[i];
		struct wt_task *t = wt_cur();
		uintptr_t sp = wt_arch_uc_sp(uc);
		r->n = 0;
		int ov = si->si_overrun;
		r->ticks = (uint16_t)(ov >= 0 && ov < 65534 ? ov + 1 : 1);
		r->ns = (uint64_t)r->ticks * PERIOD_NS;
		unsigned tid = (unsigned)si->si_timerid;
		struct timespec now;
		if (tid < NLAST && wt_syscall6(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID,
					       (long)&now, 0, 0, 0, 0) == 0) {
			uint64_t c = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
			if (last_cpu[tid] && c > last_cpu[tid] && c - last_cpu[tid] < 100 * PERIOD_NS)
				r->ns = c - last_cpu[tid];
			last_cpu[tid] = c;
		}
		r->pc[r->n++] = wt_arch_uc_pc(uc);
		if (t) {
			r->task = t->id;
			wt_task_name_copy(t, r->name);
			uintptr_t lo = (uintptr_t)t->stack_lo, hi = (uintptr_t)t->stack_hi;
			uintptr_t fp = wt_arch_uc_fp(uc);
			if (sp >= lo && sp < hi) {
				while (r->n < MAXF && fp >= sp && fp + 16 <= hi && !(fp & 7)) {
					uintptr_t next = ((uintptr_t *)fp)[0], ret = ((uintptr_t *)fp)[1];
					if (ret < 4096)
						break;
					r->pc[r->n++] = ret;
					if (next <= fp)
						break;
					fp = next;
				}
			}
		} else {
			r->task = 0;
			memset(r->name, 0, sizeof r->name);
		}
		atomic_store_explicit(&r->ready, 1, memory_order_release);
	}
	wt_sig_poked(uc); /* a poke it may have absorbed */
	return true;
}

/* ---- the writer: profile.proto, encoded by hand ---- */

struct pb {
	uint8_t *b;
	size_t n, cap;
	int fd;     /* >= 0: flushed to it when full; else b is a fixed scratch */
	bool err;
};

static void pb_flush(struct pb *p)
{
	size_t off = 0;
	while (p->fd >= 0 && off < p->n) {
		long w = wt_syscall6(SYS_write, p->fd, (long)(p->b + off), p->n - off, 0, 0, 0);
		if (w == -EINTR)
			continue;
		if (w <= 0) {
			p->err = true;
			break;
		}
		off += (size_t)w;
	}
	p->n = 0;
}

static void pb_raw(struct pb *p, const void *s, size_t len)
{
	const uint8_t *c = s;
	while (len) {
		if (p->n == p->cap) {
			if (p->fd < 0) {
				p->err = true;
				return;
			}
			pb_flush(p);
		}
		size_t k = p->cap - p->n < len ? p->cap - p->n : len;
		memcpy(p->b + p->n, c, k);
		p->n += k, c += k, len -= k;
	}
}

static void pb_var(struct pb *p, uint64_t v)
{
	uint8_t b[10];
	int n = 0;
	do {
		b[n] = v & 0x7f;
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	pb_raw(p, b, n);
}

static void pb_int(struct pb *p, int f, uint64_t v)
{
	pb_var(p, (uint64_t)f << 3);
	pb_var(p, v);
}

static void pb_bytes(struct pb *p, int f, const void *s, size_t len)
{
	pb_var(p, (uint64_t)f << 3 | 2);
	pb_var(p, len);
	pb_raw(p, s, len);
}

/* A table of strings (the profile's string_table) and of ids keyed by a
 * 64-bit value, open addressing in memory of weft's own. */
struct tab {
	uint64_t *key;
	uint32_t *val;  /* 0 = empty */
	size_t cap;
};

static void *wmap(size_t n)
{
	void *p = (void *)wt_syscall6(SYS_mmap, 0, n, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return (long)p < 0 && (long)p > -4096 ? NULL : p;
}

static bool tab_init(struct tab *t, size_t cap)
{
	t->cap = cap;
	t->key = wmap(cap * sizeof *t->key);
	t->val = wmap(cap * sizeof *t->val);
	return t->key && t->val;
}

static uint32_t *tab_slot(struct tab *t, uint64_t k)
{
	size_t i = (size_t)((k * 0x9e3779b97f4a7c15ull) >> 20) & (t->cap - 1);
	while (t->val[i] && t->key[i] != k)
		i = (i + 1) & (t->cap - 1);
	t->key[i] = k;
	return &t->val[i];
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h | 1;
}

struct writer {
	struct pb out;
	struct tab strs, funcs, locs;
	const char **strv;  /* string_table, by index */
	char *hex;          /* 24 bytes a location: names of pcs without a symbol */
	uint32_t nstr, nfunc, nloc, maxstr;
};

/* The index of s in the string table (a hash collision of two strings
 * would merge them: 64 bits of FNV-1a over a few thousand names). */
static uint32_t str_id(struct writer *w, const char *s)
{
	uint32_t *v = tab_slot(&w->strs, hash_str(s));
	if (!*v) {
		if (w->nstr == w->maxstr)
			return 0;
		w->strv[w->nstr] = s;
		*v = ++w->nstr; /* index + 1; index 0 is "" */
	}
	return *v;
}

/* Context: the exit path.  The location id of pc (a return address unless
 * leaf), its function and name written out on first sight. */
static uint32_t loc_id(struct writer *w, uintptr_t pc, bool leaf)
{
	uintptr_t a = leaf ? pc : pc - 1;
	uint32_t *v = tab_slot(&w->locs, a);
	if (*v)
		return *v;
	uint32_t id = *v = ++w->nloc;
	struct wt_sym s;
	wt_symbolize(pc, !leaf, &s, true);
	const char *name = s.name;
	if (name && !strncmp(name, "wt_own_", 7))
		name += 7; /* the hidden alias of an interposed name (shim.h: WT_OWN) */
	if (!name && w->hex) { /* kept in the arena: the string table points at it */
		char *hex = w->hex + 24 * (size_t)(id - 1);
		int k = 0;
		hex[k++] = '0', hex[k++] = 'x';
		for (int sh = 60; sh >= 0; sh -= 4)
			if ((a >> sh) || sh == 0 || k > 2)
				hex[k++] = "0123456789abcdef"[(a >> sh) & 15];
		hex[k] = 0;
		name = hex;
	}
	uint32_t sid = str_id(w, name ? name : "?");
	uint32_t *fv = tab_slot(&w->funcs, sid);
	uint8_t sb[256], fb[256];
	if (!*fv) {
		*fv = ++w->nfunc;
		struct pb f = { fb, 0, sizeof fb, -1, false };
		pb_int(&f, 1, *fv);
		pb_int(&f, 2, sid);
		pb_int(&f, 3, sid);
		if (s.file)
			pb_int(&f, 4, str_id(w, s.file));
		pb_bytes(&w->out, 5, fb, f.n);
	}
	struct pb l = { sb, 0, sizeof sb, -1, false }, ln = { fb, 0, sizeof fb, -1, false };
	pb_int(&ln, 1, *fv);
	pb_int(&l, 1, id);
	pb_int(&l, 3, a);
	pb_bytes(&l, 4, fb, ln.n);
	pb_bytes(&w->out, 4, sb, l.n);
	return id;
}

static void u64_str(char *b, uint64_t v)
{
	char t[24];
	int n = 0;
	do
		t[n++] = '0' + v % 10;
	while (v /= 10);
	for (int i = 0; i < n; i++)
		b[i] = t[n - 1 - i];
	b[n] = 0;
}

static void wunmap(void *p, size_t n)
{
	if (p)
		wt_syscall6(SYS_munmap, (long)p, n, 0, 0, 0, 0);
}

/* The samples from..to-1 as a profile into fd, the profile's time from
 * start to now.  Returns false if fd took less than all.  Context: the exit
 * path (libweft's destructor) or the profiler thread; may read symbol
 * tables; allocates with mmap only, and frees what it took. */
static bool encode(int fd, struct rec *recs, uint32_t from, uint32_t to, const struct timespec *start,
		   const char *type, const char *unit)
{
	uint32_t n = to;
	struct writer w;
	memset(&w, 0, sizeof w);
	size_t cap = 1;
	while (cap < 4 * (size_t)n * 2 + 1024)
		cap <<= 1;
	if (cap > (1u << 22))
		cap = 1u << 22;
	w.maxstr = (uint32_t)(cap / 2);
	w.strv = wmap(w.maxstr * sizeof *w.strv);
	uint8_t *obuf = wmap(1 << 16);
	w.hex = wmap(cap * 24);
	char (*ids)[24] = wmap((size_t)n * 24 + 1);
	bool ok = w.strv && obuf && w.hex && ids && tab_init(&w.strs, cap) && tab_init(&w.funcs, cap) &&
		  tab_init(&w.locs, cap);
	if (!ok) {
		wt_print("weft: cpuprofile: no memory to write the profile\n");
		goto out;
	}
	w.out = (struct pb){ obuf, 0, 1 << 16, fd, false };
	const char *fixed[] = { "samples", "count", type, unit, "task", "thread" };
	uint32_t fx[6];
	for (int i = 0; i < 6; i++)
		fx[i] = str_id(&w, fixed[i]);
	uint8_t vb[64], sb[64 + MAXF * 10 + 256];
	struct pb v = { vb, 0, sizeof vb, -1, false };
	pb_int(&v, 1, fx[0]), pb_int(&v, 2, fx[1]);
	pb_bytes(&w.out, 1, vb, v.n);
	v.n = 0;
	pb_int(&v, 1, fx[2]), pb_int(&v, 2, fx[3]);
	pb_bytes(&w.out, 1, vb, v.n);
	for (uint32_t i = from; i < n; i++) {
		struct rec *r = &recs[i];
		if (!atomic_load_explicit(&r->ready, memory_order_acquire))
			continue;
		uint32_t loc[MAXF];
		for (uint32_t k = 0; k < r->n; k++)
			loc[k] = loc_id(&w, r->pc[k], k == 0);
		struct pb s = { sb, 0, sizeof sb, -1, false };
		uint8_t packed[MAXF * 10], lb[96];
		struct pb pk = { packed, 0, sizeof packed, -1, false };
		for (uint32_t k = 0; k < r->n; k++)
			pb_var(&pk, loc[k]);
		pb_bytes(&s, 1, packed, pk.n);
		pk.n = 0;
		pb_var(&pk, r->ticks);
		pb_var(&pk, r->ns);
		pb_bytes(&s, 2, packed, pk.n);
		u64_str(ids[i], r->task);
		struct pb lab = { lb, 0, sizeof lb, -1, false };
		pb_int(&lab, 1, fx[4]);
		pb_int(&lab, 2, str_id(&w, ids[i]));
		pb_bytes(&s, 3, lb, lab.n);
		r->name[15] = 0;
		lab.n = 0;
		pb_int(&lab, 1, fx[5]);
		pb_int(&lab, 2, str_id(&w, r->name[0] ? r->name : r->task ? "?" : "weft"));
		pb_bytes(&s, 3, lb, lab.n);
		pb_bytes(&w.out, 2, sb, s.n);
	}
	pb_bytes(&w.out, 6, "", 0);
	for (uint32_t i = 0; i < w.nstr; i++) {
		const char *s = w.strv[i] ? w.strv[i] : "?";
		pb_bytes(&w.out, 6, s, strlen(s));
	}
	struct timespec t1;
	wt_syscall6(SYS_clock_gettime, CLOCK_REALTIME, (long)&t1, 0, 0, 0, 0);
	pb_int(&w.out, 9, (uint64_t)start->tv_sec * 1000000000ull + (uint64_t)start->tv_nsec);
	pb_int(&w.out, 10, (uint64_t)((t1.tv_sec - start->tv_sec) * 1000000000ll +
				      (t1.tv_nsec - start->tv_nsec)));
	v.n = 0;
	pb_int(&v, 1, fx[2]), pb_int(&v, 2, fx[3]);
	pb_bytes(&w.out, 11, vb, v.n);
	pb_int(&w.out, 12, PERIOD_NS);
	pb_flush(&w.out);
	ok = !w.out.err;
out:
	wunmap(w.strv, w.maxstr * sizeof *w.strv);
	wunmap(obuf, 1 << 16);
	wunmap(w.hex, cap * 24);
	wunmap(ids, (size_t)n * 24 + 1);
	wunmap(w.strs.key, cap * 8), wunmap(w.strs.val, cap * 4);
	wunmap(w.funcs.key, cap * 8), wunmap(w.funcs.val, cap * 4);
	wunmap(w.locs.key, cap * 8), wunmap(w.locs.val, cap * 4);
	return ok;
}

/* At exit (glibc runs libweft's destructor after the program's atexit
 * handlers and destructors). */
static void write_path(const char *f, struct rec *base, uint32_t n, const char *type,
		       const char *unit);

WT_DORMANT_TEXT __attribute__((destructor)) static void prof_at_exit(void)
{
	static _Atomic bool done;
	if (wt_pid != prof_pid || atomic_exchange(&done, true))
		return;
	if (at_start)
		write_path(wt_cfg.cpuprofile_path, recs,
			   atomic_load_explicit(&nrec, memory_order_relaxed), "cpu", "nanoseconds");
	if (mprof_at_start)
		write_path(wt_cfg.mutexprofile_path, mrecs,
			   atomic_load_explicit(&nmrec, memory_order_relaxed), "delay", "nanoseconds");
	if (bprof_at_start)
		write_path(wt_cfg.blockprofile_path, brecs,
			   atomic_load_explicit(&nbrec, memory_order_relaxed), "delay", "nanoseconds");
}

/* FILE with each "%p" replaced by the process id, written with the first
 * n of base (all there are): none if n is 0.  Context: the exit path. */
static void write_path(const char *f, struct rec *base, uint32_t n, const char *type,
		       const char *unit)
{
	char path[300], pid[24];
	size_t k = 0;
	u64_str(pid, (uint64_t)wt_pid);
	for (; *f && k + 24 < sizeof path; f++) {
		if (f[0] == '%' && f[1] == 'p') {
			for (const char *q = pid; *q; q++)
				path[k++] = *q;
			f++;
		} else {
			path[k++] = *f;
		}
	}
	path[k] = 0;
	if (!n)
		return;
	int fd = (int)wt_syscall6(SYS_openat, AT_FDCWD, (long)path,
				  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644, 0, 0);
	if (fd < 0) {
		wt_print("weft: %s profile: cannot write %s (%d); no profile\n", type, path, fd);
		return;
	}
	if (!encode(fd, base, 0, n > NREC ? NREC : n, &t0, type, unit))
		wt_print("weft: %s profile: cannot write %s; the profile is cut short\n", type, path);
	wt_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	if (n > NREC)
		wt_print("weft: %s profile: %u samples dropped (the buffer holds %u)\n", type,
			 n - NREC, NREC);
}

/* ---- weft profile PID: profiling for a while, on request ---- */

/* The profiler thread: one request's profile, then exit.  arg: the
 * request (sender << 32 | seconds << 20 | descriptor).  Opens the
 * sender's descriptor as weft stack's dump does (dump.c: a regular file,
 * empty and unnamed, else nothing is written), in a descriptor table of
 * its own (io/privfd.c); gives every worker a timer on its thread's CPU
 * clock for the seconds asked (workers made meanwhile make their own),
 * then deletes them and writes the samples taken meanwhile. */
static void waits_window(int fd, int kind, int secs);

static void *profiler(void *arg)
{
	uint64_t q = (uint64_t)(uintptr_t)arg;
	int kind = (int)(q >> 62);
	q &= ~(3ull << 62);
	int secs = (int)((q >> 20) & 0xfff), cfd = (int)(q & 0xfffff), sender = (int)(q >> 32);
	int fd = -1;
	if (wt_privfd_own(0) == 0) {
		char p[64];
		wt_snprintf(p, sizeof p, "/proc/%d/fd/%d", sender, cfd);
		fd = (int)wt_syscall6(SYS_openat, AT_FDCWD, (long)p,
				      O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0, 0, 0);
		struct stat st;
		if (fd >= 0 && (wt_syscall6(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) != 0 ||
				!S_ISREG(st.st_mode) || st.st_nlink != 0 || st.st_size != 0)) {
			wt_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
			fd = -1;
		}
	}
	if (fd >= 0 && kind != KIND_CPU) {
		waits_window(fd, kind, secs);
		goto done;
	}
	if (fd >= 0 && !recs) {
		void *p = wmap(NREC * sizeof(struct rec));
		if (p)
			recs = p; /* published to handlers by the timers' creation below */
	}
	if (fd < 0 || !recs)
		goto done;
	struct timespec start;
	wt_syscall6(SYS_clock_gettime, CLOCK_REALTIME, (long)&start, 0, 0, 0, 0);
	uint32_t from = atomic_load(&nrec), mark = atomic_load(&ntimer);
	wt_prof_on = true;
	bool was = atomic_exchange(&active, true);
	if (!was) {
		for (struct wt_m *m = atomic_load_explicit(&wt_sched.allm, memory_order_acquire); m;
		     m = m->alllink) {
			int tid = __atomic_load_n(&m->ostid, __ATOMIC_RELAXED);
			if (tid > 0) /* the thread's CPU clock: the kernel's MAKE_THREAD_CPUCLOCK */
				make_timer(tid, (clockid_t)(((unsigned)~tid << 3) | 6));
		}
	}
	struct timespec d = { secs, 0 };
	while (wt_syscall6(SYS_nanosleep, (long)&d, (long)&d, 0, 0, 0, 0) == -EINTR)
		;
	if (!was) {
		atomic_store(&active, false);
		uint32_t end = atomic_load(&ntimer);
		for (uint32_t k = mark; k < end && k < NTIMER; k++) {
			int id = atomic_exchange(&timers[k], 0);
			if (id)
				wt_syscall6(SYS_timer_delete, id - 1, 0, 0, 0, 0, 0);
		}
		if (end <= NTIMER)
			atomic_compare_exchange_strong(&ntimer, &end, mark);
	}
	uint32_t to = atomic_load(&nrec);
	encode(fd, recs, from < NREC ? from : NREC, to < NREC ? to : NREC, &start, "cpu", "nanoseconds");
done:
	if (fd >= 0)
		wt_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	atomic_fetch_sub(&wt_nthreads, 1);
	atomic_store(&busy, false);
	return NULL;
}

/* Context: sysmon, when weft profile asked (wt_prof_req).  One profile at
 * a time: a request while one runs is dropped (the caller's wait for its
 * file's end times out and says so). */
void wt_prof_poll(void)
{
	uint64_t q = atomic_exchange(&req, 0);
	if (!q || atomic_exchange(&busy, true))
		return;
	/* The kind in the top bits: a pid is below 2^22. */
	q |= (uint64_t)atomic_load_explicit(&req_kind, memory_order_relaxed) << 62;
	atomic_fetch_add(&wt_nthreads, 1);
	if (wt_thread_spawn(profiler, (void *)(uintptr_t)q, 256 << 10) != 0) {
		atomic_fetch_sub(&wt_nthreads, 1);
		atomic_store(&busy, false);
	}
}

bool wt_prof_req(void)
{
	return atomic_load_explicit(&req, memory_order_relaxed) != 0;
}

/* ---- the mutex profile ---- */

struct sampler;
static bool sampled(struct sampler *s, int64_t d, int64_t now, uint64_t *count, uint64_t *ns);
static int program_stack(uintptr_t *pcs, int max, bool entry);

/* [atomic, relaxed] the last unlock of each mutex while the profile is on, by a hash of its address: the mutex and the unlock's
 * call site.  A waiter that got the mutex charges its wait to that site
 * too (the holder that made it wait, as Go charges the unlocker); two
 * mutexes sharing a slot lose the holder's side of a sample, never blame
 * the wrong one (the address is compared). */
#define NUNLOCK 1024
static struct { _Atomic uintptr_t m, site; } unlocked[NUNLOCK];

static unsigned slot_of(const void *m)
{
	return (unsigned)(((uintptr_t)m * 0x9e3779b97f4a7c15ull) >> 54) & (NUNLOCK - 1);
}

void wt_mprof_unlock(const void *m, void *site)
{
	unsigned i = slot_of(m);
	atomic_store_explicit(&unlocked[i].site, (uintptr_t)site, memory_order_relaxed);
	atomic_store_explicit(&unlocked[i].m, (uintptr_t)m, memory_order_relaxed);
}

static void mrec(const uintptr_t *pcs, int n, uint64_t ns)
{
	struct rec *b = __atomic_load_n(&mrecs, __ATOMIC_ACQUIRE);
	uint32_t i = atomic_fetch_add_explicit(&nmrec, 1, memory_order_relaxed);
	if (!b || i >= NREC)
		return;
	struct rec *r = &b[i];
	struct wt_task *t = wt_cur();
	memcpy(r->pc, pcs, (size_t)n * sizeof *pcs);
	r->n = (uint16_t)n;
	r->ticks = 1;
	r->ns = ns;
	r->task = t ? t->id : 0;
	if (t)
		wt_task_name_copy(t, r->name);
	else
		memset(r->name, 0, sizeof r->name);
	atomic_store_explicit(&r->ready, 1, memory_order_release);
}

/* Context: the task that waited for m since t0 (wt_nanotime) and now holds
 * it; site: the program's call of the lock, NULL for weft's own (a
 * condition variable's re-lock).  Every wait is a record, its exact
 * delay charged to the waiter's call site and the holder's; the waiter's
 * stack above its call site is added to a sample of them, chosen by the
 * block profile's rule (above: about 200 a second at most, as each costs
 * a backtrace), so a profile's top lines are exact and its stacks
 * representative.  No allocation of the program's; keeps errno (a stack
 * may take the loader's lock: libunwind). */
void wt_mprof_waited(const void *m, void *site, int64_t t0)
{
	int64_t now = wt_nanotime(), d = now - t0;
	uint64_t count, sns;
	uintptr_t pcs[MAXF];
	int n = 0;
	if (d <= 0)
		d = 1;
	if (sampled(&msamp, d, now, &count, &sns)) {
		int e = errno;
		n = program_stack(pcs, MAXF, false);
		errno = e;
	}
	uintptr_t s = site ? (uintptr_t)site : (uintptr_t)__builtin_return_address(0);
	if (n == 0 || (site && pcs[0] != s)) {
		pcs[0] = s;
		n = 1;
	}
	mrec(pcs, n, (uint64_t)d);
	unsigned i = slot_of(m);
	uintptr_t hs = atomic_load_explicit(&unlocked[i].site, memory_order_relaxed);
	if (atomic_load_explicit(&unlocked[i].m, memory_order_relaxed) == (uintptr_t)m && hs)
		mrec(&hs, 1, (uint64_t)d);
}

/* ---- weft profile --mutex / --block: waits for a while, on request ---- */

/* The profiler thread, for a mutex or block profile of secs seconds into
 * fd: the records' buffer made if the process has none, the recording
 * turned on (and off again after, unless WEFTDEBUG asked for it from the
 * start), and the records taken meanwhile written. */
static void waits_window(int fd, int kind, int secs)
{
	bool block = kind == KIND_BLOCK;
	struct rec **buf = block ? &brecs : &mrecs;
	_Atomic uint32_t *cnt = block ? &nbrec : &nmrec;
	_Atomic bool *on = block ? &wt_bprof_on : &wt_mprof_on;
	bool keep = block ? bprof_at_start : mprof_at_start;
	if (block && !bprof_unwinder()) /* libunwind, loaded here rather than in a task's wait */
		return;
	if (!__atomic_load_n(buf, __ATOMIC_ACQUIRE)) {
		void *p = wmap(NREC * sizeof(struct rec));
		if (!p)
			return;
		__atomic_store_n(buf, (struct rec *)p, __ATOMIC_RELEASE);
	}
	struct timespec start;
	wt_syscall6(SYS_clock_gettime, CLOCK_REALTIME, (long)&start, 0, 0, 0, 0);
	uint32_t from = atomic_load(cnt);
	atomic_store(on, true);
	struct timespec d = { secs, 0 };
	while (wt_syscall6(SYS_nanosleep, (long)&d, (long)&d, 0, 0, 0, 0) == -EINTR)
		;
	if (!keep)
		atomic_store(on, false);
	uint32_t to = atomic_load(cnt);
	encode(fd, *buf, from < NREC ? from : NREC, to < NREC ? to : NREC, &start, "delay",
	       "nanoseconds");
}

/* ---- the block profile ---- */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30, x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27, x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* A sample by the rate above of a wait that began at t0 (wt_nanotime):
 * the task's stack from the interposed call the program made (libweft's
 * frames inside it dropped) by libunwind, its count and
 * delay. */
/* Is a wait of d ns that ended at now a sample, by s's rate (above)?
 * Then *count and *ns are what it stands for. */
static bool sampled(struct sampler *s, int64_t d, int64_t now, uint64_t *count, uint64_t *ns)
{
	atomic_fetch_add_explicit(&s->waited, d, memory_order_relaxed);
	int64_t end = atomic_load_explicit(&s->window, memory_order_relaxed);
	if (now >= end && atomic_compare_exchange_strong(&s->window, &end, now + BLOCK_WINDOW_NS)) {
		int64_t w = atomic_exchange_explicit(&s->waited, 0, memory_order_relaxed);
		int64_t r = end ? w / BLOCK_PER_WINDOW : BLOCK_RATE_MIN_NS;
		atomic_store_explicit(&s->rate, r > BLOCK_RATE_MIN_NS ? r : BLOCK_RATE_MIN_NS,
				      memory_order_relaxed);
	}
	int64_t rate = atomic_load_explicit(&s->rate, memory_order_relaxed);
	*count = 1, *ns = (uint64_t)d;
	if (d >= rate)
		return true;
	if ((int64_t)(mix((uint64_t)now ^ (uint64_t)d << 17) % (uint64_t)rate) >= d)
		return false;
	*count = (uint64_t)(rate / d);
	*ns = (uint64_t)rate;
	return true;
}

/* The caller's stack into pcs (at most max), from the program's frames:
 * libweft's own dropped, but for the outermost of them (the interposed
 * function the program called, whose name then leads) if `entry`.  0
 * without libunwind. */
static int program_stack(uintptr_t *pcs, int max, bool entry)
{
	const struct wt_unw *u = bprof_unwinder();
	ucontext_t uc;
	unw_cursor_t c;
	if (!u || getcontext(&uc) != 0 || u->init_local(&c, (unw_context_t *)&uc) < 0)
		return 0;
	uintptr_t f[MAXF + 8];
	int n = 0, k = 0, m = 0;
	do {
		unw_word_t ip;
		if (u->get_reg(&c, UNW_REG_IP, &ip) < 0 || ip == 0)
			break;
		f[n++] = (uintptr_t)ip;
	} while (n < MAXF + 8 && u->step(&c) > 0);
	while (k < n && wt_pc_in_weft(f[k]))
		k++;
	if (entry && k > 0 && k < n)
		k--;
	for (; k < n && m < max; k++)
		pcs[m++] = f[k];
	return m;
}

static void bprof_sample(int64_t t0)
{
	int64_t now = wt_nanotime(), d = now - t0;
	if (d <= 0)
		d = 1;
	uint64_t count, ns;
	struct rec *b = __atomic_load_n(&brecs, __ATOMIC_ACQUIRE);
	if (!sampled(&bsamp, d, now, &count, &ns) || !b)
		return;
	uintptr_t pcs[MAXF];
	int n = program_stack(pcs, MAXF, true);
	if (!n)
		return; /* no libunwind: said once by wt_unwind */
	uint32_t i = atomic_fetch_add_explicit(&nbrec, 1, memory_order_relaxed);
	if (i >= NREC)
		return;
	struct rec *r = &b[i];
	memcpy(r->pc, pcs, (size_t)n * sizeof *pcs);
	r->n = (uint16_t)n;
	r->ticks = (uint16_t)(count < 65535 ? count : 65535);
	r->ns = ns;
	struct wt_task *t = wt_cur();
	r->task = t ? t->id : 0;
	if (t)
		wt_task_name_copy(t, r->name);
	else
		memset(r->name, 0, sizeof r->name);
	atomic_store_explicit(&r->ready, 1, memory_order_release);
}

/* Context: a task that waited since t0 and runs again: after a park
 * (condition variables, joins, sleeps, the poller, mutexes, semaphores)
 * or a blocking system call.  May take the loader's lock (libunwind's
 * lookups); allocates nothing of the program's; keeps errno. */
void wt_bprof_waited(int64_t t0)
{
	int e = errno;
	bprof_sample(t0);
	errno = e;
}
