/*
 * stubs_proc.c — the rest of the runtime for the scheduler tests
 * (test_proc.c).  Those link the real scheduler: core/proc.c, core/runq.c, core/park.c,
 * core/timer.c, core/worker.c (real OS threads as workers, each running wt_schedule
 * on its own stack as g0) and the real context switch (arch/x86_64:
 * switch.S, entry.S, ctx.c).  What is stubbed, and why:
 *
 *   wt_cur_tls   a test task has no TCB of its own (its context keeps the
 *                worker's thread pointer: tp 0), so the worker thread's
 *                copy names the running task.  A task's entry function
 *                sets it, and so does the switch-in hook below on every
 *                resume;
 *   wt_sig_switchin_slow  that hook.  Every test task blocks SIGUSR2 (in
 *                its sigmask only) and workers' masks stay 0, so core/proc.c's
 *                wt_sig_switchin calls it after each switch to a task,
 *                exactly where the task becomes current.  No real mask is
 *                ever changed: wt_sig_block_more, wt_sig_thread_init and
 *                wt_sig_idle do nothing, nor does wt_sig_defer_run (no
 *                signal is deferred);
 *   wt_stack_idle_trim  nothing (no stack arena, no scavenger);
 *   wt_stack_idle_work  false;
 *   wt_tls_mode  1 (stack/tls.c's default; never used: no test task has a thread
 *                pointer of its own to load);
 *   real         libc's pthread calls (core/worker.c creates worker threads),
 *                clock_gettime (core/timer.c) and longjmp (core/worker.c);
 *   wt_cfg       WEFT_MAXTHREADS from the test (stub_proc_reset);
 *   wt_aff_ncpu  0 (no task set a CPU mask: wt_yield counts wt_cfg.ncpu);
 *   a new worker's TLS guard, pin and alternate signal stack: none (nor
 *                an idle worker's exit unless a test sets wt_cfg.thread_idle_ms);
 *   wt_curp      as core/preempt.c's, without implicit system calls;
 *   netpoll      wt_netpoll returns stub_netpoll_list once while the test
 *                says tasks wait on descriptors; wt_netpoll_block never
 *                sleeps in epoll;
 *   wt_sysmon_kick  counts; wt_sysmon_made false (no sysmon: startm makes
 *                a new worker itself); wt_sysmon_self false;
 *                wt_sysmon_shorten nothing (no sysmon sleeping);
 *   wt_tls_trap  false (no thread pointer to put back);
 *   wt_privfd_self  false, wt_privfd_say the line to descriptor 2 (the
 *                tests' threads share the process's descriptor table);
 *   the CPU profile (observe/pprof.c): off, as without WEFTDEBUG=cpuprofile;
 *   the timeline (observe/timeline.c): off, as without WEFTDEBUG=trace; its
 *                recording calls are never made;
 *   system-call and preemption paths the tests never take: wt_throw.
 *
 * ThreadSanitizer (the TSan build links with --wrap=wt_ctx_switch): every
 * context is a TSan fiber (a task's made by stub_ctx_new, a worker's g0 is
 * its thread's own, registered in wt_sig_thread_init), and the wrapper
 * tells TSan which one runs next just before the real switch.  Without it
 * TSan keeps one call stack per OS thread, and a task that parks on one
 * worker and resumes on another unbalances both (TSan crashes).  The
 * switch synchronises the two fibers (flag 0): that is the program order
 * of the worker thread doing the switch; what orders a task's resumption
 * on another worker is still only the scheduler's own atomics.
 */
#include <pthread.h>
#include <setjmp.h>
#include <string.h>
#include <sys/syscall.h>
#ifdef __SANITIZE_THREAD__
#include <sanitizer/tsan_interface.h>
#endif

#include "stubs_proc.h"
#include "sched/io/privfd.h"

__thread struct wt_task *wt_cur_tls __attribute__((tls_model("initial-exec")));
intptr_t wt_cur_tpoff;
struct wt_config wt_cfg;
int wt_tls_mode = 1;
bool wt_tls_trap;
_Atomic int wt_sysmon_tid;
_Atomic bool wt_sysmon_made;
_Atomic uint64_t wt_sig_procpend; /* nothing pending for the process */
_Atomic int wt_nimplicit;
_Atomic long wt_netpoll_waiters;
struct wt_task *_Atomic stub_netpoll_list;
_Atomic int stub_kicks;

struct wt_real real = {
	.pthread_create = pthread_create,
	.pthread_join = pthread_join,
	.pthread_detach = pthread_detach,
	.pthread_attr_init = pthread_attr_init,
	.pthread_attr_destroy = pthread_attr_destroy,
	.pthread_attr_setdetachstate = pthread_attr_setdetachstate,
	.pthread_attr_setstacksize = pthread_attr_setstacksize,
	.sigaction = sigaction,
	.clock_gettime = clock_gettime,
	.longjmp = longjmp, /* core/worker.c: an idle worker's exit */
};
_Atomic int wt_real_ready = 1;
void wt_real_resolve(void) {}

/* ---- CPU accounting (process/cpuclock.c): never started here ---- */

_Atomic bool wt_cpuacct_on;
void wt_cpu_switch_slow(struct wt_m *m, struct wt_task *out, struct wt_task *in)
{
	(void)m, (void)out, (void)in;
}

/* ---- signals: the switch-in hook ---- */

void wt_sig_switchin_slow(struct wt_task *t)
{
	wt_cur_tls = t;
}

void wt_sig_block_more(struct wt_m *m, uint64_t more)
{
}

/* core/park.c's delivery once a park is over: no test task is sent a signal. */
void wt_sig_deliver(struct wt_task *t)
{
	(void)t;
}

/* Deferred signals (signal/sighandler.c): none come to the test workers, and an
 * idle worker's mask stays as it is. */
void wt_sig_defer_run(struct wt_m *m)
{
	(void)m;
}

void wt_sig_idle(struct wt_m *m)
{
	(void)m;
}

/* core/task.c's exit: the scheduler tests' tasks never exit through it; wt_mcall
 * only compares its address (a hand-off is allowed after it). */
void wt_task_after_exit(struct wt_m *m, struct wt_task *t, void *arg)
{
	(void)m;
	(void)t;
	(void)arg;
}

bool wt_stack_prefault(void)
{
	return false;
}

bool wt_stack_idle_work(void)
{
	return false;
}

void wt_stack_idle_trim(void)
{
}

void wt_stack_dump_all(void) /* wt_throw's: no arena here */
{
}

uint64_t wt_sig_thread_init(struct wt_m *m)
{
#ifdef __SANITIZE_THREAD__
	stub_fiber_register(&m->g0, __tsan_get_current_fiber());
#endif
	return 0;
}

/* ---- a new worker's TLS and crash set-up ---- */

bool wt_tls_worker_guard(struct wt_m *m)
{
	return true;
}

void wt_tls_worker_enter(struct wt_m *m)
{
}

void wt_tls_adapt(struct wt_m *m)
{
	wt_throw("stub: wt_tls_adapt (wt_tls_trap is false here)");
}

void wt_tls_pin_switch(struct wt_m *m, struct wt_task *next)
{
	wt_throw("stub: wt_tls_pin_switch (wt_tls_trap is false here)");
}

struct wt_pin wt_tls_pin(void)
{
	return (struct wt_pin){ 0, 0 };
}

void wt_tls_unpin(struct wt_pin pin)
{
}

/* core/proc.c's switch of glibc's mode holds the main task: the tests have
 * none, and their glibc is multi-threaded from the start. */
struct wt_task *wt_main_task;
_Atomic long wt_ntasks;

/* core/thread.c's hold of the only worker for a dump: never asked here. */
bool wt_pc_in_sigok(uintptr_t pc)
{
	return false;
}

void wt_sig_urg_send(int tid, union sigval v)
{
	wt_throw("stub: wt_sig_urg_send (no dump in the unit tests)");
}

/* core/thread.c's raw threads: the tests make none (sysmon is not started). */
size_t wt_off_tid, wt_tcb_size;

uintptr_t wt_tls_new(char *top, int tid, char *stack_lo, size_t stack_size, struct wt_task *t,
		     bool compact, char **tls_low, void *dtv)
{
	wt_throw("stub: wt_tls_new (no raw thread in the unit tests)");
}

void *wt_tls_dtv_keep(uintptr_t tp)
{
	wt_throw("stub: wt_tls_dtv_keep (no raw thread in the unit tests)");
}

char *wt_crash_altstack(void)
{
	return NULL;
}

/* An idle worker's exit (core/worker.c): no process id to keep, nothing to free. */
int wt_pid;

void wt_crash_altstack_free(char *p)
{
}

void wt_tls_worker_leave(struct wt_m *m)
{
}

void wt_sig_block_all(void)
{
}

/* ---- system calls and preemption ---- */

struct wt_p *wt_curp(void)
{
	struct wt_task *t = wt_cur();
	if (!t || !t->m)
		return NULL;
	return t->m->insyscall ? NULL : t->m->p;
}

void wt_implicit_exit(struct wt_m *m)
{
	wt_throw("stub: wt_implicit_exit");
}

void wt_implicit_switch_out(struct wt_m *m)
{
	wt_throw("stub: wt_implicit_switch_out");
}

/* ---- netpoll ---- */

struct wt_task *wt_netpoll(int timeout_ms)
{
	return atomic_exchange(&stub_netpoll_list, NULL);
}

bool wt_netpoll_block(struct wt_m *m)
{
	return false;
}

bool wt_sysmon_self(void)
{
	return false;
}

bool wt_privfd_self(void)
{
	return false;
}

void wt_privfd_say(const char *buf, size_t n)
{
	wt_syscall6(SYS_write, 2, (long)buf, (long)n, 0, 0, 0);
}

void wt_sysmon_kick(void)
{
	atomic_fetch_add(&stub_kicks, 1);
}

void wt_sysmon_shorten(void)
{
}

bool wt_prof_on = false;

void wt_prof_worker(struct wt_m *m)
{
	(void)m;
}

bool wt_tl_on;

void wt_tl_run(struct wt_m *m, struct wt_task *t)
{
	wt_throw("stub: wt_tl_run");
}

void wt_tl_switch(struct wt_m *m, struct wt_task *t, int why, struct wt_task *next)
{
	wt_throw("stub: wt_tl_switch");
}

void wt_tl_wake(struct wt_m *m, struct wt_task *t)
{
	wt_throw("stub: wt_tl_wake");
}

void wt_tl_event(struct wt_m *m, uint32_t kind, uint64_t task, uint64_t arg, uint64_t arg2)
{
	wt_throw("stub: wt_tl_event");
}

void wt_tl_worker(struct wt_m *m)
{
	wt_throw("stub: wt_tl_worker");
}

/* ---- priorities (process/prio.c): the test tasks never set a policy ---- */

int64_t wt_prio_rr_ns(void)
{
	return 100000000;
}

/* ---- CPU masks (process/affinity.c): no test task sets one ---- */

int wt_aff_ncpu(void)
{
	return 0;
}

/* ---- TSan fibers ---- */

#define MAXCTX 128
static struct {
	const struct wt_ctx *_Atomic ctx;
	void *fiber;
} fibers[MAXCTX];
static _Atomic int nfibers;

void stub_fiber_register(const struct wt_ctx *c, void *fiber)
{
	int i = atomic_fetch_add(&nfibers, 1);
	if (i >= MAXCTX)
		wt_throw("stub: too many contexts");
	fibers[i].fiber = fiber;
	atomic_store_explicit(&fibers[i].ctx, c, memory_order_release);
}

void stub_ctx_new(const struct wt_ctx *c)
{
#ifdef __SANITIZE_THREAD__
	stub_fiber_register(c, __tsan_create_fiber(0));
#endif
}

#ifdef __SANITIZE_THREAD__
void __real_wt_ctx_switch(struct wt_ctx *save, const struct wt_ctx *load, uintptr_t *cur_tp);

void __wrap_wt_ctx_switch(struct wt_ctx *save, const struct wt_ctx *load, uintptr_t *cur_tp)
{
	int n = atomic_load(&nfibers);
	void *f = NULL;
	for (int i = 0; i < n && !f; i++)
		if (atomic_load_explicit(&fibers[i].ctx, memory_order_acquire) == load)
			f = fibers[i].fiber;
	if (!f)
		wt_throw("stub: a context without a TSan fiber");
	__tsan_switch_to_fiber(f, 0);
	__real_wt_ctx_switch(save, load, cur_tp);
}
#endif

/* core/worker.c: threads through real.pthread_create (ThreadSanitizer's
 * wrapper), not libc's own. */
bool wt_spawn_through_interposers(void)
{
	return true;
}


/* The block profile (pprof.c): off. */
_Atomic bool wt_bprof_on;

void wt_bprof_waited(int64_t t0)
{
	(void)t0;
}
