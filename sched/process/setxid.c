/*
 * setxid.c — a change of credentials reaches every OS thread of the process.
 *
 * On Linux a thread's user and group ids, saved ids and supplementary
 * groups are its own: the setuid family of system calls changes only the
 * calling thread.  POSIX says they are the process's, so glibc applies a
 * change to each of its threads in turn (SIGSETXID, __nptl_setxid) and
 * waits for them all.  Under weft that machinery cannot work: glibc finds
 * its threads by their struct pthread, and the one a worker runs under
 * changes with every task switch (so a handler clears the SETXID flag in a
 * task's TCB while glibc waits on the worker's, for ever), and a worker
 * that glibc signals may itself wait for glibc's stack lock, which the
 * caller holds through the whole change.
 *
 * So weft does what glibc does, for the threads the kernel sees: every
 * entry of /proc/self/task — workers running tasks or idle, threads in
 * the real-thread fallback, sysmon, threads weft did not create — makes
 * the same system call, then the caller makes it last (so that it still
 * may signal the others, as glibc orders it).
 *
 * Protocol (wt_setxid, one change at a time under setxid_lock):
 *   1. publish the operation (system call and arguments, a table of tids
 *      with a state each) in `cur`;
 *   2. list /proc/self/task; each tid not yet in the table is added as
 *      SENT and sent SIGURG with si_value = the operation's address (the
 *      preemption handler hands such a signal here: wt_setxid_signal);
 *      sysmon and the helper that opens weft's files (io/privfd.c), which
 *      block every signal but the faults, are kicked and look themselves
 *      (wt_setxid_poll).  The listing is read in the helper's table of
 *      descriptors, never the program's.  Without the listing (no /proc) the
 *      threads weft made stand in for it: its workers, sysmon, the helper;
 *   3. the thread's handler finds its tid SENT, claims it (SENT ->
 *      APPLYING, a CAS, so a thread applies a change once even if the
 *      signal came twice), makes the call, records its result, marks it
 *      DONE and counts `pending` down;
 *   4. the caller waits for pending to reach 0, looking again every
 *      10 ms: a SIGURG already pending on a thread (a preemption request)
 *      swallows ours, since standard signals do not queue, so a thread
 *      still SENT is signalled again; one that left /proc/self/task exited
 *      (GONE); a new thread was cloned by one not yet changed, so it is
 *      added.  A pass that finds nobody new and nobody pending ends it;
 *      after two seconds of waiting one weft: line names who is late;
 *   5. the caller's own call.  All results must agree, as glibc requires
 *      (it aborts otherwise): the same error everywhere is the call's
 *      error (EPERM for an unprivileged caller), a mix is fatal.
 * A thread cloned after the last pass was cloned by a changed thread, so
 * it has the new ids already.  The table is reused by the next change,
 * after the last thread that may have loaded `cur` left (`readers`).
 *
 * Rejected: making glibc's machinery work (its thread list is of struct
 * pthreads, which weft's workers share with tasks); a request field per
 * worker (threads weft did not create have none, and glibc's own helper
 * threads must change too).
 *
 * Context: the caller is a task or any thread; it blocks its worker (a
 * change of ids is rare: daemons at start).  The handler side runs in a
 * signal handler on any thread: raw system calls and atomics only.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>

#include "core/runtime.h"
#include "base/print.h"
#include "io/privfd.h"
#include "io/readfile.h"
#include "setxid.h"
#include "vfork.h"
#include "signal/sigtask.h"
#include "base/slab.h"
#include "core/sysmon.h"
#include "base/throw.h"
#include "core/timer.h"
#include "core/worker.h"

enum { SLOT_FREE = 0, SLOT_SENT, SLOT_APPLYING, SLOT_DONE, SLOT_GONE };

struct slot {
	_Atomic int tid;                /* [atomic] 0 = free; set once by the caller */
	_Atomic int state;              /* [atomic] SLOT_* */
};

struct op {
	long nr, a, b, c;               /* [const] the system call */
	_Atomic int pending;            /* [atomic] SENT or APPLYING slots; futex word */
	_Atomic int err;                /* [atomic] first result: 0 or an errno, -1 none yet */
	_Atomic int mixed;              /* [atomic] results disagreed */
	unsigned mask;                  /* [const] slots - 1 (a power of two) */
	struct slot *slot;              /* [const] open addressing by tid */
	int self;                       /* [const] the caller's tid */
};

static wt_lock_t setxid_lock = WT_LOCK_INIT(WT_RANK_SETXID);
static struct op *_Atomic cur;      /* [atomic] the operation in progress */
/* Threads between their load of cur and the end of their share (apply).
 * The next change reuses the table only once this is 0: a thread that
 * loaded cur just before the last change ended may still be reading it.
 * seq_cst: reader counts up then loads cur; the caller clears cur then
 * reads the count, so a reader it does not count sees NULL or a new op. */
static _Atomic int readers;         /* [atomic] */

static unsigned hash(int tid, unsigned mask)
{
	return ((unsigned)tid * 2654435761u) & mask;
}

/* The slot of tid, or NULL.  Any context. */
static struct slot *find(struct op *op, int tid)
{
	for (unsigned i = hash(tid, op->mask), n = 0; n <= op->mask; i = (i + 1) & op->mask, n++) {
		int t = atomic_load_explicit(&op->slot[i].tid, memory_order_acquire);
		if (t == tid)
			return &op->slot[i];
		if (t == 0)
			return NULL;
	}
	return NULL;
}

static void record(struct op *op, int err)
{
	int none = -1;
	if (!atomic_compare_exchange_strong(&op->err, &none, err) && none != err)
		atomic_store(&op->mixed, 1);
}

/* This thread's share of op, if it has one to do.  Context: the SIGURG
 * handler or sysmon, on any thread. */
static void apply(struct op *op)
{
	int tid = (int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	struct slot *s = find(op, tid);
	int sent = SLOT_SENT;
	if (!s || !atomic_compare_exchange_strong(&s->state, &sent, SLOT_APPLYING))
		return;
	long r = wt_syscall6(op->nr, op->a, op->b, op->c, 0, 0, 0);
	record(op, r < 0 ? (int)-r : 0);
	atomic_store_explicit(&s->state, SLOT_DONE, memory_order_release);
	if (atomic_fetch_sub(&op->pending, 1) == 1)
		wt_futex_wake(&op->pending, 1, false);
}

bool wt_setxid_signal(const siginfo_t *si)
{
	if (si->si_code != SI_QUEUE || si->si_pid != wt_pid)
		return false;
	atomic_fetch_add(&readers, 1);
	struct op *op = atomic_load(&cur);
	bool ours = op && si->si_value.sival_ptr == (void *)op;
	if (ours)
		apply(op);
	atomic_fetch_sub(&readers, 1);
	return ours;
}

/* Fork child: the operation, if any, belonged to the parent's threads. */
void wt_setxid_fork_reset(void)
{
	atomic_store_explicit(&cur, NULL, memory_order_relaxed);
	atomic_store_explicit(&readers, 0, memory_order_relaxed);
	atomic_store_explicit(&setxid_lock.v, 0, memory_order_relaxed);
}

void wt_setxid_poll(void)
{
	if (!atomic_load_explicit(&cur, memory_order_relaxed))
		return;
	atomic_fetch_add(&readers, 1);
	struct op *op = atomic_load(&cur);
	if (op)
		apply(op);
	atomic_fetch_sub(&readers, 1);
}

static void send(struct op *op, int tid)
{
	wt_sig_urg_send(tid, (union sigval){ .sival_ptr = op });
}

/* Takes tid into op (added as SENT and signalled) unless it is the caller
 * or there already; one still SENT is signalled again when resend.
 * Returns 1 when tid was new.  Context: the caller of wt_setxid. */
static int take(struct op *op, int tid, int *listed, int cap, int *n, bool resend)
{
	if (tid <= 0 || tid == op->self)
		return 0;
	if (*n < cap)
		listed[(*n)++] = tid;
	struct slot *s = find(op, tid);
	if (!s) {
		if (*n > (int)(op->mask / 2))
			wt_throw("credentials change: too many threads");
		unsigned i = hash(tid, op->mask);
		while (atomic_load_explicit(&op->slot[i].tid, memory_order_relaxed))
			i = (i + 1) & op->mask;
		atomic_store_explicit(&op->slot[i].state, SLOT_SENT, memory_order_relaxed);
		atomic_fetch_add(&op->pending, 1);
		/* Release: the handler's find sees the state with the tid. */
		atomic_store_explicit(&op->slot[i].tid, tid, memory_order_release);
		send(op, tid);
		return 1;
	}
	if (resend && atomic_load(&s->state) == SLOT_SENT)
		send(op, tid);
	return 0;
}

/* Without /proc/self/task (no /proc, or no helper thread for weft's own
 * descriptors), the threads weft knows: its workers, sysmon and that
 * helper.  Every
 * pthread is a task on a worker, so only threads made by a raw clone, or
 * running before weft started, are missed; the first time, one weft: line
 * says so.  A worker whose thread exited has ostid 0 (take skips it), so
 * none turns GONE.  Context: the caller
 * of wt_setxid. */
static int take_known(struct op *op, long err, int *listed, int cap, int *n, bool resend)
{
	static bool said; /* [setxid_lock] */
	if (!said) {
		said = true;
		wt_print("weft: setuid family: cannot list /proc/self/task (errno %ld); the change "
			 "is made on weft's own threads only\n", -err);
	}
	int added = 0;
	for (struct wt_m *m = atomic_load_explicit(&wt_sched.allm, memory_order_acquire); m;
	     m = m->alllink)
		added += take(op, m->ostid, listed, cap, n, resend);
	added += take(op, atomic_load_explicit(&wt_sysmon_tid, memory_order_relaxed), listed, cap,
		      n, resend);
	added += take(op, wt_privfd_tid(), listed, cap, n, resend);
	return added;
}

/* One pass over /proc/self/task: adds and signals new threads, signals
 * again those still SENT, marks GONE those that exited.  Returns how many
 * threads were new.  Context: the caller of wt_setxid. */
static int pass(struct op *op, int *listed, int cap, bool resend)
{
	static char buf[8192] WT_BSS_LARGE;
	int n = 0, added = 0;
	long fd = wt_privfd_syscall(SYS_openat, AT_FDCWD, (long)"/proc/self/task",
				    O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0) {
		added = take_known(op, fd, listed, cap, &n, resend);
		wt_sysmon_kick();
		wt_privfd_kick();
		return added;
	}
	for (;;) {
		long got = wt_privfd_syscall(SYS_getdents64, fd, (long)buf, sizeof buf, 0, 0, 0);
		if (got <= 0)
			break;
		for (long off = 0; off < got;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			off += d->d_reclen;
			int tid = 0;
			for (const char *p = d->d_name; *p >= '0' && *p <= '9'; p++)
				tid = tid * 10 + (*p - '0');
			added += take(op, tid, listed, cap, &n, resend);
		}
	}
	wt_privfd_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
	/* A SENT thread that is not listed any more has exited. */
	if (n < cap) {
		for (unsigned i = 0; i <= op->mask; i++) {
			int tid = atomic_load(&op->slot[i].tid);
			if (!tid || atomic_load(&op->slot[i].state) != SLOT_SENT)
				continue;
			bool seen = false;
			for (int k = 0; k < n && !seen; k++)
				seen = listed[k] == tid;
			int sent = SLOT_SENT;
			if (!seen && atomic_compare_exchange_strong(&op->slot[i].state, &sent, SLOT_GONE) &&
			    atomic_fetch_sub(&op->pending, 1) == 1)
				wt_futex_wake(&op->pending, 1, false);
		}
	}
	/* sysmon and io/privfd.c's helper block SIGURG: they look at cur
	 * themselves. */
	wt_sysmon_kick();
	wt_privfd_kick();
	return added;
}

static void say_late(struct op *op)
{
	char line[256];
	int len = wt_snprintf(line, sizeof line, "weft: setuid family: waiting for threads");
	int shown = 0;
	for (unsigned i = 0; i <= op->mask && shown < 8; i++)
		if (atomic_load(&op->slot[i].tid) && atomic_load(&op->slot[i].state) == SLOT_SENT) {
			len += wt_snprintf(line + len, sizeof line - len, " %d",
					   atomic_load(&op->slot[i].tid));
			shown++;
		}
	wt_print("%s to take the change (they block SIGURG or sleep uninterruptibly)\n", line);
}

/* Threads still SENT after a second that block SIGURG in the kernel's own
 * mask are dropped (GONE), with a weft: line: no thread of the program can
 * block it (the shim strips it from masks), so such a thread is not the
 * program's and the change cannot reach it: under qemu-user, the
 * emulator's own threads, which /proc/self/task lists too.  sysmon blocks
 * every signal and looks for itself.  weft's own threads block every
 * signal only for short windows (a clone, a retiring worker on its way
 * out), where a pending SIGURG waits; a second covers them on a loaded
 * machine (after 100 ms, a retiring worker was dropped at a load of 300
 * and still listed with the old ids when setgid returned).  Context: the
 * caller of wt_setxid. */
static void drop_unreachable(struct op *op)
{
	int sysmon = atomic_load_explicit(&wt_sysmon_tid, memory_order_relaxed);
	for (unsigned i = 0; i <= op->mask; i++) {
		int tid = atomic_load(&op->slot[i].tid);
		if (!tid || tid == sysmon || tid == wt_privfd_tid() ||
		    atomic_load(&op->slot[i].state) != SLOT_SENT)
			continue;
		char path[64], buf[2048];
		wt_snprintf(path, sizeof path, "/proc/self/task/%d/status", tid);
		if (wt_read_file(path, buf, sizeof buf) <= 0)
			continue;
		const char *p = strstr(buf, "\nSigBlk:");
		if (!p)
			continue;
		unsigned long long blk = 0;
		for (p += 9; *p == '\t' || *p == ' '; p++)
			;
		for (; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'); p++)
			blk = blk * 16 + (unsigned)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
		int sent = SLOT_SENT;
		if (!(blk & (1ull << (SIGURG - 1))) ||
		    !atomic_compare_exchange_strong(&op->slot[i].state, &sent, SLOT_GONE))
			continue;
		wt_print("weft: setuid family: thread %d blocks SIGURG, as no thread of the program "
			 "can (under qemu-user: the emulator's own); the change is not made on it\n", tid);
		if (atomic_fetch_sub(&op->pending, 1) == 1)
			wt_futex_wake(&op->pending, 1, false);
	}
}

long wt_setxid(long nr, long a, long b, long c)
{
	/* A vfork child is a process of one thread: the parent's keep theirs. */
	if (wt_vfork_child())
		return wt_syscall6(nr, a, b, c, 0, 0, 0);
	wt_lock(&setxid_lock);
	/* Room for every thread weft has and many it did not make, the table at
	 * most half full.  The mapping is kept for the next change (a handler
	 * of this one may still read it after it ended); a bigger one replaces
	 * it, and the old one is left mapped for the same reason. */
	static struct op *mem;
	static long memcap;
	long cap = 4096;
	while (cap < 4l * (atomic_load(&wt_nthreads) + 1024))
		cap *= 2;
	size_t bytes = sizeof(struct op) + cap * sizeof(struct slot) + cap / 2 * sizeof(int);
	if (cap > memcap) {
		struct op *fresh = wt_mmap_anon(bytes);
		if (!fresh) {
			wt_unlock(&setxid_lock);
			return -EAGAIN;
		}
		mem = fresh;
		memcap = cap;
	} else {
		cap = memcap;
		bytes = sizeof(struct op) + cap * sizeof(struct slot) + cap / 2 * sizeof(int);
		memset(mem, 0, bytes);
	}
	struct op *op = mem;
	op->nr = nr, op->a = a, op->b = b, op->c = c;
	op->err = -1;
	op->mask = (unsigned)cap - 1;
	op->slot = (struct slot *)(op + 1);
	op->self = (int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	int *listed = (int *)(op->slot + cap);
	/* Release: pairs with the handlers' acquire load of cur. */
	atomic_store_explicit(&cur, op, memory_order_release);
	int64_t start = wt_nanotime();
	bool said = false;
	bool resend = false;
	for (;;) {
		int added = pass(op, listed, (int)(cap / 2), resend);
		resend = true;
		/* The deadline is the pass's, not the wait's: a signal that cuts a
		 * wait short (sysmon's probes of this blocked worker) must not
		 * put the next pass off for ever. */
		int64_t until = wt_nanotime() + 10000000;
		struct timespec ts = { until / 1000000000, until % 1000000000 };
		int left;
		while ((left = atomic_load(&op->pending)) != 0 && wt_nanotime() < until)
			wt_futex_wait(&op->pending, left, &ts, false);
		if (atomic_load(&op->pending) && wt_nanotime() - start > 1000000000)
			drop_unreachable(op);
		if (!said && atomic_load(&op->pending) && wt_nanotime() - start > 2000000000) {
			say_late(op);
			said = true;
		}
		if (added == 0 && atomic_load(&op->pending) == 0)
			break;
	}
	atomic_store(&cur, NULL);
	/* A reader of this op finishes before the table is reused. */
	while (atomic_load(&readers))
		wt_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
	long r = wt_syscall6(nr, a, b, c, 0, 0, 0);
	record(op, r < 0 ? (int)-r : 0);
	if (r == 0)
		wt_sig_uid_refresh(); /* the sender's real id in a siginfo of weft's */
	bool mixed = atomic_load(&op->mixed);
	wt_unlock(&setxid_lock);
	if (mixed) {
		wt_print("weft: a change of user or group ids succeeded on some threads and "
			 "failed on others; stopping, as glibc does\n");
		wt_throw("credentials differ between threads");
	}
	return r;
}
