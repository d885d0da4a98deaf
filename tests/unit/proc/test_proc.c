/*
 * test_proc.c — the scheduler (sched/core/proc.c) running real tasks.
 *
 * The tasks are contexts with stacks of their own, switched by the real
 * wt_ctx_switch on real worker threads (core/worker.c), parking and waking
 * through the real parking lot (core/park.c) and run queues (core/runq.c).  The
 * test's main thread is a thread weft did not create: it readies the first
 * task (global queue, wakep starts a worker) and plays sysmon where a test
 * needs one.  See stubs_proc.c for what is not real.
 *
 * Each task appends to a log what it did, on which worker and proc, and the
 * proc's schedtick (the count of time slices: a task taken from runnext
 * inherits the current one).  With GOMAXPROCS=1 the order of a run is
 * fully determined, and the tests compare whole logs.
 *
 * Tests may read a proc's fields from a task on the proc's own worker
 * (its owner); criterion's assertions run only on the test's main thread,
 * after the tasks are done (a check on a task counts into bad_cur).
 *
 * Not covered here: preemption by signal (core/preempt.c: the tests set the
 * request sysmon would, m->preempt, and take the paths that honour it at
 * a park or yield); system calls that lose their proc (io/syscall.c's
 * wt_exitsyscall path, wt_mcall's implicit-syscall branch, findrunnable's
 * preference for tasks back from one); dropp with no idle proc to take;
 * the spinning worker's re-check of every queue before it sleeps;
 * wt_netpoll_block (the stub never sleeps in epoll); real thread pointers
 * (every test task keeps its worker's TCB) and signal masks.
 */
#include <criterion/criterion.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../redirect.h"
#include "stubs_proc.h"

#define STK (128 << 10)
#define MAXT 32

struct tt {
	struct wt_task t;               /* first: a task is its struct tt */
	void (*body)(struct tt *);
	char name;
	_Atomic int flag;               /* the baton of sleep_/wake */
	char *stack;
};
static struct tt tt[MAXT];
static _Atomic int ndead;
static _Atomic int bad_cur; /* failed checks on tasks: 1 each wrong wt_cur(), more: see users */

struct ev {
	char name;
	int m, p;
	uint64_t tick;
};
static struct ev evlog[4096];
static _Atomic int nev;

static struct wt_p procs[8];

/* GOMAXPROCS=n, every proc idle, no worker yet.  WEFT_MAXTHREADS maxth. */
static void sched_setup(int n, int maxth)
{
	wt_libc_mode_init(); /* criterion's threads: glibc is multi-threaded */
	wt_sched = (struct wt_sched){ .lock = WT_LOCK_INIT(WT_RANK_SCHED),
				      .alllock = WT_LOCK_INIT(WT_RANK_ALLTASKS) };
	memset(procs, 0, sizeof procs);
	for (int i = 0; i < 8; i++) {
		procs[i].id = i;
		procs[i].disabled = true;
	}
	wt_sched.procs = procs;
	wt_sched.maxprocs = 8;
	wt_cfg.maxthreads = maxth;
	wt_procs_resize(n);
}

static void note(struct tt *x)
{
	struct wt_task *t = &x->t;
	if (wt_cur() != t)
		atomic_fetch_add(&bad_cur, 1);
	int i = atomic_fetch_add(&nev, 1);
	evlog[i] = (struct ev){ x->name, t->m->id, t->m->p ? t->m->p->id : -1,
				t->m->p ? t->m->p->schedtick : 0 };
}

static void after_exit(struct wt_m *m, struct wt_task *t, void *arg)
{
	atomic_store(&t->state, WT_DEAD);
	atomic_fetch_add(&ndead, 1);
}

static void entry(void *arg)
{
	struct tt *x = arg;
	struct wt_task *t = &x->t;
	/* As wt_task_entry: finish the switch that brought us here (it may
	 * be a hand-off from a task that parked), then switch in. */
	wt_task_resumed(t);
	wt_finish_switch(t->m);
	wt_sig_switchin(t); /* the stub makes t current */
	x->body(x);
	wt_mcall(after_exit, NULL);
	wt_throw("a dead test task was resumed");
}

static struct tt *mk(int i, char name, void (*body)(struct tt *))
{
	struct tt *x = &tt[i];
	memset(x, 0, sizeof *x);
	x->name = name;
	x->body = body;
	x->stack = mmap(NULL, STK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(x->stack, MAP_FAILED);
	x->t.id = (uint64_t)i + 2;
	x->t.timer.idx = -1;
	x->t.sigmask = WT_SIGBIT(SIGUSR2); /* see stubs_proc.c: the switch-in hook */
	atomic_store(&x->t.state, WT_IDLE);
	wt_ctx_make(&x->t.ctx, x->stack + STK, entry, x, 0);
	stub_ctx_new(&x->t.ctx);
	return x;
}

/* The baton: wake sets the flag, then unparks; sleep_ parks while it is
 * clear.  The validate runs under the bucket lock: no lost wake-up. */
static bool flag_clear(const void *addr, uintptr_t arg)
{
	return atomic_load((_Atomic int *)addr) == 0;
}

static void sleep_(struct tt *x)
{
	while (!atomic_exchange(&x->flag, 0))
		wt_park(&x->flag, flag_clear, 0, -1, false);
}

static void wake(struct tt *x)
{
	atomic_store(&x->flag, 1);
	wt_unpark(&x->flag, 1);
}

static struct wt_p *curp(void)
{
	return wt_cur()->m->p;
}

static bool until(bool (*cond)(void))
{
	for (long i = 0; i < 20000000; i++) {
		if (cond())
			return true;
		sched_yield();
	}
	return cond();
}

static int want_dead;
static bool c_dead(void) { return atomic_load(&ndead) >= want_dead; }

static void wait_dead(int n)
{
	want_dead = n;
	cr_assert(until(c_dead), "only %d of %d tasks finished", atomic_load(&ndead), n);
	cr_assert_eq(atomic_load(&bad_cur), 0, "a check on a task failed (%d)", atomic_load(&bad_cur));
}

/* The log's names as a string. */
static const char *names(void)
{
	static char s[4097];
	int n = atomic_load(&nev);
	for (int i = 0; i < n; i++)
		s[i] = evlog[i].name;
	s[n] = 0;
	return s;
}

static int nthreads(void)
{
	return atomic_load(&wt_nthreads);
}

/* Under qemu-user (make test-aarch64 sets WEFT_EMULATED) a thread may lag
 * the others by milliseconds, so a worker can still be between idle and
 * spinning when wakep looks (and start one more), or leave the idle list
 * for its timed poll meanwhile.  Checks of that settling are made on
 * hardware only. */
static bool settles(void)
{
	const char *e = getenv("WEFT_EMULATED");
	return !(e && *e == '1');
}

static int nmidle(void)
{
	wt_lock(&wt_sched.lock);
	int n = wt_sched.nmidle;
	wt_unlock(&wt_sched.lock);
	return n;
}

static bool c_all_idle(void)
{
	return nmidle() == nthreads() && atomic_load(&wt_sched.npidle) ==
						 atomic_load(&wt_sched.nprocs);
}

/* On a task: until every other worker sleeps.  The worker that started
 * the first task was spinning, and the last spinner to find work wakes
 * another (resetspinning): with two procs, that one looks, finds nothing
 * and sleeps. */
static void others_idle(void)
{
	while (nmidle() != nthreads() - 1)
		wt_arch_pause();
}

TestSuite(proc, .timeout = 30);

/* ---- GOMAXPROCS=1: hand-offs, time slices, yields ---- */

#define K 200 /* more than 61 hand-offs */
static struct tt *A, *B, *C, *G, *X, *Y;
static int preempt_at = -1;

static void pair_a(struct tt *x)
{
	wt_ready(&C->t);
	wt_ready(&B->t); /* runnext B; C displaced to the ring */
	for (int i = 0; i < K; i++) {
		note(x);
		if (i == preempt_at) /* as sysmon, when the slice ran 10 ms */
			atomic_store(&x->t.m->preempt, curp()->schedtick + 1);
		wake(B);
		sleep_(x);
	}
}

static void pair_b(struct tt *x)
{
	for (int i = 0; i < K; i++) {
		sleep_(x);
		note(x);
		wake(A);
	}
}

static void just_note(struct tt *x)
{
	note(x);
}

Test(proc, handoff_runs_the_readied_task_next_in_the_same_slice)
{
	sched_setup(1, 100);
	A = mk(0, 'A', pair_a);
	B = mk(1, 'B', pair_b);
	C = mk(2, 'C', just_note);
	wt_ready(&A->t);
	wait_dead(3);
	char want[2 * K + 2];
	for (int i = 0; i < K; i++)
		memcpy(want + 2 * i, "AB", 2);
	strcpy(want + 2 * K, "C");
	cr_assert_str_eq(names(), want, "the ring's C waits while the pair hands off");
	/* A pair handing the proc back and forth shares one time slice:
	 * schedtick does not move, so 61-tick checks and sysmon see one
	 * long-running slice. */
	for (int i = 0; i < 2 * K; i++) {
		cr_assert_eq(evlog[i].tick, 1, "entry %d: tick %lu", i, (unsigned long)evlog[i].tick);
		cr_assert_eq(evlog[i].m, evlog[0].m, "one worker");
	}
	/* B's exit went through g0, which started A (2) and then C (3). */
	cr_assert_eq(evlog[2 * K].tick, 3);
	cr_assert_eq(nthreads(), 1, "the hand-offs never woke another worker");
}

Test(proc, preemption_request_sends_runnext_behind_the_ring)
{
	sched_setup(1, 100);
	preempt_at = 5;
	A = mk(0, 'A', pair_a);
	B = mk(1, 'B', pair_b);
	C = mk(2, 'C', just_note);
	wt_ready(&A->t);
	wait_dead(3);
	/* At A's 6th park the slice is over: runnext (B) goes to the ring's
	 * tail, C (the ring's head) runs in a slice of its own, then B. */
	char want[2 * K + 2], *w = want;
	for (int i = 0; i < 5; i++, w += 2)
		memcpy(w, "AB", 2);
	memcpy(w, "ACB", 3);
	w += 3;
	for (int i = 6; i < K; i++, w += 2)
		memcpy(w, "AB", 2);
	*w = 0;
	cr_assert_str_eq(names(), want);
	for (int i = 0; i < 11; i++)
		cr_assert_eq(evlog[i].tick, 1, "entry %d", i);
	cr_assert_eq(evlog[11].tick, 2, "C in a new slice");
	for (int i = 12; i < 2 * K + 1; i++)
		cr_assert_eq(evlog[i].tick, 3, "entry %d: the pair in the next slice", i);
	struct wt_m *m = atomic_load(&wt_sched.allm);
	cr_assert_eq(atomic_load(&m->preempt), 0, "the request was consumed");
}

static uint64_t tick_at_park;

static void tick61_a(struct tt *x)
{
	note(x);
	wt_ready(&C->t);
	wt_ready(&B->t);          /* runnext B, ring [C] */
	wt_ready_m(&G->t, NULL);  /* the global queue, as sysmon readies */
	curp()->schedtick = tick_at_park;
	sleep_(x);
	note(x);
}

static void wake_a(struct tt *x)
{
	note(x);
	wake(A);
}

Test(proc, every_61st_tick_a_park_goes_through_g0_and_the_global_queue)
{
	sched_setup(1, 100);
	A = mk(0, 'A', tick61_a);
	B = mk(1, 'B', wake_a);
	C = mk(2, 'C', just_note);
	G = mk(3, 'G', just_note);
	tick_at_park = 122; /* A parks at a 61st tick */
	wt_ready(&A->t);
	wait_dead(4);
	/* Not the hand-off to B: g0 looks at the global queue first. */
	cr_assert_str_eq(names(), "AGBAC");
	cr_assert_eq(evlog[1].tick, 123);
}

Test(proc, without_the_61st_tick_a_park_hands_off_to_runnext)
{
	sched_setup(1, 100);
	A = mk(0, 'A', tick61_a);
	B = mk(1, 'B', wake_a);
	C = mk(2, 'C', just_note);
	G = mk(3, 'G', just_note);
	tick_at_park = 123; /* the same program, one tick later */
	wt_ready(&A->t);
	wait_dead(4);
	/* A's park hands off to B in A's slice; the global queue comes after
	 * the local ring. */
	cr_assert_str_eq(names(), "ABACG");
	cr_assert_eq(evlog[1].tick, 123);
}

static void yield_a(struct tt *x)
{
	note(x);
	wt_yield(); /* nothing else to run: no switch */
	note(x);
	wt_ready(&X->t);
	wt_yield();
	note(x);
}

Test(proc, yield_goes_behind_ready_work_and_returns_at_once_without_any)
{
	sched_setup(1, 100);
	A = mk(0, 'A', yield_a);
	X = mk(1, 'X', just_note);
	wt_ready(&A->t);
	wait_dead(2);
	cr_assert_str_eq(names(), "AAXA");
	cr_assert_eq(evlog[0].tick, evlog[1].tick, "the empty yield kept the slice");
	cr_assert_eq(evlog[2].tick, evlog[1].tick + 1);
	cr_assert_eq(evlog[3].tick, evlog[1].tick + 2, "A again, after X, in a new slice");
}

static bool preempt_yield;

static void yield_g_a(struct tt *x)
{
	note(x);
	wt_ready_m(&G->t, NULL); /* the global queue, as sysmon readies */
	wt_ready(&X->t);         /* runnext */
	if (preempt_yield) /* as sysmon, when A's slice ran 10 ms */
		atomic_store(&x->t.m->preempt, curp()->schedtick + 1);
	wt_yield();
	note(x);
}

Test(proc, plain_yield_stays_local)
{
	sched_setup(1, 100);
	A = mk(0, 'A', yield_g_a);
	X = mk(1, 'X', just_note);
	G = mk(2, 'G', just_note);
	wt_ready(&A->t);
	wait_dead(3);
	cr_assert_str_eq(names(), "AXAG", "A behind X on its proc, G after the local queue");
}

Test(proc, yield_with_a_preemption_request_goes_behind_the_global_queue)
{
	sched_setup(1, 100);
	preempt_yield = true;
	A = mk(0, 'A', yield_g_a);
	X = mk(1, 'X', just_note);
	G = mk(2, 'G', just_note);
	wt_ready(&A->t);
	wait_dead(3);
	cr_assert_str_eq(names(), "AXGA", "A at the global queue's back, after G");
	struct wt_m *m = atomic_load(&wt_sched.allm);
	cr_assert_eq(atomic_load(&m->preempt), 0, "the request was consumed");
}

static int64_t deadline;
static _Atomic int park_result = -1;
static int never;

static void timed_park(struct tt *x)
{
	note(x);
	deadline = wt_nanotime() + 2000000; /* 2 ms */
	wt_ready(&B->t);
	atomic_store(&park_result, wt_park(&never, flag_clear, 0, deadline, false));
	note(x);
}

static void spin_past_deadline(struct tt *x)
{
	note(x);
	while (wt_nanotime() <= deadline) /* only orders the events */
		wt_arch_pause();
}

Test(proc, expired_timers_run_when_the_worker_looks_for_work)
{
	/* T parks with a deadline and hands off to B, which runs past it and
	 * exits: the worker's search fires T's timer itself (no sysmon here)
	 * and runs T again. */
	sched_setup(1, 100);
	A = mk(0, 'T', timed_park);
	B = mk(1, 'B', spin_past_deadline);
	wt_ready(&A->t);
	wait_dead(2);
	cr_assert_str_eq(names(), "TBT");
	cr_assert_eq(atomic_load(&park_result), WT_PARK_TIMEDOUT);
	cr_assert_eq(evlog[2].m, evlog[0].m);
	cr_assert_eq(wt_timer_count(), 0);
}

static struct tt *D, *E, *F;

static void inject_a(struct tt *x)
{
	note(x);
	D->t.schedlink = &E->t;
	E->t.schedlink = NULL;
	F->t.schedlink = NULL;
	atomic_store(&D->t.state, WT_WAITING);
	atomic_store(&E->t.state, WT_WAITING);
	atomic_store(&F->t.state, WT_WAITING);
	wt_inject(&F->t, NULL);  /* the global queue */
	wt_inject(&D->t, curp()); /* this proc's ring, in order */
	/* No criterion assertion off the test's thread: count instead. */
	if (atomic_load(&D->t.state) != WT_RUNNABLE || atomic_load(&F->t.state) != WT_RUNNABLE ||
	    wt_runq_len(curp()) != 2 || atomic_load(&wt_sched.runq_size) != 1)
		atomic_fetch_add(&bad_cur, 1000);
}

Test(proc, inject_queues_a_wake_list_in_order)
{
	sched_setup(1, 100);
	A = mk(0, 'A', inject_a);
	D = mk(1, 'D', just_note);
	E = mk(2, 'E', just_note);
	F = mk(3, 'F', just_note);
	wt_ready(&A->t);
	wait_dead(4);
	cr_assert_str_eq(names(), "ADEF");
}

static void netpoll_a(struct tt *x)
{
	note(x);
	D->t.schedlink = &E->t;
	E->t.schedlink = NULL;
	atomic_store(&D->t.state, WT_WAITING);
	atomic_store(&E->t.state, WT_WAITING);
	atomic_store(&stub_netpoll_list, &D->t);
	atomic_store(&wt_netpoll_waiters, 1);
}

static void netpoll_e(struct tt *x)
{
	atomic_store(&wt_netpoll_waiters, 0);
	note(x);
}

Test(proc, descriptors_ready_when_out_of_work_run_first_come)
{
	sched_setup(1, 100);
	A = mk(0, 'A', netpoll_a);
	D = mk(1, 'D', just_note);
	E = mk(2, 'E', netpoll_e);
	wt_ready(&A->t);
	wait_dead(3);
	/* A exited with nothing queued: the worker polled, ran the first
	 * woken task and queued the rest on its proc. */
	cr_assert_str_eq(names(), "ADE");
	cr_assert_eq(evlog[1].m, evlog[0].m);
	cr_assert_eq(evlog[2].m, evlog[0].m);
}

Test(proc, idle_worker_sleeps_and_a_foreign_ready_wakes_it)
{
	sched_setup(1, 100);
	A = mk(0, 'A', just_note);
	Y = mk(1, 'Y', just_note);
	wt_ready(&A->t);
	wait_dead(1);
	cr_assert(until(c_all_idle), "the worker did not go idle");
	cr_assert_eq(nmidle(), 1);
	cr_assert_eq(atomic_load(&wt_sched.npidle), 1);
	/* A thread weft did not create readies a task: the global queue, and
	 * the sleeping worker gets the idle proc (no new thread). */
	wt_ready(&Y->t);
	wait_dead(2);
	cr_assert_str_eq(names(), "AY");
	cr_assert_eq(evlog[1].m, evlog[0].m);
	cr_assert_eq(nthreads(), 1);
	cr_assert(until(c_all_idle));
}

/* ---- more procs: waking workers, stealing, resizing ---- */

static _Atomic int nx;

static void count_x(struct tt *x)
{
	note(x);
	atomic_fetch_add(&nx, 1);
}

static void spawn_and_spin(struct tt *x)
{
	note(x);
	for (int i = 1; i <= 6; i++)
		wt_ready(&tt[i].t); /* runnext the last, the ring the rest */
	/* Never parks: only another worker can run them. */
	while (atomic_load(&nx) < 6)
		wt_arch_pause();
}

Test(proc, queued_work_wakes_a_worker_that_steals_it)
{
	sched_setup(2, 100);
	A = mk(0, 'A', spawn_and_spin);
	for (int i = 1; i <= 6; i++)
		mk(i, 'X', count_x);
	wt_ready(&A->t);
	wait_dead(7);
	cr_assert_str_eq(names(), "AXXXXXX");
	for (int i = 1; i <= 6; i++) {
		cr_assert_neq(evlog[i].m, evlog[0].m, "X #%d ran on A's busy worker", i);
		cr_assert_neq(evlog[i].p, evlog[0].p);
	}
	if (settles())
		cr_assert_eq(nthreads(), 2);
}

static bool c_one_thread(void)
{
	return nthreads() == 1;
}

static int ngone(void)
{
	int gone = 0;
	for (struct wt_m *m = atomic_load(&wt_sched.allm); m; m = m->alllink)
		gone += __atomic_load_n(&m->ostid, __ATOMIC_RELAXED) == 0;
	return gone;
}

/* A retired worker leaves the count (retire) before it clears its ostid
 * and goes on mfree (exit_thread). */
static bool c_one_gone(void)
{
	return ngone() >= 1;
}

/* Two workers, GOMAXPROCS lowered to 1: the idle one beyond it gives its
 * thread back after WEFT_THREAD_IDLE_MS, its struct kept (ostid 0); raised
 * again, the worker made for new work takes that struct over. */
Test(proc, an_idle_worker_beyond_gomaxprocs_exits_and_the_next_takes_its_struct)
{
	sched_setup(2, 100);
	wt_cfg.thread_idle_ms = 20;
	A = mk(0, 'A', spawn_and_spin);
	for (int i = 1; i <= 6; i++)
		mk(i, 'X', count_x);
	wt_ready(&A->t);
	wait_dead(7);
	cr_assert(until(c_all_idle));
	wt_lock(&wt_sched.lock);
	int made = wt_sched.nm;
	wt_unlock(&wt_sched.lock);
	wt_procs_resize(1);
	cr_assert(until(c_one_thread), "%d threads live", nthreads());
	until(c_one_gone);
	int gone = ngone();
	cr_assert_eq(gone, made - 1, "%d of %d workers exited", gone, made);

	wt_procs_resize(2);
	atomic_store(&nx, 0);
	A = mk(0, 'A', spawn_and_spin);
	for (int i = 1; i <= 6; i++)
		mk(i, 'X', count_x);
	wt_ready(&A->t);
	wait_dead(14);
	wt_lock(&wt_sched.lock);
	int made2 = wt_sched.nm;
	wt_unlock(&wt_sched.lock);
	cr_assert_eq(made2, made, "a new struct was made while one was free");
	if (settles())
		cr_assert_eq(nthreads(), 2);
}

static void ready_one_and_spin(struct tt *x)
{
	note(x);
	others_idle();
	wt_ready(&X->t);
	/* A lone runnext is a hand-off to come: nobody is woken for it (a
	 * woken worker leaves the idle list before wt_ready returns). */
	if (nmidle() != nthreads() - 1 && settles())
		atomic_fetch_add(&bad_cur, 100);
	while (atomic_load(&nx) < 1)
		wt_arch_pause();
}

static bool c_x(void)
{
	if (atomic_load(&nx) >= 1)
		return true;
	wt_sysmon_wake_idle_work(); /* as sysmon, every tick */
	return false;
}

Test(proc, sysmon_wakes_a_worker_for_a_runnext_left_waiting)
{
	sched_setup(2, 100);
	A = mk(0, 'A', ready_one_and_spin);
	X = mk(1, 'X', count_x);
	wt_ready(&A->t);
	cr_assert(until(c_x), "X never ran");
	wait_dead(2);
	cr_assert_str_eq(names(), "AX");
	cr_assert_neq(evlog[1].m, evlog[0].m, "stolen from runnext by the woken worker");
	if (settles())
		cr_assert_eq(nthreads(), 2);
}

Test(proc, handoffp_starts_a_worker_for_a_proc_with_work_else_idles_it)
{
	sched_setup(2, 100);
	/* As sysmon with a proc taken from a blocked worker: its owner now. */
	struct wt_p *p = wt_pidleget();
	cr_assert_not_null(p);
	cr_assert_eq(atomic_load(&wt_sched.npidle), 1);
	X = mk(0, 'X', just_note);
	Y = mk(1, 'Y', just_note);
	atomic_store(&X->t.state, WT_RUNNABLE);
	atomic_store(&Y->t.state, WT_RUNNABLE);
	wt_runq_put(p, &X->t, false);
	wt_runq_put(p, &Y->t, false);
	wt_handoffp(p);
	wait_dead(2);
	cr_assert_str_eq(names(), "XY");
	cr_assert_eq(evlog[0].p, p->id, "run on the proc handed off");
	cr_assert_eq(evlog[1].p, p->id);
	cr_assert(until(c_all_idle));
	/* Nothing queued: the proc goes back on the idle list. */
	struct wt_p *q = wt_pidleget();
	cr_assert_eq(atomic_load(&wt_sched.npidle), 1);
	wt_handoffp(q);
	cr_assert_eq(atomic_load(&wt_sched.npidle), 2);
	cr_assert_eq(nthreads(), 1);
	cr_assert_null(q->m);
}

Test(proc, handoffp_of_a_proc_beyond_gomaxprocs_disables_it_and_moves_its_work)
{
	sched_setup(2, 100);
	struct wt_p *p = wt_pidleget();
	cr_assert_eq(p->id, 1, "the idle list's head");
	wt_procs_resize(1); /* p is held: stays enabled until given back */
	cr_assert_not(p->disabled);
	X = mk(0, 'X', just_note);
	atomic_store(&X->t.state, WT_RUNNABLE);
	wt_runq_put(p, &X->t, false);
	wt_handoffp(p);
	cr_assert(p->disabled);
	cr_assert_eq(wt_runq_len(p), 0, "its queue moved to the global queue");
	wait_dead(1);
	cr_assert_eq(evlog[0].p, 0);
	cr_assert(until(c_all_idle));
	cr_assert_eq(atomic_load(&wt_sched.npidle), 1);
}

Test(proc, resize_lowers_and_raises_the_idle_list)
{
	sched_setup(4, 100);
	cr_assert_eq(atomic_load(&wt_sched.npidle), 4);
	wt_procs_resize(2);
	cr_assert_eq(atomic_load(&wt_sched.nprocs), 2);
	cr_assert_eq(atomic_load(&wt_sched.npidle), 2);
	int seen = 0;
	for (struct wt_p *p = wt_sched.pidle; p; p = p->link)
		seen |= 1 << p->id;
	cr_assert_eq(seen, 3, "procs 0 and 1 idle-listed (mask %#x)", seen);
	cr_assert(procs[2].disabled && procs[3].disabled);
	cr_assert_not(procs[0].disabled || procs[1].disabled);
	wt_procs_resize(0);
	wt_procs_resize(9);
	cr_assert_eq(atomic_load(&wt_sched.nprocs), 2, "out of range: ignored");
	wt_procs_resize(3);
	cr_assert_eq(atomic_load(&wt_sched.npidle), 3);
	cr_assert_not(procs[2].disabled);
	cr_assert(procs[3].disabled);
	cr_assert_eq(nthreads(), 0);
}

static void shrink_a(struct tt *x)
{
	note(x);
	others_idle();
	wt_procs_resize(1); /* as sysmon: this proc (1) is beyond it now */
	wt_ready(&X->t);   /* runnext of the proc being disabled */
	sleep_(x);
	note(x);
}

Test(proc, lowering_gomaxprocs_moves_a_busy_proc_s_work_at_its_next_switch)
{
	sched_setup(2, 100);
	A = mk(0, 'A', shrink_a);
	X = mk(1, 'X', wake_a);
	wt_ready(&A->t);
	wait_dead(2);
	cr_assert_str_eq(names(), "AXA");
	cr_assert_eq(evlog[0].p, 1);
	cr_assert_eq(evlog[1].p, 0, "X moved with the proc's queue");
	cr_assert_eq(evlog[2].p, 0);
	cr_assert_eq(evlog[1].m, evlog[0].m, "the same worker, on proc 0");
	cr_assert(procs[1].disabled);
	cr_assert(until(c_all_idle));
}

static void two_and_park(struct tt *x)
{
	note(x);
	wt_ready(&X->t);
	wt_ready(&Y->t); /* the ring is not empty: wakep, but no thread */
	sleep_(x);
	note(x);
}

static void y_wakes_a(struct tt *x)
{
	note(x);
	wake(A);
}

Test(proc, at_the_thread_cap_work_waits_for_the_running_worker, .init = redirect_stderr)
{
	sched_setup(2, 1); /* WEFT_MAXTHREADS=1 */
	A = mk(0, 'A', two_and_park);
	X = mk(1, 'X', just_note);
	Y = mk(2, 'Y', y_wakes_a);
	wt_ready(&A->t);
	wait_dead(3);
	cr_assert_str_eq(names(), "AYAX");
	for (int i = 1; i < 4; i++)
		cr_assert_eq(evlog[i].m, evlog[0].m);
	cr_assert_eq(nthreads(), 1);
	cr_assert(atomic_load(&wt_sched.capped));
	fflush(stderr);
	cr_assert_stderr_eq_str("weft: WEFT_MAXTHREADS=1 threads reached: work waits for workers "
				"blocked in system calls (WEFT_MAXTHREADS_POLICY=wait)\n");
}

/* ---- stress: tokens around a ring of tasks on two procs ---- */

#define SN 8
#define SROUNDS 4000
static _Atomic int tokens[SN];
static _Atomic int moved; /* resumes on another worker than the park's */

static bool tok_empty(const void *addr, uintptr_t arg)
{
	return atomic_load((_Atomic int *)addr) == 0;
}

static void ring_task(struct tt *x)
{
	int i = (int)(x - tt), next = (i + 1) % SN;
	for (int k = 0; k < SROUNDS; k++) {
		for (;;) {
			int c = atomic_load(&tokens[i]);
			if (c > 0) {
				if (atomic_compare_exchange_weak(&tokens[i], &c, c - 1))
					break;
				continue;
			}
			struct wt_m *m = x->t.m;
			wt_park(&tokens[i], tok_empty, 0, -1, false);
			if (x->t.m != m)
				atomic_fetch_add(&moved, 1);
		}
		atomic_fetch_add(&tokens[next], 1);
		wt_unpark(&tokens[next], 1);
		if (k % 7 == i % 7) { /* to the ring's tail, where a thief finds it */
			struct wt_m *m = x->t.m;
			wt_yield();
			if (x->t.m != m)
				atomic_fetch_add(&moved, 1);
		}
	}
}

static bool c_sysmon_until_dead(void)
{
	if (atomic_load(&ndead) >= SN)
		return true;
	wt_sysmon_wake_idle_work();
	return false;
}

Test(proc, tokens_around_a_ring_of_tasks_on_two_procs_are_never_lost, .timeout = 60)
{
	/* Three tokens circulate; each task takes SROUNDS of them, parking
	 * while it has none.  A lost wake-up strands a token with a parked
	 * task: the test times out.  The main thread plays sysmon. */
	sched_setup(2, 100);
	atomic_store(&tokens[0], 1);
	atomic_store(&tokens[3], 1);
	atomic_store(&tokens[5], 1);
	for (int i = 0; i < SN; i++)
		mk(i, 'R', ring_task);
	for (int i = 0; i < SN; i++)
		wt_ready(&tt[i].t);
	cr_assert(until(c_sysmon_until_dead), "only %d of %d tasks finished", atomic_load(&ndead), SN);
	wait_dead(SN);
	int total = 0;
	for (int i = 0; i < SN; i++)
		total += atomic_load(&tokens[i]);
	cr_assert_eq(total, 3, "tokens are conserved");
	cr_log_info("%d resumes on another worker", atomic_load(&moved));
}
