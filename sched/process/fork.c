/*
 * fork.c — the child of a fork continues with the forking task alone, on a
 * fresh runtime.
 *
 * In the child only the calling OS thread exists.  Every other worker,
 * sysmon and every other task are gone, and any runtime lock one of them
 * held stays held forever; structures they were changing may be torn.  So
 * the child rebuilds the runtime around the forking task T:
 *   - locks are reset; a structure the child keeps (slabs, the stack
 *     arena's free list, the timer heap) is thrown away if its lock was held
 *     at the fork, since it may be half-updated; what belonged to others is
 *     emptied: run queues, runnext, the global queue, timers, every bucket
 *     of the parking lot (the waiter records of parked tasks; T waits on
 *     nothing, it is running);
 *   - the other tasks are marked dead and unlinked; their stacks, TCBs and
 *     structs leak, as a native child leaks the other threads' stacks;
 *   - the calling thread becomes worker 0 holding proc 0 (its g0 context is
 *     where the parent's scheduler loop left it, a valid continuation);
 *     other procs go idle, workers are created again on demand (startm) and
 *     sysmon is started anew;
 *   - glibc's view of the thread: the kernel wrote the child's real tid into
 *     T's TCB (CLONE_CHILD_SETTID), T gets its unique fake tid back (mutexes
 *     T holds are owned by that value); glibc's fork put every other
 *     thread's stack in its stack cache, including the glibc stack this
 *     worker's g0 runs on when it is not worker 0: it is taken back out, or
 *     the next pthread_create would reuse it.
 * T's pthread_self(), TLS, stack, mask and cancel state are unchanged.
 *
 * This runs as the first child handler of pthread_atfork (registered
 * before the program's, at its first registration or at the start: so
 * their child handlers see a working runtime), or straight after _Fork,
 * which runs no handlers.  The thread
 * pointer is pinned around the clone (below); in the child, switches go
 * through arch_prctl until fork returns to the program, then trap mode
 * comes back (wt_fork_child_tls) unless a second worker appeared.
 *
 * Between weft's two handlers the task holds glibc's fork locks: a
 * program's signal handler waits for the end of that window
 * (wt_fork_window), and a wait on one of those locks that sysmon took for
 * an implicit system call (io/syscall.c) ends in the child as the child's
 * worker gets proc 0.
 *
 * No thread of weft's is being created while the clone runs: the prepare
 * handler waits for the creations under way and holds off new ones until
 * the parent handler (core/worker.c: the spawn gate; qemu-user's child hangs
 * making its first thread otherwise).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sys/syscall.h>

#include "core/runtime.h"
#include "core/start.h"
#include "cpuclock.h"
#include "core/rtq.h"
#include "fork.h"
#include "stack/getrandom.h"
#include "setxid.h"
#include "base/throw.h"
#include "shmap.h"
#include "tracer.h"
#include "pshared.h"
#include "io/netpoll.h"
#include "io/privfd.h"
#include "io/uring.h"
#include "signal/sighandler.h"
#include "signal/sigtask.h"
#include "stack/stack.h"
#include "io/syscall.h"
#include "core/sysmon.h"
#include "core/task.h"
#include "core/hooks.h"
#include "core/lowlock.h"
#include "stack/tls.h"
#include "core/worker.h"

static bool child_trap; /* the parent used trap mode */

typedef struct node { struct node *next, *prev; } node_t;

static void list_del(node_t *n)
{
	n->next->prev = n->prev;
	n->prev->next = n->next;
}

static void list_add(node_t *n, node_t *head)
{
	n->next = head->next;
	n->prev = head;
	head->next->prev = n;
	head->next = n;
}

/* After glibc's reclaim_stacks linked T's node alone into its list of
 * running threads: take T out if it is not the main task (its TCB may be
 * freed and reused by weft), and move g0's node, if it is a glibc thread's,
 * from the stack cache to that list. */
static void fix_glibc_lists(struct wt_task *t, struct wt_m *m, int tid)
{
	node_t *tn = (node_t *)(wt_tls_pd(t->tp) + wt_off_list);
	if (tn->next == tn || !tn->next)
		return;
	node_t *head = tn->prev;
	if (!t->main) {
		list_del(tn);
		tn->next = tn->prev = tn;
	}
	if (!m || m->g0_tp == t->tp)
		return;
	node_t *gn = (node_t *)(wt_tls_pd(m->g0_tp) + wt_off_list);
	*(int *)(wt_tls_pd(m->g0_tp) + wt_off_tid) = tid;
	if (gn->next && gn->next != gn) {
		list_del(gn);
		list_add(gn, head);
	}
}

static void reset(bool reclaimed)
{
	struct wt_task *t = wt_cur();
	struct wt_m *m = t ? t->m : NULL;
	int tid = (int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);

	/* Until fork returns, switch the thread pointer by system call: the
	 * kernel-known base is T's (pinned), not this worker's guard. */
	child_trap = wt_tls_trap;
	wt_tls_trap = false;
	wt_tls_mode = WT_TLS_SYSCALL;
	if (m)
		m->tp_mode = WT_TLS_SYSCALL;

	if (t) {
		t->tp_pinned = 0; /* the parent's pins: the child switches by system call */
		t->fork_pinned = false;
		t->in_fork = false;
		/* glibc's child of a threaded parent gives the forking
		 * thread's getrandom state back to its pool (getrandom.c):
		 * the task takes one again. */
		t->rng_pinned = false;
		/* Signals sent to the parent's task, waiting: the parent's
		 * (a child starts with none pending, fork(2)). */
		atomic_store_explicit(&t->sigpend, 0, memory_order_relaxed);
		*(int *)(wt_tls_pd(t->tp) + wt_off_tid) = t->tid;
		if (reclaimed)
			fix_glibc_lists(t, m, tid);
	}

	wt_lockrank_fork_reset();
	wt_setxid_fork_reset();
	wt_rng_fork_reset();
	wt_shmap_fork_reset();
	wt_privfd_fork_reset();
	wt_ptrace_fork_reset();
	if (t)
		wt_pshared_fork_reset(t);
	atomic_store_explicit(&wt_sched.lock.v, 0, memory_order_relaxed);
	wt_timer_fork_reset();
	wt_park_fork_reset();
	wt_lowlock_fork_child();
	wt_rtq_fork_reset();
	wt_stack_fork_reset();
	wt_worker_fork_reset();
	wt_task_fork_reset(t);
	wt_cpu_fork_child(t);
	wt_tls_fork_reset();
	wt_sysmon_fork_reset();
	wt_tl_fork_reset();
	wt_netpoll_after_fork();
	wt_uring_after_fork();
	if (m) /* the parent's calls in flight are not the child's */
		atomic_store_explicit(&m->uring_inflight, 0, memory_order_relaxed);
	wt_sig_handlers_fork_reset();
	atomic_store(&wt_nimplicit, 0);

	/* Procs: all empty and idle, but proc 0 for this worker, which keeps
	 * its own proc's warm stack slots (the others' may be torn). */
	struct wt_p *mine = m ? m->p : NULL;
	/* An implicit system call (io/syscall.c: a wait inside glibc's fork, on
	 * its locks) ends here: its proc may have been handed to another
	 * worker, whose slot cache the fork caught half-updated, and the
	 * child's worker holds proc 0 running, outside the call.  Left in
	 * it, the task ran on in the child with a system-call depth that no
	 * exit ever lowered. */
	if (m && atomic_load_explicit(&m->implicit, memory_order_relaxed)) {
		if (mine && atomic_load(&mine->status) != WT_P_SYSCALL_BY(m))
			mine = NULL;
		m->insyscall--;
	}
	struct wt_p *p0 = &wt_sched.procs[0];
	if (mine && mine != p0)
		p0->slots = mine->slots;
	if (!m || !mine)
		p0->slots.n = 0;
	wt_sched.pidle = NULL;
	atomic_store(&wt_sched.npidle, 0);
	for (int i = wt_sched.nprocs - 1; i >= 0; i--) {
		struct wt_p *p = &wt_sched.procs[i];
		atomic_store_explicit(&p->head, 0, memory_order_relaxed);
		atomic_store_explicit(&p->tail, 0, memory_order_relaxed);
		atomic_store_explicit(&p->runnext, NULL, memory_order_relaxed);
		p->m = NULL;
		atomic_store_explicit(&p->want_m, 0, memory_order_relaxed);
		p->sysmon_tick = ~0ull;
		if (p != p0)
			p->slots.n = 0;
		if (i == 0 && m)
			continue;
		p->status = WT_P_IDLE;
		p->link = wt_sched.pidle;
		wt_sched.pidle = p;
		atomic_fetch_add(&wt_sched.npidle, 1);
	}
	wt_sched.runq_head = wt_sched.runq_tail = NULL;
	atomic_store(&wt_sched.runq_size, 0);
	atomic_store(&wt_sched.nsysret, 0);
	atomic_store(&wt_sched.unstarted, 0);
	wt_sched.midle = NULL;
	wt_sched.nmidle = 0;
	wt_sched.mfree = NULL;
	wt_sched.nmfree = 0;
	atomic_store(&wt_sched.nmspinning, 0);
	wt_sched.allm = NULL;
	wt_sched.nm = 0;
	atomic_store(&wt_nthreads, 0);
	if (m) {
		m->id = wt_sched.nm++;
		m->ostid = tid;
		m->tp_pinmode = false; /* the child's base is set by system call until fork returns */
		m->alllink = NULL;
		m->link = NULL;
		m->idle = false;
		m->exit_jb = NULL; /* the process's first thread now: never exits */
		m->nextp = NULL;
		atomic_store(&m->park, 0);
		m->spinning = false;
		atomic_store(&m->preempt, 0);
		atomic_store(&m->sigsent, 0);
		/* Held back in the parent's fork window: the parent's.  A
		 * child starts with no signal pending (fork(2)). */
		atomic_store(&m->defer_ready, 0);
		atomic_store(&m->defer_claim, 0);
		atomic_store(&m->defer_own, 0);
		atomic_store(&m->defer_poke, 0);
		atomic_store(&m->urg_ready, 0);
		atomic_store(&m->urg_claim, 0);
		atomic_store(&m->implicit, 0);
		m->p = p0;
		p0->m = m;
		/* A fork from a handler inside a blocking call keeps its bracket. */
		atomic_store(&p0->status, m->insyscall ? WT_P_SYSCALL_BY(m) : WT_P_RUNNING);
		wt_sched.allm = m;
		atomic_store(&wt_nthreads, 1);
	}
	wt_sig_init();
	wt_sysmon_start();
	wt_tl_fork_child();
}

/* The forking task holds glibc's fork locks (its atfork lock, stdio's list
 * lock, malloc's arenas) and the spawn gate from weft's prepare handler,
 * the last to run, to weft's parent handler, the first (or around _Fork).
 * A program's signal handler that interrupts it there is deferred as one
 * that interrupts weft is (signal/sighandler.c), and runs as the window closes:
 * run at once, it could yield or park (a sem_post returning to the
 * program is a preemption point), and the task, switched out holding
 * those locks, left the next forker's worker asleep on the atfork lock
 * and sysmon, making a worker for that proc, on malloc's lock, for ever
 * (1 run in 30 of 4 threads forking under a SIGUSR1 storm).  To the
 * program the signal came a moment later; the child starts with none
 * pending (reset), as fork(2) says.
 * Context: the forking task (or a thread weft did not create: nothing). */
void wt_fork_window(bool in)
{
	struct wt_task *t = wt_cur();
	if (!t)
		return;
	t->in_fork = in;
	if (!in)
		wt_sig_unlocked(); /* the handlers that waited */
}

/* Trap mode: the kernel-known thread pointer is the forking task's own
 * from our prepare handler (the last to run: registered first) to the
 * clone, so the child starts on a valid one and never relies on a repair;
 * the program's prepare handlers, which may park, run before the pin.
 * The pin is the task's (stack/tls.c: wt_tls_pin), not a global or the
 * worker's: glibc drops its atfork lock while a handler runs, so tasks on
 * several workers fork at once, and the forking task may change workers
 * between the two handlers (glibc's fork takes malloc's and stdio's
 * internal locks, and a worker asleep on one has its proc handed on).
 */
/* A dormant process's fork (core/start.c) is glibc's alone: the handlers,
 * registered all the same once the program registers its own, do
 * nothing. */
static void atfork_prepare(void)
{
	if (!wt_runtime_on())
		return;
	wt_spawn_fork_prepare();
	struct wt_pin pin = wt_tls_pin();
	if (pin.t)
		pin.t->fork_pinned = true;
	else
		wt_tls_unpin(pin); /* no task to fork from: nothing stays pinned */
	wt_fork_window(true);
}

static void atfork_parent(void)
{
	if (!wt_runtime_on())
		return;
	struct wt_task *t = wt_cur();
	if (t && t->fork_pinned) {
		t->fork_pinned = false;
		wt_tls_unpin((struct wt_pin){ .t = t, .tp = t->tp });
	}
	wt_spawn_fork_parent();
	wt_fork_window(false);
}

static void atfork_child(void)
{
	if (!wt_runtime_on())
		return;
	reset(true);
}

/* glibc's __register_atfork (weft's own is the program's: shim/spawn.c).
 * Context: any thread; dlvsym takes the loader's lock, recursive, so a
 * library's constructor run by dlopen may come here. */
typedef int register_fn(void (*)(void), void (*)(void), void (*)(void), void *);
static register_fn *libc_register(void)
{
	static _Atomic(register_fn *) fn;
	register_fn *f = atomic_load_explicit(&fn, memory_order_acquire);
	if (f)
		return f;
	int e = errno;
	f = (register_fn *)dlvsym(RTLD_NEXT, "__register_atfork", "GLIBC_2.3.2");
	if (!f)
		f = (register_fn *)dlsym(RTLD_NEXT, "__register_atfork");
	errno = e;
	if (!f)
		wt_throw("libc has no __register_atfork");
	atomic_store_explicit(&fn, f, memory_order_release);
	return f;
}

/* weft's handlers go in glibc's list before any of the program's, so its
 * prepare handler runs last and its child handler first: at the
 * program's first registration (pthread_atfork, made of __register_atfork
 * by libc_nonshared, reaches weft's: shim/spawn.c), or at the start if
 * the program registered none, whichever comes first.  Not in the
 * constructor: glibc's first registration reads a constant on a page of
 * libc's no other start touches, a page fault in every process (a
 * process's handlers do nothing while it is dormant anyway, above).
 * Context: the program's registration (any thread, its constructors
 * included, maybe before libweft's), or the start; once.  A concurrent
 * registration waits for weft's.  glibc's first registrations use static
 * room (no malloc). */
extern void *__dso_handle;

void wt_fork_init(void)
{
	static _Atomic int state; /* 0 none, 1 being made, 2 made */
	int st = atomic_load_explicit(&state, memory_order_acquire);
	if (st == 2)
		return;
	st = 0;
	if (!atomic_compare_exchange_strong(&state, &st, 1)) {
		while (atomic_load_explicit(&state, memory_order_acquire) != 2)
			wt_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
		return;
	}
	/* As libc_nonshared's pthread_atfork registers, with libweft's
	 * handle. */
	libc_register()(atfork_prepare, atfork_parent, atfork_child, &__dso_handle);
	atomic_store_explicit(&state, 2, memory_order_release);
}

/* The program's registration (shim/spawn.c): weft's first. */
int wt_fork_register(void (*prepare)(void), void (*parent)(void), void (*child)(void), void *dso)
{
	wt_fork_init();
	return libc_register()(prepare, parent, child, dso);
}

/* _Fork runs no handlers: the wrapper calls this in its child. */
void wt_fork_child_nohandlers(void)
{
	reset(false);
}

/* Context: the fork wrapper in the child, on the forking task, after the
 * program's child handlers.  Trap mode back, if this is still the only
 * worker (a worker made meanwhile set no guard). */
void wt_fork_child_tls(void)
{
	if (!child_trap)
		return;
	struct wt_task *t = wt_cur();
	wt_lock(&wt_sched.lock);
	bool alone = t && t->m && wt_sched.nm == 1 && wt_sched.allm == t->m;
	if (alone) {
		wt_tls_trap = true;
		wt_tls_mode = WT_TLS_WRFSBASE;
		child_trap = false;
	}
	wt_unlock(&wt_sched.lock);
	if (alone && wt_tls_worker_guard(t->m))
		wt_tls_worker_enter(t->m);
}
