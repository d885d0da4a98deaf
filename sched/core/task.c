/*
 * task.c — a task's life: create, first frame, exit, join/detach release;
 * main() run as a task.
 *
 * Exit protocol (the task cannot free the stack it runs on):
 *   1. on the task: key destructors, thread_local destructors (glibc's
 *      __call_tls_dtors, which keeps them in the task's own TLS), then what
 *      the kernel does at a thread's end: robust lists marked, the
 *      clear-tid word cleared and woken (process/pshared.c, process/tidaddr.c).  A joiner
 *      already waiting (WT_JOINING) is readied now, with a CAS to
 *      WT_EXITING, so that the switch out hands the worker straight to it
 *      (one switch instead of two through g0).  Then
 *      wt_mcall(wt_task_after_exit);
 *   2. on the next context of the worker, first thing (that joiner, another
 *      task, or g0): wt_task_after_exit frees the DTV, and t->join goes to
 *      WT_EXITED with an exchange.  Its old value decides who frees the
 *      slot and the struct: WT_DETACHED -> this context does it now;
 *      WT_JOINING -> it wakes the joiner, who does it; WT_EXITING -> the
 *      joiner, already readied; WT_JOINABLE -> a later join or detach.
 * This exchange competes with wt_task_detach's and wt_task_join's CAS from
 * WT_JOINABLE; the loser of the race is the one responsible for freeing
 * (as in musl).  Before it, a task still WT_JOINABLE (no joiner yet) gives
 * its slot and its record back at once, leaving a record of 48 bytes for
 * its join (unjoined.c), when no lookup by pthread_t is in progress (step
 * 3); then the exchange is not made, as nobody can reach t any more.
 *   3. Lookups by pthread_t (wt_task_from_pthread) happen inside a lookup
 *      section (wt_task_lookup_begin/end), which lasts as long as the
 *      caller uses the record it found (a join: until its CAS on t->join).
 *      One word, `lookups`, counts the open sections (in units of
 *      LOOKUP_ONE) and the swaps in progress (the low bits).  An exit's
 *      swap to the small record adds a swap and goes on only if the word
 *      held no section; a section adds itself and waits until no swap is
 *      left (none can start while it is counted).  Swaps of different
 *      tasks do not exclude each other: with one bit for them, an exit on
 *      one proc while another proc's exit swapped kept its stack and
 *      record until the join (create 50,000 then join at GOMAXPROCS=2:
 *      450-900 slots live at once where 130 tasks had not started, each
 *      fresh slot some page faults and a page-table page; now about 200).
 *      So no caller holds the record of a task that swapped, and after the
 *      swap its pthread_t leads to the small record only.  An exit that
 *      finds a section open keeps the record until the join, as before.
 *      The swap is a few stores under two short locks, in weft's code on
 *      the worker's next context (program signal handlers wait:
 *      signal/sighandler.c), so a waiting lookup spins, then yields the
 *      CPU.
 *      Rejected: a small record without the section (a pthread_kill or a
 *      join that looked t up just before its exit would act on a record
 *      already handed to a new task); an epoch per worker (a thread weft
 *      did not create looks tasks up too).  Measured (bench/spawn, 10,000
 *      threads created, each exiting at once, then joined): 2,230 pages
 *      first touched by the run, 1,550 of them task records; now about
 *      800, fewer than Go's 900 to 1,350 for the same goroutines.  A join that gives up (timeout, tryjoin, cancellation) CASes
 * WT_JOINING back to WT_JOINABLE; if that fails the task exited meanwhile
 * and the join completes.  A joiner that sees WT_EXITING (it ran on another
 * worker before the exiting task was off its stack) waits for WT_EXITED
 * without parking: the exiting task is in its last instructions.
 *
 * Cancellation is the WT_CANCEL_* bits of t->cancel: pthread_cancel sets
 * WT_CANCEL_REQ (seq_cst) and takes t out of a cancelable park (park.c); a
 * cancellation point acts when the request is pending (wt_cancel_pending)
 * by unwinding as glibc's pthread_exit does.  A task that runs with
 * asynchronous cancellation, or blocks in a cancellation point libc makes
 * (shim.h: CANCELABLE), is reached by a signal to its worker instead
 * (preempt.c: wt_preempt_cancel): at a safe point the task unwinds from
 * the preemption stub, and a blocked call ends with EINTR.  A mutex wait
 * with asynchronous cancellation enabled is a cancelable park.
 *
 * pthread_exit unwinds with glibc's own forced unwind: a task's first frame
 * (first_frame, for wt_task_entry and for main) registers a cancel buffer
 * (as glibc's start_thread does), so C cleanup handlers and C++ destructors
 * run, and the unwinder lands back here.
 *
 * main.  The runtime has already made the initial flow of control the main
 * task (start.c, from the constructor), on the initial thread's stack.
 * wt_task_run_main, called by the interposed __libc_start_main in place of
 * main, moves main onto an arena slot (stack/stack.c), like every task's stack:
 * it grows to WEFT_STACK_MAX, so a recursion a million calls deep finishes
 * in main as it does in a thread.  main keeps its TCB (the initial
 * thread's: constructors wrote its TLS; its canary is the one the
 * program's frames already hold).  When main returns, wt_task_run_main
 * returns on the initial stack, where glibc runs exit().  main's first
 * frame has a cancel buffer too, so pthread_exit(), or cancellation, in
 * main unwinds main's frames and the main task then exits like any other:
 * the process lives on until the last task exits (glibc's rule), instead
 * of glibc ending the initial OS thread, which is worker 0.
 *
 * A process that starts the runtime after main began (start.c: dormant)
 * keeps main on the initial stack, native-sized: its frames cannot move.
 * Its first frame is main_frame all the same, registered on that stack
 * before main ran: a pthread_exit before the start lands there and goes
 * on to glibc's own first frame (the thread ends as natively), one after
 * it ends the main task.
 *
 * Left as they were: __libc_stack_end (read-only after start) still points
 * into the initial stack, so code that finds main's stack through it
 * (Boehm GC's default, an executable-stack dlopen) sees the old stack;
 * pthread_getattr_np on main reports the new one.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "runtime.h"
#include "process/affinity.h"
#include "process/prio.h"
#include "preempt.h"
#include "proc.h"
#include "base/real.h"
#include "signal/sigtask.h"
#include "base/slab.h"
#include "stack/stack.h"
#include "start.h"
#include "io/syscall.h"
#include "sysmon.h"
#include "stack/getrandom.h"
#include "task.h"
#include "io/pollwatch.h"
#include "thread.h"
#include "unjoined.h"
#include "hooks.h"
#include "process/pshared.h"
#include "base/throw.h"
#include "process/tidaddr.h"
#include "stack/tls.h"
#include "stack/tls_static.h"

_Atomic long wt_ntasks WT_OWN_LINE;
static _Atomic uint64_t next_id WT_OWN_LINE = 2; /* 1 is main */
static struct wt_slab task_slab WT_OWN_LINE = WT_SLAB_INIT_TRIMMED(sizeof(struct wt_task));

extern void __pthread_register_cancel(__pthread_unwind_buf_t *);
extern void __pthread_unregister_cancel(__pthread_unwind_buf_t *);

uint64_t wt_task_ids(void)
{
	return atomic_load_explicit(&next_id, memory_order_relaxed);
}

/* Lookup sections (the essay's step 3): LOOKUP_ONE per open section,
 * plus one per exit swapping a record for its small one.  [atomic; every
 * change a read-modify-write, so each sees all earlier ones] */
#define LOOKUP_ONE (1l << 24)
static _Atomic long lookups WT_OWN_LINE;

/* Context: any (a task, a thread weft did not create); never parks: a
 * swap in progress is a few stores on a running worker. */
void wt_task_lookup_begin(void)
{
	if (!(atomic_fetch_add(&lookups, LOOKUP_ONE) & (LOOKUP_ONE - 1)))
		return;
	for (int spins = 0; atomic_load(&lookups) & (LOOKUP_ONE - 1);)
		if (++spins < 128)
			wt_arch_pause();
		else
			wt_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
}

void wt_task_lookup_end(void)
{
	atomic_fetch_sub(&lookups, LOOKUP_ONE);
}

/* Records come from the proc's own list of released ones first, as Go's
 * gFree: no lock (the slab's took two locked instructions each way, about
 * 5 % of a create-join). */
struct wt_task *wt_task_alloc(void)
{
	struct wt_p *p = wt_curp();
	struct wt_task *t;
	if (p && p->tfree.n > 0) {
		t = p->tfree.v[--p->tfree.n];
		memset(t, 0, sizeof *t);
	} else if (!(t = wt_slab_alloc(&task_slab))) {
		return NULL;
	}
	t->waiter.addr = NULL;
	t->timer.idx = -1;
	t->slot = -1;
	t->psid = 0;
	return t;
}

void wt_task_link(struct wt_task *t)
{
	wt_lock(&wt_sched.alllock);
	t->allprev = NULL;
	t->alllink = wt_sched.alltasks;
	if (t->alllink)
		t->alllink->allprev = t;
	wt_sched.alltasks = t;
	wt_unlock(&wt_sched.alllock);
}

/* Exited tasks whose stack lies outside the arena (a program-supplied
 * stack, or a mapping of its own), until joined or detached: their
 * pthread_t cannot be found through the arena's slot owners, and a join
 * must still find them.  [sched.alllock], linked through alllink/allprev,
 * which an exited task no longer uses for the list of live tasks. */
static struct wt_task *offarena_dead;

static void unlink_from(struct wt_task **head, struct wt_task *t)
{
	if (t->allprev)
		t->allprev->alllink = t->alllink;
	else
		*head = t->alllink;
	if (t->alllink)
		t->alllink->allprev = t->allprev;
}

/* An exiting task leaves the list of live tasks (the dump, schedtrace and
 * the static-TLS sync walk it); one outside the arena waits on
 * offarena_dead for its join.  Context: the next context of its worker. */
static void task_unlink(struct wt_task *t)
{
	wt_lock(&wt_sched.alllock);
	unlink_from(&wt_sched.alltasks, t);
	if (t->slot < 0 && !t->main) {
		t->allprev = NULL;
		t->alllink = offarena_dead;
		if (t->alllink)
			t->alllink->allprev = t;
		offarena_dead = t;
		t->offarena_dead = true;
	}
	wt_unlock(&wt_sched.alllock);
}

/* Context: a task or a foreign thread (pthread_create).  May allocate. */
int wt_task_create(const void *attrp, void *(*fn)(void *), void *arg, unsigned long *handle)
{
	bool c11 = attrp == WT_ATTR_C11;
	const pthread_attr_t *attr = c11 ? NULL : attrp;
	int err;
	/* Scheduling attributes first: a refused one creates nothing. */
	struct wt_prio_init prio;
	err = wt_prio_attr(attr, wt_cur(), &prio);
	if (err)
		return err;
	/* The second task: glibc leaves its single-threaded mode first, on
	 * the only task's thread, as at a native first pthread_create
	 * (thread.c). */
	if (unlikely(wt_libc_single()) && (err = wt_libc_threaded(0)) != 0)
		return err;
	struct wt_task *t = wt_task_alloc();
	if (!t)
		return -EAGAIN;
	t->id = atomic_fetch_add(&next_id, 1);
	t->tid = 0x40000000 | (int)(t->id & 0x3fffffff);
	t->start = fn;
	t->arg = arg;
	t->c11 = c11;
	size_t size = 0, guard = 4096;
	int detach = PTHREAD_CREATE_JOINABLE;
	void *uaddr = NULL;
	bool fixed = false;
	if (attr) {
		size_t usize = 0;
		/* glibc's getstack reports stackaddr - stacksize even when no
		 * address was set; its ATTR_FLAG_STACKADDR (0x8, in the flags
		 * word of struct pthread_attr) says whether one was, and its
		 * stacksize word (after flags, guardsize and stackaddr) is 0
		 * unless pthread_attr_setstacksize or setstack set it. */
		if (((const int *)(const void *)attr)[2] & 0x8)
			pthread_attr_getstack(attr, &uaddr, &usize);
		fixed = ((const size_t *)(const void *)attr)[4] != 0;
		if (fixed)
			pthread_attr_getstacksize(attr, &size);
		pthread_attr_getguardsize(attr, &guard);
		pthread_attr_getdetachstate(attr, &detach);
		if (uaddr) {
			err = wt_stack_user(t, uaddr, usize);
			if (err)
				goto fail;
		}
	}
	if (!uaddr) {
		/* glibc gives a thread created without a size the default
		 * pthread_setattr_default_np set, and without an attribute
		 * its guard too. */
		size_t pguard, psize = fixed ? 0 : wt_stack_prog_default(&pguard);
		if (psize) {
			size = psize;
			fixed = true;
			if (!attr)
				guard = pguard;
		}
		err = wt_stack_alloc(t, size, guard, fixed);
		if (err)
			goto fail;
	}
	/* Relaxed: t is published by wt_task_link's lock and the run queue. */
	atomic_store_explicit(&t->join,
			      detach == PTHREAD_CREATE_DETACHED ? WT_DETACHED : WT_JOINABLE,
			      memory_order_relaxed);
	wt_ctx_make(&t->ctx, t->stack_hi, (void (*)(void *))wt_task_entry, t, t->tp);
	atomic_store_explicit(&t->state, WT_IDLE, memory_order_relaxed);
	struct wt_task *cur = wt_cur();
	if (cur) {
		t->creator = cur->id;
		/* The kernel gives a new thread its creator's name. */
		wt_task_name_copy(cur, t->name);
		t->sigmask = cur->sigmask;
	} else {
		/* A thread weft did not create: its own mask, as natively. */
		uint64_t cm = 0;
		wt_syscall6(SYS_rt_sigprocmask, SIG_BLOCK, 0, (long)&cm, 8, 0, 0);
		t->sigmask = cm;
	}
	wt_prio_start(t, &prio);
	wt_task_link(t);
	if (prio.aff_set)
		wt_aff_apply();
	wt_tls_static_check(t);
	/* A program's second live task ends sysmon's long sleep (sysmon.c).
	 * seq_cst, then sleep_full's load in wt_sysmon_shorten: pairs with
	 * sysmon's store of that flag before its load of the count.  The
	 * first task ever made (id 2) kicks it whatever it sleeps: 1 s while
	 * no task besides main was made, busy or not. */
	if (atomic_fetch_add(&wt_ntasks, 1) == 1) {
		if (unlikely(t->id == 2))
			wt_sysmon_kick();
		else
			wt_sysmon_shorten_spawn();
	}
	if (unlikely(wt_tl_on))
		wt_tl_event(NULL, WT_TL_CREATE, t->id, (uintptr_t)fn, t->creator);
	/* Published before t can run (glibc too stores it before the clone):
	 * t may read it, and may be gone by the time this returns. */
	*handle = (unsigned long)wt_tls_pd(t->tp);
	atomic_fetch_add_explicit(&wt_sched.unstarted, 1, memory_order_relaxed);
	if (unlikely(prio.head)) {
		if (unlikely(wt_tl_on))
			wt_tl_wake(NULL, t);
		atomic_store_explicit(&t->state, WT_RUNNABLE, memory_order_relaxed);
		if (wt_rtq_put(t, true))
			wt_wakep();
		else
			wt_throw("a real-time task without a priority");
	} else {
		wt_ready(t);
		/* Past a bound of tasks made and not yet run, the new one runs
		 * first, on a warm slot's reuse (proc.c). */
		wt_step_aside();
	}
	return 0;
fail:
	wt_slab_free(&task_slab, t);
	return err;
}

void wt_task_release(struct wt_task *t, struct wt_p *p, int ended)
{
	if (t->offarena_dead) {
		wt_lock(&wt_sched.alllock);
		unlink_from(&offarena_dead, t);
		t->offarena_dead = false;
		wt_unlock(&wt_sched.alllock);
	}
	wt_stack_free(t, p, ended);
	wt_aff_release(t);
	wt_prio_release(t);
	if (t->main)
		return;
	if (p && p->tfree.n < (int)(sizeof p->tfree.v / sizeof p->tfree.v[0]))
		p->tfree.v[p->tfree.n++] = t;
	else
		wt_slab_free(&task_slab, t);
}

/* sysmon: the task records of released tasks give their pages back
 * (base/slab.c), and so does an empty table of unjoined ones.  Context: sysmon. */
void wt_task_scavenge(int64_t now)
{
	wt_slab_trim(&task_slab, now);
	wt_unjoined_scavenge(now);
}

/* The join or detach (ended: WT_ENDED_*) of a task that left a small
 * record (unjoined.c) for pthread_t th: 0 and its exit value in *ret (when
 * ret), or -ESRCH when th names none.  Context: any. */
int wt_task_unjoined_end(uintptr_t th, void **ret, int ended)
{
	uintptr_t pt = wt_tls_tp_of(th);
	struct wt_unjoined *u = wt_stack_in_arena(pt) ? wt_unjoined_take(pt) : NULL;
	if (!u)
		return -ESRCH;
	if (ret)
		*ret = u->retval;
	wt_stack_unjoined_end(pt, ended);
	wt_unjoined_free(u);
	return 0;
}

/* pthread_t -> live task, or one that exited and keeps its record until
 * its join.  NULL for threads weft did not create, and for one that left
 * a small record (wt_task_unjoined_end).  Context: inside a lookup
 * section. */
struct wt_task *wt_task_from_pthread(uintptr_t th)
{
	uintptr_t pt = th ? wt_tls_tp_of(th) : 0; /* compared with thread pointers */
	if (wt_main_task && pt == wt_main_task->tp)
		return wt_main_task;
	struct wt_task *t = wt_stack_owner(pt);
	if (t && t->tp == pt)
		return t;
	/* Gone, or a small record's (unjoined.c). */
	if (wt_stack_in_arena(pt))
		return NULL;
	if (pt) {
		/* A stack outside the arena (program-supplied, or a mapping of
		 * its own): search the live tasks, then the exited ones. */
		wt_lock(&wt_sched.alllock);
		for (t = wt_sched.alltasks; t && t->tp != pt; t = t->alllink)
			;
		if (!t)
			for (t = offarena_dead; t && t->tp != pt; t = t->alllink)
				;
		wt_unlock(&wt_sched.alllock);
		return t;
	}
	return NULL;
}

/* A pthread_t of weft's whose task is gone: how it ended (WT_ENDED_*,
 * UNKNOWN counting as joined; WT_ENDED_UNJOINED: exited, a small record
 * waits for its join), or -1 for a pthread_t weft never made. */
int wt_task_ended(uintptr_t th)
{
	uintptr_t pt = wt_tls_tp_of(th);
	struct wt_unjoined u;
	if (wt_stack_in_arena(pt) && wt_unjoined_find(pt, &u))
		return WT_ENDED_UNJOINED;
	return wt_stack_ended(pt);
}

/* Runs pthread key destructors.  Keys live in glibc's per-TCB arrays:
 * keys 0-31 in the TCB's specific_1stblock, which lies just below
 * specific[32], whose entries 1-31 point to blocks allocated at a key's
 * first use (stack/tls.c checks that layout at start on main's TCB, where glibc
 * sets specific[0] to the first block; weft's TCBs leave it NULL).
 * As glibc at thread exit: every non-NULL value is cleared and, when the
 * slot's seq is still its key's (the key was not deleted or re-created
 * since), passed to the key's destructor; up to
 * PTHREAD_DESTRUCTOR_ITERATIONS rounds while destructors set new values.
 * A task that never gave a key a value (glibc's specific_used flag, when
 * stack/tls.c found it) skips the walk; the walk of the task's own blocks costs
 * about 64 loads for a task that never used a key above 31; scanning the
 * global key table instead costs 1,024 entries at every exit.  Context:
 * the exiting task. */
struct key_data { uintptr_t seq; void *data; };
extern struct { uintptr_t seq; void (*destr)(void *); } __pthread_keys[];

static bool key_dtor_round(struct key_data **specific)
{
	bool again = false;
	for (unsigned i = 0; i < PTHREAD_KEYS_MAX / 32; i++) {
		struct key_data *blk = i ? specific[i] : (struct key_data *)specific - 32;
		if (!blk)
			continue;
		for (unsigned j = 0; j < 32; j++) {
			void *v = blk[j].data;
			if (!v)
				continue;
			unsigned k = i * 32 + j;
			blk[j].data = NULL;
			void (*d)(void *) = __pthread_keys[k].destr;
			if (blk[j].seq == __pthread_keys[k].seq && d) {
				d(v);
				again = true;
			}
		}
	}
	return again;
}

static void run_key_dtors(void)
{
	if (!wt_off_specific) {
		/* No offset from glibc: the slow way, through the key table. */
		for (int round = 0; round < PTHREAD_DESTRUCTOR_ITERATIONS; round++) {
			bool again = false;
			for (unsigned k = 0; k < PTHREAD_KEYS_MAX; k++) {
				uintptr_t seq = __pthread_keys[k].seq;
				void (*d)(void *) = __pthread_keys[k].destr;
				if (!(seq & 1) || !d)
					continue;
				void *v = pthread_getspecific(k);
				if (v) {
					pthread_setspecific(k, NULL);
					d(v);
					again = true;
				}
			}
			if (!again)
				break;
		}
		return;
	}
	uintptr_t pd = wt_tls_pd(wt_cur()->tp);
	/* No key ever had a value in this task (glibc's own test at exit). */
	if (wt_off_specific_used && !*(unsigned char *)(pd + wt_off_specific_used))
		return;
	struct key_data **specific = (struct key_data **)(pd + wt_off_specific);
	for (int round = 0; round < PTHREAD_DESTRUCTOR_ITERATIONS; round++)
		if (!key_dtor_round(specific))
			break;
	/* Second-level key blocks glibc allocated for keys >= 32. */
	for (int i = 1; i < PTHREAD_KEYS_MAX / 32; i++)
		if (specific[i]) {
			free(specific[i]);
			specific[i] = NULL;
		}
}

void wt_task_after_exit(struct wt_m *m, struct wt_task *t, void *arg)
{
	(void)arg;
	/* Syscall mode: g0 still runs on the dead task's thread pointer. */
	if (m->tp_mode == WT_TLS_SYSCALL && m->cur_tp == t->tp && t->tp != m->g0_tp) {
		wt_arch_set_tp(m->g0_tp);
		m->cur_tp = m->g0_tp;
	}
	/* The DTV is freed here, off the task: free() on the task itself would
	 * set up a malloc tcache in the task's TLS just to throw it away.  The DTV
	 * itself goes with the stack (wt_stack_free: kept in a home slot for
	 * its next task, else freed). */
	if (!t->main) {
		wt_rng_task_end(t->tp);
		wt_tls_tcache_free(t->tp);
		t->dtv_keep = wt_tls_dtv_keep(t->tp);
	}
	atomic_store(&t->state, WT_DEAD);
	task_unlink(t);
	long left = atomic_fetch_sub(&wt_ntasks, 1) - 1;
	/* Joinable and no joiner waiting yet: its stack and record go back
	 * now, a small record stays for its join (the essay's step 3), when
	 * no lookup section is open.  While this swap is counted nobody can
	 * change t->join: joins and detaches reach t only inside a section.  A
	 * waiting joiner releases t at once itself. */
	if (atomic_load(&t->join) == WT_JOINABLE) {
		bool swapped = atomic_fetch_add(&lookups, 1) < LOOKUP_ONE &&
			       atomic_load(&t->join) == WT_JOINABLE && wt_stack_exit_release(t, m->p);
		atomic_fetch_sub(&lookups, 1);
		if (swapped) {
			wt_task_release(t, m->p, WT_ENDED_UNKNOWN);
			if (left == 0)
				real.exit(0);
			return;
		}
	}
	int old = atomic_exchange(&t->join, WT_EXITED);
	if (old == WT_DETACHED)
		wt_task_release(t, m->p, WT_ENDED_DETACHED);
	else if (old == WT_JOINING)
		wt_unpark_g0(&t->join, 1, m);
	/* WT_EXITING: the joiner was readied by t and waits for WT_EXITED. */
	if (left == 0)
		real.exit(0); /* the last thread left: as glibc, exit(0) */
}

static bool still_joining(const void *addr, uintptr_t arg)
{
	(void)arg;
	return atomic_load((_Atomic int *)addr) == WT_JOINING;
}

/* Context: a task or a thread weft did not create, inside the lookup
 * section that found t, which it ends: t is the joiner's once its CAS
 * made it WT_JOINING or found it WT_EXITED.  May park. */
int wt_task_join(struct wt_task *t, void **ret, int64_t deadline)
{
	int s = WT_JOINABLE;
	bool mine = atomic_compare_exchange_strong(&t->join, &s, WT_JOINING) || s == WT_EXITED;
	wt_task_lookup_end();
	if (!mine)
		return -EINVAL; /* detached, or someone else joins it */
	if (s != WT_EXITED) {
		if (deadline == WT_JOIN_TRY) {
			s = WT_JOINING;
			if (atomic_compare_exchange_strong(&t->join, &s, WT_JOINABLE))
				return -EBUSY;
		}
		for (int spins = 0; (s = atomic_load(&t->join)) != WT_EXITED;) {
			if (s == WT_EXITING) {
				/* t readied this task and is switching out on
				 * another worker: a few instructions, unless
				 * the kernel took that worker's CPU. */
				if (++spins < 128)
					wt_arch_pause();
				else
					wt_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
				continue;
			}
			wt_wait_reason("pthread_join");
			int r = wt_park(&t->join, still_joining, 0, deadline < 0 ? -1 : deadline, true);
			if (r == WT_PARK_TIMEDOUT || r == WT_PARK_CANCELED) {
				s = WT_JOINING;
				if (atomic_compare_exchange_strong(&t->join, &s, WT_JOINABLE))
					return r == WT_PARK_CANCELED ? -ECANCELED : -ETIMEDOUT;
				/* It exited meanwhile: the join completes. */
			}
		}
	}
	if (ret)
		*ret = t->retval;
	wt_task_release(t, wt_curp(), WT_ENDED_JOINED);
	return 0;
}

/* Context: any. */
int wt_task_detach(struct wt_task *t)
{
	int s = WT_JOINABLE;
	if (atomic_compare_exchange_strong(&t->join, &s, WT_DETACHED))
		return 0;
	if (s == WT_EXITED) {
		wt_task_release(t, wt_curp(), WT_ENDED_DETACHED);
		return 0;
	}
	return -EINVAL;
}

/* pthread_exit: glibc's forced unwind, which lands in the task's first
 * frame (first_frame), or glibc's own for a thread weft did not create.
 * Context: the task (or that thread). */
WT_NORETURN void wt_task_unwind(void *retval)
{
	struct wt_task *t = wt_cur();
	wt_real_init();
	if (t)
		t->retval = retval;
	real.pthread_exit(retval);
	__builtin_unreachable();
}

/* A cancellation point found a pending cancel: unwind as glibc's
 * pthread_exit(PTHREAD_CANCELED) does.  Context: the task. */
WT_NORETURN void wt_cancel_act(void)
{
	atomic_fetch_or(&wt_cur()->cancel, WT_CANCEL_EXITING | WT_CANCEL_DISABLED);
	wt_task_unwind(PTHREAD_CANCELED);
}

/* pthread_setcancelstate / pthread_setcanceltype on t itself: sets or
 * clears WT_CANCEL_DISABLED / WT_CANCEL_ASYNC, returning whether it was
 * set. */
bool wt_cancel_set_disabled(struct wt_task *t, bool on)
{
	int prev = on ? atomic_fetch_or(&t->cancel, WT_CANCEL_DISABLED)
		      : atomic_fetch_and(&t->cancel, ~WT_CANCEL_DISABLED);
	return prev & WT_CANCEL_DISABLED;
}

bool wt_cancel_set_async(struct wt_task *t, bool on)
{
	int prev = on ? atomic_fetch_or(&t->cancel, WT_CANCEL_ASYNC)
		      : atomic_fetch_and(&t->cancel, ~WT_CANCEL_ASYNC);
	return prev & WT_CANCEL_ASYNC;
}

void wt_cancel_wait_unwound(struct wt_task *t)
{
	wt_cancel_call_end(t);
	if (wt_off_cancelhandling)
		__atomic_fetch_and((int *)(wt_tls_pd(t->tp) + wt_off_cancelhandling),
				   ~WT_GLIBC_CANCELTYPE, __ATOMIC_RELAXED);
}

void wt_cancel_async_point(void)
{
	struct wt_task *t = wt_cur();
	if (t && wt_cancel_async_pending(t))
		wt_cancel_act();
}

void wt_testcancel(void)
{
	struct wt_task *t = wt_cur();
	if (t && wt_cancel_pending(t))
		wt_cancel_act();
}

/* pthread_cancel of t.  Context: any. */
void wt_task_cancel(struct wt_task *t)
{
	if (atomic_load(&t->state) == WT_DEAD)
		return;
	atomic_fetch_or(&t->cancel, WT_CANCEL_REQ); /* seq_cst: see wt_park */
	if (!(atomic_load(&t->cancel) & WT_CANCEL_DISABLED)) {
		wt_park_cancel(t);
		wt_preempt_cancel(t);
	}
}

WT_NORETURN void wt_task_exit(void *retval)
{
	struct wt_task *t = wt_cur();
	atomic_fetch_or(&t->cancel, WT_CANCEL_EXITING | WT_CANCEL_DISABLED);
	t->retval = retval;
	extern void __call_tls_dtors(void);
	__call_tls_dtors();
	run_key_dtors();
	wt_pollwatch_exit(t);
	wt_sig_task_exit(t);
	wt_pshared_release(t);
	wt_tidaddr_exit(t);
	if (unlikely(wt_tl_on))
		wt_tl_event(NULL, WT_TL_EXIT, t->id, 0, 0);
	int s = WT_JOINING;
	if (atomic_compare_exchange_strong(&t->join, &s, WT_EXITING))
		wt_unpark(&t->join, 1);
	wt_mcall(wt_task_after_exit, NULL);
	wt_throw("a dead task was resumed");
}

/* The first frame of a task's own code (wt_task_entry; main's, from
 * wt_task_run_main): calls fn(arg) with a cancel buffer registered, as
 * glibc's start_thread does, so that pthread_exit and cancellation unwind
 * the frames above and land here.  true: fn returned, *ret is its value;
 * false: an unwind landed here, *ret is the task's exit value (retval).
 * Context: the task, on its own stack. */
WT_DORMANT_TEXT static bool first_frame(void *(*fn)(void *), void *arg, void **ret)
{
	__pthread_unwind_buf_t buf;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
	/* As glibc's pthread_cleanup_push: sigsetjmp without the mask writes
	 * only the jump buffer, which __cancel_jmp_buf holds. */
	int jumped = __sigsetjmp((struct __jmp_buf_tag *)(void *)buf.__cancel_jmp_buf, 0);
#pragma GCC diagnostic pop
	if (jumped == 0) {
		__pthread_register_cancel(&buf);
		*ret = fn(arg);
		__pthread_unregister_cancel(&buf);
		return true;
	}
	if (!wt_cur()) {
		/* A dormant main's pthread_exit (start.c): glibc's own first
		 * frame, further out, ends the thread as natively. */
		__pthread_unregister_cancel(&buf);
		real.pthread_exit(NULL);
	}
	*ret = wt_cur()->retval; /* pthread_exit or cancellation unwound to here */
	return false;
}

/* A thrd_create task's start routine, called through first_frame: its
 * int, widened as glibc's start_thread widens it, so that thrd_join's
 * (int)(uintptr_t) gives it back and pthread_join sees what it sees
 * natively. */
static void *c11_start(void *p)
{
	struct wt_task *t = p;
	int (*fn)(void *) = (int (*)(void *))(void *)t->start;
	return (void *)(uintptr_t)fn(t->arg);
}

void wt_task_entry(struct wt_task *t)
{
	void *r;
	wt_task_resumed(t);
	wt_finish_switch(t->m); /* the task that handed the worker to us */
	atomic_fetch_sub_explicit(&wt_sched.unstarted, 1, memory_order_relaxed);
	wt_tls_start(t);
	wt_sig_switchin(t);
	if (t->c11)
		first_frame(c11_start, t, &r);
	else
		first_frame(t->start, t->arg, &r);
	wt_task_exit(r);
}

struct main_args {
	int (*main)(int, char **, char **);
	int argc;
	char **argv, **envp;
	int ret;
};

WT_DORMANT_TEXT static void *call_main(void *p)
{
	struct main_args *a = p;
	a->ret = a->main(a->argc, a->argv, a->envp);
	return NULL;
}

/* main's first frame, on its slot stack (or, without one, on the initial
 * stack): an unwind out of main ends the main task like any other. */
WT_DORMANT_TEXT static void main_frame(void *p)
{
	void *r;
	if (!first_frame(call_main, p, &r))
		wt_task_exit(r);
}

/* Context: the initial thread, from glibc's start code (the main task's
 * flow of control when weft runs).  Allocates main's slot. */
WT_DORMANT_TEXT int wt_task_run_main(int (*main)(int, char **, char **), int argc, char **argv,
				     char **envp)
{
	struct wt_task *t = wt_cur();
	struct main_args a = { main, argc, argv, envp, 0 };
	if (!wt_runtime_on() && atomic_load_explicit(&wt_dormant_tcb, memory_order_relaxed)) {
		/* Dormant (start.c): main runs where it is, and stays there if
		 * the runtime starts inside it; its first frame is registered
		 * now, for a pthread_exit after that start. */
		wt_runtime_main_stack((char *)__builtin_frame_address(0));
		main_frame(&a);
		return a.ret;
	}
	if (!wt_runtime_on() || !t || !t->main)
		return main(argc, argv, envp);
	struct rlimit rl;
	size_t ssz = 8u << 20;
	if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		ssz = rl.rlim_cur;
	if (wt_stack_alloc(t, ssz, 0, false) != 0) {
		/* No slot (a tiny address space): main stays where it is. */
		main_frame(&a);
		return a.ret;
	}
	wt_call_on_stack((void *)WT_ALIGN_DOWN((uintptr_t)t->stack_hi, 16), main_frame, &a);
	return a.ret; /* on the initial stack again */
}

/* Fork child (process/fork.c): self is the only task left.  The others are marked
 * dead and exited (a join from the child returns at once, as glibc's does
 * for a thread its fork reclaimed) and unlinked; their memory leaks. */
void wt_task_fork_reset(struct wt_task *self)
{
	wt_slab_fork_reset(&task_slab);
	struct wt_task *t = atomic_load_explicit(&wt_sched.alllock.v, memory_order_relaxed)
				    ? NULL /* the list may be torn: skip the marking */
				    : wt_sched.alltasks;
	for (; t; t = t->alllink) {
		if (t == self)
			continue;
		atomic_store_explicit(&t->state, WT_DEAD, memory_order_relaxed);
		if (atomic_load_explicit(&t->join, memory_order_relaxed) != WT_DETACHED)
			atomic_store_explicit(&t->join, WT_EXITED, memory_order_relaxed);
	}
	atomic_store_explicit(&wt_sched.alllock.v, 0, memory_order_relaxed);
	wt_sched.alltasks = NULL;
	offarena_dead = NULL; /* the other tasks' records leak, as their stacks do */
	atomic_store(&lookups, 0); /* sections of threads the fork left behind */
	wt_unjoined_fork_reset();
	if (self) {
		self->alllink = self->allprev = NULL;
		wt_sched.alltasks = self;
		wt_tidaddr_fork_child(self);
	}
	atomic_store(&wt_ntasks, self ? 1 : 0);
}
