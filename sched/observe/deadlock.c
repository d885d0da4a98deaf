/*
 * deadlock.c — deadlock reports: tasks that wait for each other for ever,
 * found by sysmon and printed as Go prints "all goroutines are asleep",
 * but for a cycle among the rest of a running program too.
 *
 *   weft: deadlock: 2 tasks wait for each other and will wait for ever:
 *   weft: deadlock:   task 2 "A" waits for mutex 0x55d0c0a0e0a0, held by task 3 "B"
 *   weft: deadlock:   task 3 "B" waits for mutex 0x55d0c0a0e0c8, held by task 2 "A"
 *   task 2 [pthread_mutex_lock on 0x55d0c0a0e0a0, 1204 ms]:
 *     thread name A
 *     #0  ... (the backtrace, as the SIGQUIT dump prints it)
 *   ...
 *   weft: deadlock: end of report; the program goes on waiting, as it
 *   would natively (WEFTDEBUG=deadlock=abort exits with 134, ...)
 *
 * The nouns.  A task waits on a key of the parking lot (core/park.c records it
 * in t->wait_on, the call that parked in t->wait_reason).  Four kinds of
 * wait name an object that a task holds:
 *   mutex      pthread_mutex_lock parks on &m->__lock, the mutex's first
 *              word; its holder's tid is in m->__owner, as glibc keeps it
 *              (tasks have unique fake tids: 0x40000000 | id, main's
 *              WT_MAIN_TID), for every kind weft runs (normal, recursive,
 *              errorcheck, adaptive, priority-inheritance, private
 *              priority-protect);
 *   rwlock, to write  parks on &l->__writers; held by the writer whose tid
 *              is in l->__cur_writer, or by its readers, which glibc does
 *              not record: each task notes the rwlocks it holds for
 *              reading in four slots of its own (deadlock.h:
 *              wt_deadlock_rdheld, a load and a store in rdlock and
 *              rdunlock; a fifth read hold at once goes unrecorded and a
 *              cycle through it unreported);
 *   rwlock, to read  parks on &l->__readers; held by its writer;
 *   join       pthread_join parks on &target->join: the target holds it.
 * A wait with a deadline (pthread_mutex_timedlock, a timed join: its
 * timer is queued) ends by itself and is no edge.  Any other wait (a
 * condition variable, a semaphore, a sleep, the poller, a signal wait, a
 * blocking call, a process-shared or robust mutex, which glibc runs in the
 * kernel) names nobody who could be waiting for the waiter: it ends no
 * cycle, and a cycle is never reported through it.  The runtime starts
 * with a program's second thread (core/start.c): a program that never made
 * one waits natively and is not looked at.
 *
 * Protocol (sysmon, every look, about twice a second; nothing on any lock
 * or wait path but the read-hold note):
 *   1. under sched.alllock, only tried (sysmon never waits for a lock a
 *      stuck worker may hold), note every task that is WAITING, has waited
 *      on the same key for at least WAIT_MIN by its wait_since, in one of
 *      the four waits, with its resumes count (bumped at every switch in);
 *   2. read each object's holder word (and the waiters' read-hold slots)
 *      through process_vm_readv on the process itself: a word of memory
 *      the program may have freed meanwhile costs an EFAULT, never a
 *      fault in sysmon;
 *   3. build the wait-for graph on those tasks (an edge from each waiter to
 *      each holder that is itself one of them) and find its cycles by a
 *      depth-first walk;
 *   4. read again, for each task of a cycle, its state, resumes, key and
 *      waiter state: a task that ran between 1 and 4 drops the cycle.
 *      Every task of the cycle was parked throughout the reads of step 2,
 *      so none could release what it held meanwhile: each holder read was
 *      the holder for the whole interval, and each wait a real one.  That
 *      is a deadlock: nothing in the cycle can run again unless a signal
 *      handler or a cancel ends a wait, which natively would end it too;
 *   5. hand the text and the tasks to dump.c (wt_dump_report), whose
 *      thread prints each task with its backtrace, then the program goes
 *      on waiting, or exits with 134 (deadlock=abort).  A task reported
 *      is remembered by (id, wait_since): never reported twice for the
 *      same wait, and a cycle with one is not reported again.
 *
 * WEFTDEBUG=deadlock=all adds the other report: every task of the program
 * waits (for at least WAIT_MIN) in a wait that only another task ends (a
 * mutex, an rwlock, a join, a condition variable or a semaphore without a
 * deadline, a barrier, pthread_once, a private futex), no timer is pending
 * and no worker is in a system call.  Then nothing inside the process can
 * wake any of them; a signal from outside still could, which is why it is
 * not on by default: a daemon whose main waits on a semaphore its SIGTERM
 * handler posts is idle, not stuck.  A thread weft did not create is no
 * task and is not seen: it may wake the tasks.
 *
 * How often: sysmon sleeps at most 10 ms while the program has made a
 * task and every proc is idle (as a stuck program's are), and 1 s while it
 * never made one (then next_procs bounds its sleep): a look every LOOK_NS
 * costs one walk of the task list, about 10 ns a task, and a system call
 * per waiting task of the four kinds that waited WAIT_MIN.  A cycle is
 * reported WAIT_MIN to WAIT_MIN + LOOK_NS after its last edge appeared.
 *
 * Cost on the lock paths: with deadlock reports on (the default), an
 * uncontended pthread_rwlock_rdlock + unlock pair took 20.4 ns against
 * 19.2 ns with deadlock=off (median of 6 runs of 5 million pairs; native
 * glibc 14.2 ns); mutexes, joins and every park pay nothing.
 *
 * Limits: at most MAXN waiting tasks are looked at in one look (the
 * first ones of the task list), and MAXREP tasks reported in a process's
 * life; a report shows at most WT_DUMP_REPORT_MAX backtraces.
 *
 * Rejected: a check on every park (a lookup of the holder on every
 * contended lock, which the hand-off benchmark's 100,000s of parks a
 * second would pay for a cycle that is rare); reading the holder words
 * directly (a waiter may wake, and the program free and unmap the mutex,
 * between the look at the task and the read: a SIGSEGV in sysmon);
 * counting readers in a table keyed by rwlock (a lock and a lookup on
 * every rdlock, where the slots cost 1.2 ns).
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <pthread.h>

#include "core/runtime.h"
#include "core/config.h"
#include "deadlock.h"
#include "dump.h"
#include "base/lock.h"
#include "core/park.h"
#include "base/print.h"
#include "base/real.h"
#include "signal/sigtask.h"
#include "core/start.h"
#include "core/task.h"
#include "core/timer.h"

#define LOOK_NS 500000000ll         /* a look every 0.5 s */
#define WAIT_MIN 1000000000ll       /* a wait of 1 s before it counts */
#define MAXN 512                    /* waiting tasks looked at, per look */
#define MAXREP 256                  /* tasks remembered as reported */

enum kind { K_OTHER, K_MUTEX, K_WRLOCK, K_RDLOCK, K_JOIN, K_IDLE };

struct node {
	struct wt_task *t;
	uint64_t id;
	int tid;
	uint32_t resumes;
	const void *on;                 /* wait_on */
	int64_t since;                  /* wait_since */
	enum kind kind;
	const void *obj;                /* the mutex, the rwlock; the joined task */
	int holder;                     /* holder's tid read from obj, 0 = none */
	const void *rd[4];              /* the rwlocks it holds for reading */
	/* the depth-first walk */
	int color;                      /* 0 new, 1 on the path, 2 done */
	int cursor;                     /* next successor to try */
};

/* [sysmon] one look at a time */
static struct node nodes[MAXN] WT_BSS_LARGE;
static int path[MAXN] WT_BSS_LARGE;
static char text[8192] WT_BSS_LARGE;
static struct { uint64_t id; int64_t since; } reported[MAXREP];
static int nreported;
static int64_t next_look;
static bool all_reported;           /* the all-asleep report went out */

static bool is(const char *a, const char *b)
{
	return a && !strcmp(a, b);
}

/* deadline: the wait has one (its timer is queued), so it ends by itself:
 * no edge, however long it lasts. */
static enum kind kind_of(const char *why, bool deadline)
{
	if (deadline)
		return K_OTHER;
	if (is(why, "pthread_mutex_lock"))
		return K_MUTEX;
	if (is(why, "pthread_rwlock_wrlock"))
		return K_WRLOCK;
	if (is(why, "pthread_rwlock_rdlock"))
		return K_RDLOCK;
	if (is(why, "pthread_join"))
		return K_JOIN;
	/* Waits only another task ends (deadlock=all). */
	if (is(why, "pthread_cond_wait") || is(why, "sem_wait") || is(why, "pthread_barrier_wait") ||
	    is(why, "pthread_once") || is(why, "futex"))
		return K_IDLE;
	return K_OTHER;
}

/* len bytes at the program's addr, or -EFAULT: a read that cannot fault. */
static int peek(const void *addr, void *out, size_t len)
{
	struct iovec l = { out, len }, r = { (void *)addr, len };
	long n = wt_syscall6(SYS_process_vm_readv, wt_pid, (long)&l, 1, (long)&r, 1, 0);
	return n == (long)len ? 0 : -EFAULT;
}

static bool was_reported(uint64_t id, int64_t since)
{
	for (int i = 0; i < nreported; i++)
		if (reported[i].id == id && reported[i].since == since)
			return true;
	return false;
}

static int find_tid(int n, int tid)
{
	if (!tid)
		return -1;
	for (int j = 0; j < n; j++)
		if (nodes[j].tid == tid)
			return j;
	return -1;
}

/* The next successor of node i in the wait-for graph, or -1. */
static int successor(int n, int i)
{
	struct node *a = &nodes[i];
	if (a->kind == K_JOIN) {
		if (a->cursor++)
			return -1;
		for (int j = 0; j < n; j++)
			if (nodes[j].t == a->obj)
				return j;
		return -1;
	}
	if (a->holder) { /* a mutex's owner, an rwlock's writer */
		if (a->cursor++)
			return -1;
		return find_tid(n, a->holder);
	}
	if (a->kind != K_WRLOCK)
		return -1;
	while (a->cursor < n) { /* an rwlock's readers */
		int j = a->cursor++;
		for (int k = 0; k < 4; k++)
			if (nodes[j].rd[k] == a->obj)
				return j;
	}
	return -1;
}

/* Step 4: every task of the cycle still in the wait step 1 saw. */
static bool still(const int *c, int len)
{
	for (int k = 0; k < len; k++) {
		struct node *a = &nodes[c[k]];
		struct wt_task *t = a->t;
		/* Acquire: pairs with the release fence in wt_task_resumed. */
		if (atomic_load_explicit(&t->resumes, memory_order_acquire) != a->resumes ||
		    atomic_load_explicit(&t->state, memory_order_acquire) != WT_WAITING ||
		    t->id != a->id || t->wait_on != a->on || t->wait_since != a->since ||
		    atomic_load_explicit(&t->waiter.state, memory_order_relaxed) != WT_WAITER_WAITING)
			return false;
	}
	return true;
}

/* The report's text so far: text[0 .. tlen), cut at its end.  [sysmon] */
static size_t tlen;

static void add(const char *s)
{
	while (*s && tlen < sizeof text - 1)
		text[tlen++] = *s++;
	text[tlen] = 0;
}

static void add_task(const struct node *a)
{
	char name[16], line[64];
	wt_task_name_copy(a->t, name);
	if (name[0])
		wt_snprintf(line, sizeof line, "task %lu \"%s\"", (unsigned long)a->id, name);
	else
		wt_snprintf(line, sizeof line, "task %lu", (unsigned long)a->id);
	add(line);
}

/* One line of a cycle: a waits for b. */
static void edge_line(const struct node *a, const struct node *b)
{
	char what[96];
	add("weft: deadlock:   ");
	add_task(a);
	switch (a->kind) {
	case K_MUTEX:
		wt_snprintf(what, sizeof what, " waits for mutex %p, held by ", a->obj);
		break;
	case K_WRLOCK:
		wt_snprintf(what, sizeof what, " waits to write-lock rwlock %p, %s by ", a->obj,
			    a->holder ? "write-locked" : "read-locked");
		break;
	case K_RDLOCK:
		wt_snprintf(what, sizeof what, " waits to read-lock rwlock %p, write-locked by ",
			    a->obj);
		break;
	default:
		wt_snprintf(what, sizeof what, " waits to join ");
		break;
	}
	add(what);
	add_task(b);
	add(a->kind == K_JOIN ? ", which has not exited\n" : "\n");
}

static void remember(const struct node *a)
{
	if (nreported < MAXREP) {
		reported[nreported].id = a->id;
		reported[nreported].since = a->since;
		nreported++;
	}
}

static const char tail_on[] =
	"weft: deadlock: end of report; the program goes on waiting, as it would natively "
	"(WEFTDEBUG=deadlock=abort exits with 134, deadlock=off silences this)\n";
static const char tail_abort[] = "weft: deadlock: end of report; exit status 134 "
				 "(WEFTDEBUG=deadlock=abort)\n";

static bool report(const int *c, int len_c)
{
	struct wt_task *ts[WT_DUMP_REPORT_MAX];
	uint64_t ids[WT_DUMP_REPORT_MAX];
	int n = len_c < WT_DUMP_REPORT_MAX ? len_c : WT_DUMP_REPORT_MAX;
	for (int k = 0; k < n; k++) {
		ts[k] = nodes[c[k]].t;
		ids[k] = nodes[c[k]].id;
	}
	bool abort = wt_cfg.deadlock == WT_DEADLOCK_ABORT;
	return wt_dump_report(text, abort ? tail_abort : tail_on, ts, ids, n, abort ? 134 : 0);
}

/* Steps 3-5 for the cycles through node s; false: a report could not
 * start (a dump is under way), try at the next look. */
static bool walk_from(int n, int s)
{
	int depth = 0;
	path[depth++] = s;
	nodes[s].color = 1;
	while (depth) {
		int i = path[depth - 1];
		int j = successor(n, i);
		if (j < 0) {
			nodes[i].color = 2;
			depth--;
			continue;
		}
		if (nodes[j].color == 0) {
			nodes[j].color = 1;
			nodes[j].cursor = 0;
			path[depth++] = j;
			continue;
		}
		if (nodes[j].color != 1)
			continue;
		/* A cycle: path from j to the top. */
		int from = depth - 1;
		while (path[from] != j)
			from--;
		const int *c = &path[from];
		int len_c = depth - from;
		bool old = false;
		for (int k = 0; k < len_c; k++)
			old |= was_reported(nodes[c[k]].id, nodes[c[k]].since);
		/* A cycle it could not remember would be reported at every
		 * look: none beyond MAXREP tasks reported. */
		if (old || nreported + len_c > MAXREP || !still(c, len_c))
			continue;
		char head[96];
		wt_snprintf(head, sizeof head,
			    len_c == 1 ? "weft: deadlock: a task waits for itself and will wait for ever:\n"
				       : "weft: deadlock: %d tasks wait for each other and will wait for ever:\n",
			    len_c);
		tlen = 0;
		add(head);
		for (int k = 0; k < len_c; k++)
			edge_line(&nodes[c[k]], &nodes[c[(k + 1) % len_c]]);
		bool started = report(c, len_c);
		if (started)
			for (int k = 0; k < len_c; k++)
				remember(&nodes[c[k]]);
		/* One report a look (dump.c prints one at a time): the walk
		 * ends, and no later walk of this look finds its path. */
		while (depth)
			nodes[path[--depth]].color = 2;
		return started;
	}
	return true;
}

/* deadlock=all: every task noted, all in waits only another task ends. */
static void all_asleep(int n, int ntasks)
{
	if (all_reported || n != ntasks || n == 0 || wt_timer_next() != INT64_MAX)
		return;
	for (int i = 0; i < n; i++)
		if (nodes[i].kind == K_OTHER)
			return;
	for (struct wt_m *m = atomic_load_explicit(&wt_sched.allm, memory_order_acquire); m;
	     m = m->alllink)
		if (m->ostid && m->insyscall)
			return;
	int c[WT_DUMP_REPORT_MAX];
	int k = n < WT_DUMP_REPORT_MAX ? n : WT_DUMP_REPORT_MAX;
	for (int i = 0; i < k; i++)
		c[i] = i;
	for (int i = 0; i < n; i++)
		path[i] = i;
	if (!still(path, n))
		return;
	char head[160];
	wt_snprintf(head, sizeof head,
		    "weft: deadlock: all %d tasks wait, and no timer, poller, system call or "
		    "other task can wake them:\n", n);
	tlen = 0;
	add(head);
	if (report(c, k))
		all_reported = true;
}

/* Context: sysmon.  No parking, no allocation; tries sched.alllock. */
void wt_deadlock_look(int64_t now)
{
	if (wt_cfg.deadlock == WT_DEADLOCK_OFF || now < next_look)
		return;
	next_look = now + LOOK_NS;
	if (!wt_trylock(&wt_sched.alllock))
		return;
	/* Step 1. */
	struct timespec ts;
	wt_clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	int64_t coarse = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	int n = 0, ntasks = 0;
	bool all = wt_cfg.deadlock == WT_DEADLOCK_ALL;
	for (struct wt_task *t = wt_sched.alltasks; t; t = t->alllink) {
		int st = atomic_load_explicit(&t->state, memory_order_acquire);
		if (st == WT_DEAD)
			continue;
		ntasks++;
		if (st != WT_WAITING || n == MAXN)
			continue;
		uint32_t r = atomic_load_explicit(&t->resumes, memory_order_acquire);
		const void *on = t->wait_on;
		int64_t since = t->wait_since;
		enum kind k = kind_of(t->wait_reason,
				      __atomic_load_n(&t->timer.idx, __ATOMIC_RELAXED) >= 0);
		if (!on || since <= 0 || coarse - since < WAIT_MIN || (k == K_OTHER && !all) ||
		    was_reported(t->id, since))
			continue;
		struct node *a = &nodes[n++];
		memset(a, 0, sizeof *a);
		a->t = t;
		a->id = t->id;
		a->tid = t->main ? WT_MAIN_TID : t->tid;
		a->resumes = r;
		a->on = on;
		a->since = since;
		a->kind = k;
		for (int i = 0; i < 4; i++)
			a->rd[i] = atomic_load_explicit(&t->rdheld[i], memory_order_relaxed);
	}
	wt_unlock(&wt_sched.alllock);
	/* Step 2. */
	for (int i = 0; i < n; i++) {
		struct node *a = &nodes[i];
		int w = 0;
		switch (a->kind) {
		case K_MUTEX:
			a->obj = a->on; /* __lock is the first word */
			if (peek((const char *)a->on + offsetof(pthread_mutex_t, __data.__owner), &w,
				 sizeof w) == 0)
				a->holder = w;
			break;
		case K_WRLOCK:
			a->obj = (const char *)a->on - offsetof(pthread_rwlock_t, __data.__writers);
			goto writer;
		case K_RDLOCK:
			a->obj = (const char *)a->on - offsetof(pthread_rwlock_t, __data.__readers);
		writer:
			if (peek((const char *)a->obj + offsetof(pthread_rwlock_t, __data.__cur_writer),
				 &w, sizeof w) == 0)
				a->holder = w;
			break;
		case K_JOIN:
			a->obj = (const char *)a->on - offsetof(struct wt_task, join);
			break;
		default:
			break;
		}
	}
	/* Steps 3-5; at most one report a look. */
	int before = nreported;
	for (int i = 0; i < n; i++)
		if (nodes[i].color == 0) {
			nodes[i].cursor = 0;
			if (!walk_from(n, i))
				return;
		}
	if (all && nreported == before)
		all_asleep(n, ntasks);
}

/* Fork child: only the forking task is left, in no wait. */
void wt_deadlock_fork_reset(void)
{
	nreported = 0;
	next_look = 0;
	all_reported = false;
}
