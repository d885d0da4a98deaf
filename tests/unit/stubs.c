/*
 * stubs.c — what core/runq.c, core/park.c, core/timer.c, base/lock.c, base/print.c, base/slab.c, stack/stack.c
 * and io/netpoll.c need from the rest of the runtime, as test doubles:
 *
 *   wt_sched        a real struct wt_sched whose procs the tests set up;
 *   wt_vfork_tls    false: no test runs as a vfork child;
 *   wt_cur_tls      initial-exec TLS, NULL by default: the caller is an OS
 *                   thread weft did not create, so wt_park sleeps on its
 *                   waiter's futex word (a supported path).  A test may set
 *                   it to a fake task to drive the task path of wt_park;
 *   wt_park_commit  simulated "switch out": marks the task WAITING, releases
 *                   the bucket lock and calls the park's release as g0
 *                   would (with no worker), then blocks the thread on
 *                   the task's state word until wt_ready_m makes it
 *                   RUNNABLE.  No context switch happens;
 *   wt_ready(_m)    records (task, m) in a list the tests inspect, checks
 *                   the WAITING/IDLE -> RUNNABLE transition as core/proc.c does;
 *   wt_wakep, wt_sysmon_kick  count calls;
 *   wt_fdgate_close/open  always open: no program runs beside the tests;
 *   wt_fdgate_make  the call, moved to 100 or above (io/privfd.h: wt_fd_move_high);
 *   wt_privfd_self  false: the tests' threads share the process's table;
 *   wt_privfd_say   the line to descriptor 2;
 *   wt_sig_deliver, wt_sig_defer_run  nothing: no test task has a handler;
 *   wt_sig_procpend  0: nothing is pending for the process;
 *   wt_ntasks       0: no task counted (io/netpoll.c's lone-task read never
 *                   applies);
 *   wt_inject       readies each task of the list as wt_ready_m(t, NULL)
 *                   does (recorded in the same list), remembers p;
 *   wt_pidleget     returns stub_pidle once;
 *   wt_curp         returns stub_curp (NULL: stack/stack.c uses its global lists);
 *   wt_tls_new      no TLS: returns a thread pointer below the slot's top
 *                   (wt_tls_tp_under)
 *                   and the block's low end, or 0 when stub_tls_fail; the
 *                   DTV it was given in stub_dtv_given;
 *   wt_tls_dtv_free records the DTV in stub_dtv_freed;
 *   wt_cfg, wt_tls_static_size, wt_tls_static_align, wt_tcb_size  plain variables;
 *   wt_uring_fd, wt_uring_reap  no io_uring ring: -1, nothing to reap;
 *   real            libc's clock_gettime only (core/timer.c, core/park.c);
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>

#include "stubs.h"
#include "sched/io/privfd.h"
#include "sched/base/real.h"

struct wt_sched wt_sched;
__thread struct wt_task *wt_cur_tls __attribute__((tls_model("initial-exec")));
__thread bool wt_vfork_tls __attribute__((tls_model("initial-exec")));
intptr_t wt_cur_tpoff;

struct wt_p stub_procs[STUB_MAXPROCS];
_Atomic int stub_kicks, stub_wakeps, stub_commits;
__thread struct wt_p *stub_curp;
struct wt_p *stub_pidle;
bool stub_tls_fail;
void *stub_dtv_given, *stub_dtv_freed;
_Atomic int stub_injects;
struct wt_p *stub_inject_p;

struct wt_config wt_cfg;
size_t wt_tls_static_size = 4096, wt_tls_static_align = 64, wt_tcb_size = 2304;

static pthread_mutex_t ready_mu = PTHREAD_MUTEX_INITIALIZER;
static struct stub_ready ready_list[STUB_MAXREADY];
static int ready_n;

void stub_reset(int nprocs)
{
	if (nprocs < 1 || nprocs > STUB_MAXPROCS)
		wt_throw("stub_reset: bad nprocs");
	memset(&wt_sched, 0, sizeof wt_sched);
	memset(stub_procs, 0, sizeof stub_procs);
	for (int i = 0; i < nprocs; i++)
		stub_procs[i].id = i;
	wt_sched.nprocs = nprocs;
	wt_sched.maxprocs = nprocs;
	wt_sched.procs = stub_procs;
	atomic_store(&wt_sched.npidle, 0);
	atomic_store(&stub_kicks, 0);
	atomic_store(&stub_wakeps, 0);
	atomic_store(&stub_commits, 0);
	atomic_store(&stub_injects, 0);
	stub_curp = stub_pidle = stub_inject_p = NULL;
	stub_tls_fail = false;
	stub_dtv_given = stub_dtv_freed = NULL;
	pthread_mutex_lock(&ready_mu);
	ready_n = 0;
	pthread_mutex_unlock(&ready_mu);
	wt_cur_tls = NULL;
}

int stub_ready_count(void)
{
	pthread_mutex_lock(&ready_mu);
	int n = ready_n;
	pthread_mutex_unlock(&ready_mu);
	return n;
}

struct stub_ready stub_ready_get(int i)
{
	struct stub_ready r = { 0 };
	pthread_mutex_lock(&ready_mu);
	if (i >= 0 && i < ready_n)
		r = ready_list[i];
	pthread_mutex_unlock(&ready_mu);
	return r;
}

void stub_task_init(struct wt_task *t, uint64_t id)
{
	memset(t, 0, sizeof *t);
	t->id = id;
	t->timer.idx = -1;
	atomic_store(&t->state, WT_RUNNING);
}

bool stub_wait_until(bool (*cond)(void *), void *arg)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int64_t until = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + 10 * 1000000000ll;
	for (;;) {
		if (cond(arg))
			return true;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec > until)
			return cond(arg);
		sched_yield();
	}
}

void wt_ready_m(struct wt_task *t, struct wt_m *m)
{
	pthread_mutex_lock(&ready_mu);
	if (ready_n < STUB_MAXREADY)
		ready_list[ready_n++] = (struct stub_ready){ t, m };
	pthread_mutex_unlock(&ready_mu);
	int old = atomic_exchange(&t->state, WT_RUNNABLE);
	if (old != WT_WAITING && old != WT_IDLE)
		wt_throw("wt_ready: task is not waiting");
	/* "Schedule" it: the simulated task's thread is blocked in
	 * wt_park_commit on this word. */
	wt_futex_wake(&t->state, 1, false);
	wt_wakep();
}

void wt_ready(struct wt_task *t)
{
	struct wt_task *cur = wt_cur();
	wt_ready_m(t, cur ? cur->m : NULL);
}

void wt_park_commit(wt_spin_t *unlock, wt_park_release_fn release, void *arg)
{
	struct wt_task *t = wt_cur();
	if (!t)
		wt_throw("wt_park_commit: not a task");
	/* As after_park on g0: WAITING first, then the lock.  Counted after
	 * the store: a test that saw the count reads WAITING. */
	atomic_store(&t->state, WT_WAITING);
	atomic_fetch_add(&stub_commits, 1);
	if (unlock)
		wt_spin_unlock(unlock);
	if (release)
		release(NULL, arg);
	while (atomic_load(&t->state) == WT_WAITING)
		wt_futex_wait(&t->state, WT_WAITING, NULL, false);
	atomic_store(&t->state, WT_RUNNING);
}

void wt_wakep(void)
{
	atomic_fetch_add(&stub_wakeps, 1);
}

/* core/park.c raises a task's pending signals once a park is over: no test
 * task has a handler to run, so its bits stay in sigpend. */
void wt_sig_deliver(struct wt_task *t)
{
	(void)t;
}

/* Signals pending for the process (signal/sighandler.c): none in these tests. */
_Atomic uint64_t wt_sig_procpend;

/* Live tasks (core/task.c): none counted here. */
_Atomic long wt_ntasks;

/* The same, with the worker's deferred signals (none in these tests). */
void wt_sig_defer_run(struct wt_m *m)
{
	(void)m;
}

void wt_sysmon_kick(void)
{
	atomic_fetch_add(&stub_kicks, 1);
}

void wt_inject(struct wt_task *list, struct wt_p *p)
{
	if (!list)
		return;
	stub_inject_p = p;
	atomic_fetch_add(&stub_injects, 1);
	while (list) {
		struct wt_task *t = list;
		list = t->schedlink;
		t->schedlink = NULL;
		wt_ready_m(t, NULL);
	}
}

struct wt_p *wt_pidleget(void)
{
	struct wt_p *p = stub_pidle;
	stub_pidle = NULL;
	return p;
}

struct wt_p *wt_curp(void)
{
	return stub_curp;
}

uintptr_t wt_tls_new(char *top, int tid, char *stack_lo, size_t stack_size, struct wt_task *t,
		     bool compact, char **tls_low, void *dtv)
{
	__atomic_store_n(&stub_dtv_given, dtv, __ATOMIC_RELAXED); /* concurrent claims call it */
	if (stub_tls_fail)
		return 0;
	uintptr_t tp = wt_tls_tp_under((uintptr_t)top, compact);
	*tls_low = (char *)(tp - wt_tls_static_size);
	return tp;
}

/* Where the stub's blocks put the thread pointer (the same on every
 * architecture: the stub's static TLS lies under it). */
uintptr_t wt_tls_tp_under(uintptr_t top, bool compact)
{
	return WT_ALIGN_DOWN(top - wt_tcb_size, 64);
}

void wt_tls_dtv_free(void *dtv)
{
	__atomic_store_n(&stub_dtv_freed, dtv, __ATOMIC_RELAXED);
}

int wt_uring_fd(void)
{
	return -1;
}

void wt_uring_reap(struct wt_task **list)
{
	(void)list;
}

bool wt_fdgate_close(void)
{
	return true;
}

void wt_fdgate_open(void) {}

bool wt_privfd_self(void)
{
	return false;
}

void wt_privfd_say(const char *buf, size_t n)
{
	wt_syscall6(SYS_write, 2, (long)buf, (long)n, 0, 0, 0);
}

long wt_fdgate_make(long nr, long a, long b, long c)
{
	return wt_fd_move_high(wt_syscall6(nr, a, b, c, 0, 0, 0));
}

struct wt_real real = { .clock_gettime = clock_gettime };
_Atomic int wt_real_ready = 1;
void wt_real_resolve(void) {}

/* The block profile (pprof.c): off. */
_Atomic bool wt_bprof_on;

void wt_bprof_waited(int64_t t0)
{
	(void)t0;
}
