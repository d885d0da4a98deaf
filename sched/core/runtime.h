/*
 * runtime.h — the nouns of the weft runtime, and who owns each field.
 *
 *   task   (Go's G)  a pthread of the program: stack, saved context, its
 *                    own TCB + static TLS block, a state, a queue link.
 *   proc   (Go's P)  a scheduling context; exactly GOMAXPROCS of them run
 *                    tasks, each with a local run queue and a runnext slot.
 *   worker (Go's M)  an OS thread; runs tasks while it holds a proc.  Its
 *                    own stack and TCB ("g0") run the scheduler loop.
 *   wt_sched         the global scheduler state: global run queue, idle
 *                    procs and workers, the lists of all tasks and workers.
 *
 * Protection annotations are those of base/base.h.  The calls between the parts
 * live in one header per subsystem, next to its .c.
 */
#ifndef WEFT_RUNTIME_H
#define WEFT_RUNTIME_H

#include <signal.h>

#include "arch.h"
#include "base/base.h"
#include "base/lock.h"
#include "park.h"
#include "timer.h"

/* ---- task ---- */

/* Ownership of a task: who may run it and touch its stack. */
enum wt_task_state {
	WT_IDLE = 0,      /* created, not yet started */
	WT_RUNNABLE,      /* on a run queue; the stack is not owned */
	WT_RUNNING,       /* owned by task->m */
	WT_WAITING,       /* parked; a waker makes it runnable */
	WT_DEAD,          /* exited; stack released, struct kept until join/detach */
};

/* Who frees a dead task (task.c): the states of task->join.  The task's
 * exit exchanges in WT_EXITED; pthread_join and pthread_detach CAS from
 * WT_JOINABLE.  The loser of that race frees the task. */
enum wt_join_state {
	WT_JOINABLE = 0,  /* nobody has claimed it yet */
	WT_DETACHED = 1,  /* its exit frees it */
	WT_JOINING = 2,   /* a joiner waits on &task->join and frees it */
	WT_EXITED = 3,    /* exited while joinable: a later join or detach frees it */
	WT_EXITING = 4,   /* from WT_JOINING: the exiting task readied its joiner and
			   * is switching out; WT_EXITED follows (task.c) */
};

/* task->cancel_call: how a libc cancellation point the task sleeps in ends
 * for pthread_cancel (preempt.c's handler). */
#define WT_CALL_NONE 0
#define WT_CALL_EINTR 1  /* the call fails with EINTR; the shim acts (shim.h: CANCELABLE) */
#define WT_CALL_UNWIND 2 /* a call that waits again after EINTR (glibc's condvar
			  * waits): the task unwinds from inside glibc's window
			  * (stack/tls.h: wt_tls_libc_cancel_window), as natively */
#define WT_CALL_ASYNC 3  /* a wait that is no cancellation point, made with
			  * asynchronous cancellation enabled (glibc's lock
			  * waits on process-shared objects, shim.h: KWAIT):
			  * the task unwinds from inside its system call */
/* Bits of task->cancel. */
#define WT_CANCEL_REQ 1       /* pthread_cancel asked */
#define WT_CANCEL_DISABLED 2  /* PTHREAD_CANCEL_DISABLE */
#define WT_CANCEL_ASYNC 4     /* PTHREAD_CANCEL_ASYNCHRONOUS */
#define WT_CANCEL_EXITING 8   /* the task is exiting: no more cancellation */

struct wt_dtor;
struct wt_cleanup;

struct wt_task {
	struct wt_ctx ctx;              /* [owner m] saved while not running */
	struct wt_task *schedlink;      /* [the queue holding it] run queue / wake list link */
	struct wt_m *m;                 /* [owner m] worker running it */
	_Atomic int state;              /* [atomic] enum wt_task_state */
	_Atomic int join;               /* [atomic] enum wt_join_state; joiners park on it */
	uint64_t id;                    /* [const] 1 = main */
	int tid;                        /* [const] the value in its TCB's tid */
	int psid;                       /* [owner m] owner id for process-shared locks, 0 =
					 * none yet (process/pshared.c) */
	int pslot;                      /* [owner m] psid's slot: < 255 the pid's block,
					 * beyond a holder's, < 0 a repeated id */
	/* [owner m; dump reads] bumped when the task starts and each time it is
	 * switched back in, before it writes to its stack: observe/dump.c reads a
	 * parked task's stack and discards the walk if this moved. */
	_Atomic uint32_t resumes;
	uintptr_t tp;                   /* [const] thread pointer = pthread_t */
	int tp_pinned;                  /* [owner m] trap mode: pins held (stack/tls.c: wt_tls_pin);
	                                 * while not 0 the kernel-known base of the worker
	                                 * running it is its tp */
	bool rng_pinned;                /* [owner m] its first getrandom-family call ran
	                                 * pinned (stack/getrandom.c) */
	bool fork_pinned;               /* [owner m] pinned from fork's prepare handler to its
	                                 * parent handler (process/fork.c) */
	bool in_fork;                   /* [owner m; handler] between weft's two fork handlers,
	                                 * holding glibc's fork locks: its program signal
	                                 * handlers wait (process/fork.c) */
	char *stack_lo, *stack_hi;      /* [const] lowest the stack may reach; its start */
	char *stack_top;                /* [const] top of its slot or mapping; the
					 * reported stack is [stack_top - stack_size, stack_top) */
	size_t stack_size;              /* [const] native bytes (attr or RLIMIT_STACK) */
	size_t stack_max;               /* [const] bytes it may grow to (WEFT_STACK_MAX;
					 * stack_size for a fixed stack) */
	size_t guard_size;              /* [const] as the attr asked (reported) */
	size_t guard_len;               /* [const] bytes of weft's guard at `guard` */
	char *guard;                    /* [the task's fault handler; release] guard page now */
	char *tls_block;                /* [const] weft's mapping holding the TCB of a task
					 * on a program-supplied stack, else NULL */
	size_t tls_block_len;           /* [const] */
	int slot;                       /* [const] home arena slot, -1 = own mapping */
	int lowslot;                    /* [as guard] lowest slot its stack owns */
	void *(*start)(void *);         /* [const] int (*)(void *) when c11 */
	void *arg;                      /* [const] */
	void *retval;                   /* [owner m] written before WT_EXITED (release) */
	bool main;                      /* [const] the program's main() */
	bool c11;                       /* [const] made by thrd_create: start returns int */
	bool user_stack;                /* [const] pthread_attr_setstack */
	bool stack_fixed;               /* [const] a stack of exactly stack_size, no growth
					 * (pthread_attr_setstacksize) */
	bool stack_packed;              /* [const] a unit of a pack (stack/stack_pack.c) in slot */
	_Atomic bool stack_dirty;       /* [atomic] the program changed mappings or
					 * protection inside its stack (mmap, mprotect,
					 * munmap): restored when the stack is released */
	bool offarena_dead;             /* [sched.alllock] exited, on task.c's offarena_dead */
	/* [g0 at exit, then whoever releases its stack] its DTV, kept for the
	 * next task of its home slot (stack/stack.c: the slot's DTV), else NULL */
	void *dtv_keep;
	/* Wait state: one wait at a time, so these live here, not on the stack. */
	struct wt_waiter waiter;        /* [owner m] */
	struct wt_timer timer;          /* [owner m] deadline of the current wait */
	_Atomic int cancel;             /* [atomic] WT_CANCEL_* bits */
	/* [atomic] in a libc call that is a cancellation point (shim.h:
	 * CANCELABLE): pthread_cancel signals its worker to end it. */
	_Atomic int cancel_call;        /* WT_CALL_* */
	char name[16];                  /* [atomic, relaxed, byte by byte: wt_task_name_*]
					 * as the program named it, "" = never; inherited */
	struct wt_dtor *dtors;          /* [owner m] __cxa_thread_atexit_impl list */
	struct wt_cleanup *cleanup;     /* [owner m] __pthread_register_cancel chain */
	/* [owner m; while it is parked, its worker's next context] the mutex
	 * a condition-variable wait of weft's re-locks, NULL outside one; bit
	 * 0 set once the mutex was handed over (shim/pthread_mutex.c). */
	uintptr_t relock;
	struct wt_task *alllink;        /* [sched.alllock] list of all tasks */
	struct wt_task *allprev;        /* [sched.alllock] */
	/* What it waits on, for the task dump and schedtrace (read racily by
	 * observe/dump.c, which re-checks `resumes` around its reads). */
	const void *wait_on;            /* [owner m] key of the current park */
	const char *wait_reason;        /* [owner m] static string, NULL = unnamed */
	int64_t wait_since;             /* [owner m] CLOCK_MONOTONIC_COARSE ns at park */
	/* [written by the task itself, relaxed; observe/deadlock.c reads] rwlocks it
	 * holds for reading (glibc records no readers), NULL = free slot; a
	 * read hold beyond the slots is not recorded. */
	_Atomic(const void *) rdheld[4];
	int wait_fd;                    /* [owner m] descriptor + 1 of an IO wait, 0 = none
					 * (the trace names it, observe/timeline.c) */
	/* [its owner: the waker that readies it, then the worker that runs
	 * it] flow id of the wake that made it runnable, 0 = none: its next
	 * slice in the trace ends that arrow (observe/timeline.c) */
	uint64_t tl_flow;
	uint64_t creator;               /* [const] id of the creating task, 0 = none */
	/* Signals (signal/sigtask.c).  Bit sig-1 stands for signal sig. */
	uint64_t sigmask;               /* [owner m] blocked, exactly as the program set it */
	_Atomic uint64_t sigpend;       /* [atomic] sent to this task, not yet raised */
	uint64_t sigwait;               /* [owner m; its worker's handler] set a sigwait waits on */
	uint64_t sigraised;             /* [owner m; handler] raised for sigwait, blocked */
	bool sig_norestart;             /* [owner m] a handler without SA_RESTART ran on it */
	bool sig_hold;                  /* [owner m] in park's switch: its signals wait for
					 * the park to finish (park.c) */
	unsigned sighandled;            /* [owner m; handler] program handlers run on it
					 * (sigsuspend waits for one) */
	/* [owner m; handler] the innermost program handler running on it now,
	 * NULL = none: a record on the stack of the trampoline that runs it,
	 * linked to the one it interrupted (signal/sighandler.c), and unlinked as
	 * the handler returns or a longjmp leaves it.  A task it readies is
	 * no hand-off (proc.c: wt_ready_m); the record's call depth tells
	 * the handler's own calls from the one it interrupted (signal/sigtask.c:
	 * wt_sig_call_is_own). */
	struct wt_sigframe *sigframe;
	/* [owner m] the epoll instance its last poll or select on many
	 * descriptors waited on, kept with the set (io/pollwatch.c), NULL = none */
	struct wt_pollwatch *pollwatch;
	/* Its one io_uring call in flight (io/uring.c): the reaper writes the
	 * result, then sets done (release); the task reads done (acquire). */
	_Atomic int uring_done;         /* [atomic] 0 while in flight; the task parks on it */
	long uring_res;                 /* [written by the reaper before uring_done] */
	struct wt_m *uring_m;           /* [the task, then the reaper] the worker whose thread
					 * submitted the call in flight */
	stack_t sigstk;                 /* [owner m; handler] its sigaltstack (signal/sigstack.c):
					 * ss_size 0 = none */
	/* Its CPU time (process/cpuclock.c), counted from the first read of a thread
	 * CPU clock in the process on.  [owner m writes, inside cpu_seq's odd
	 * window; atomic, relaxed: readers retry while cpu_seq moves] */
	_Atomic int64_t cpu_ns;         /* time charged so far */
	_Atomic int64_t cpu_mark;       /* monotonic ns when switched in (or settled), 0 = none */
	_Atomic int64_t cpu_base;       /* its worker's window start + short time then */
	_Atomic uint32_t cpu_seq;       /* odd while the three change */
	/* Scheduling policy and priority (process/prio.c), as the kernel keeps them
	 * for a thread; weft honours them among tasks (rtq.c) and never puts
	 * them on the worker.  Written under rtq.lock by any thread
	 * (pthread_setschedparam of another task), read with relaxed loads. */
	_Atomic int policy;             /* [rtq.lock; atomic read] SCHED_*, | SCHED_RESET_ON_FORK */
	_Atomic int rtprio;             /* [rtq.lock; atomic read] 1..99 for FIFO/RR, else 0 */
	_Atomic int boost;              /* [rtq.lock; atomic read] lent by priority-inheritance
					 * waiters (process/pi.c), 0 = none */
	/* [rtq.lock to write; atomic read, relaxed] max(rtprio, boost): 0 runs
	 * from the rings, 1..99 from the real-time queue. */
	_Atomic int eff;
	_Atomic int nice;               /* [atomic] -20..19 (setpriority) */
	int rtq_at;                     /* [rtq.lock] the real-time list holding it, 0 = none */
	/* What glibc's descriptor caches for pthread_getschedparam (process/prio.c):
	 * set by pthread_setschedparam, pthread_setschedprio, a first
	 * pthread_getschedparam, or copied from the creator; the sched_* calls
	 * do not change it. */
	int gl_policy, gl_prio;         /* [rtq.lock] */
	int gl_flags;                   /* [rtq.lock] WT_GL_* */
	int64_t rt_since;               /* [owner m] mono ns it last left the real-time queue */
	int64_t aside_from, aside_used; /* [the task itself] the window its spawns step aside in,
					 * and the ns spent aside in it (proc.c: wt_step_aside) */
	unsigned aside_probe;           /* [the task itself] spawns since its last step aside */
	bool aside_streak;              /* [the task itself] its last step aside was cheap */
	int64_t rr_used;                /* [owner m] ns of its SCHED_RR slice used */
	const void *pi_wait;            /* [rtq.lock] priority-inheritance word it waits on */
	/* Priority-protect mutexes it holds (process/prio.c: wt_prio_protect), as
	 * glibc's descriptor counts them: pp_map[c - 1] locks of ceiling c
	 * (a slab object of WT_RTPRIO_MAX counts, NULL until the first), and
	 * pp_max the highest ceiling counted, 0 = none. */
	unsigned *pp_map;               /* [owner m: the task itself] */
	int pp_max;                     /* [rtq.lock to write; the task reads its own] */
	/* [alllock] its own CPU mask (process/affinity.c: WT_AFF_WORDS words, from a
	 * slab of its own), NULL = the process's at start, as most tasks */
	uint64_t *aff;
	/* The words the kernel keeps per thread, kept per task instead
	 * (process/tidaddr.c); written only by the task itself. */
	uintptr_t cleartid;             /* [owner m] set_tid_address's word */
	bool cleartid_set;              /* [owner m] false: none set, the TCB's tid word */
	_Atomic uintptr_t robust_head;  /* [atomic, relaxed; get_robust_list reads]
					 * set_robust_list's head, valid when robust_len */
	_Atomic size_t robust_len;      /* [atomic, relaxed] 0: none set, the TCB's list */
};

/* The current task, read through the program-visible thread pointer: this
 * variable lives in every thread's static TLS, so a task reads its own copy
 * (set at creation) and a thread weft did not create reads NULL. */
extern __thread struct wt_task *wt_cur_tls __attribute__((tls_model("initial-exec")));
static inline struct wt_task *wt_cur(void) { return wt_cur_tls; }
extern intptr_t wt_cur_tpoff; /* &wt_cur_tls - thread pointer */

/* ---- proc ---- */

#define WT_RUNQ_SIZE 256
/* A proc's status.  idle <-> running under sched.lock; running <-> syscall
 * by its owner, syscall -> idle/running by whoever wins a CAS (io/syscall.c). */
enum { WT_P_IDLE = 0, WT_P_RUNNING = 1, WT_P_SYSCALL = 2 };
#define WT_P_SYSCALL_BY(m) (WT_P_SYSCALL | (((m)->id + 1) << 2))
#define WT_P_KIND(s) ((s) & 3)         /* WT_P_* of a status, without the worker id */

#define WT_WANT_M 1
#define WT_WANT_M_SPINNING 2
struct wt_p {
	int id;                         /* [const] */
	_Atomic int status;             /* [atomic] WT_P_*, transitions as above */
	uint64_t syscalltick;           /* [owner m] bumped by every entersyscall */
	uint64_t sysmon_tick;           /* [sysmon] syscalltick seen at its last look */
	int64_t sysmon_when;            /* [sysmon] mono ns of its first look at this call */
	struct wt_m *m;                 /* [owner m] */
	struct wt_p *link;              /* [sched.lock] idle list */
	bool disabled;                  /* [sched.lock] id >= nprocs, owned by nobody, not idle-listed */
	_Atomic int want_m;             /* [atomic] 0; or given to a worker sysmon is to make:
	                                 * WT_WANT_M, | WT_WANT_M_SPINNING (proc.c: startm) */
	/* The local ring (runq.c): single producer, many consumers. */
	_Atomic uint32_t head;          /* [atomic] consumers (owner, thieves) CAS it */
	_Atomic uint32_t tail;          /* [atomic] only the owner stores it */
	/* The task the running task readied last (a hand-off runs it next).
	 * [atomic] Only the owner puts a task here (exchange: the one it
	 * replaces goes to the ring's tail); anyone takes it with a CAS to
	 * NULL — the owner in runq_get, a thief in runq_steal (after giving a
	 * running owner ~3 µs to take it itself), the owner's demotion to the
	 * ring when its shared time slice is over.  Whoever wins the CAS owns
	 * the task; a task taken from here inherits the current time slice. */
	struct wt_task *_Atomic runnext;
	struct wt_task *_Atomic q[WT_RUNQ_SIZE]; /* [atomic] slots between head and tail */
	uint64_t schedtick;             /* [owner m] tasks started (not counting inherited slices) */
	unsigned stray_seen;            /* [owner m] wt_rtq_stray when it last moved strays */
	struct wt_slotcache {           /* [owner m] warm stack slots (stack/stack.c) */
		int n;
		int slot[16];
		/* [owner m stores, anyone loads] this proc's changes to the
		 * arena's counts of live and warm slots (stack/stack.c: count) */
		_Atomic long nlive, nwarm;
	} slots;
	struct {                        /* [owner m] released task records (task.c) */
		int n;
		struct wt_task *v[32];
	} tfree;
};

/* ---- worker ---- */

#define WT_SIGSTK (256 << 10)   /* bytes of each worker's alternate signal stack */

struct wt_m {
	struct wt_ctx g0;               /* [owner m] scheduler context */
	uintptr_t cur_tp;               /* [owner m] tp this thread should have */
	int tp_mode;                    /* [owner m] how a switch writes it: WT_TLS_WRFSBASE or
					 * WT_TLS_SYSCALL (stack/tls.h); the field right after cur_tp
					 * (switch.S reads it there) */
	/* [owner m] trap mode: faults and switches counted, for the choice
	 * of tp_mode (stack/tls.c: wt_tls_adapt) */
	uint64_t tp_faults, tp_switches, tp_look_faults, tp_look_switches;
	int64_t tp_look_kswitches;
	/* [owner m] syscall mode: looks to wait before trap mode is tried
	 * again, doubled by each trial that failed; looks waited so far */
	uint32_t tp_trial_wait, tp_trial_waited;
	uintptr_t g0_tp;                /* [const] the worker's own TCB */
	uintptr_t guard_tp;             /* [const] trap mode: base the kernel knows */
	bool tp_pinmode;                /* [owner m] trap mode: tp_mode is WT_TLS_SYSCALL because
	                                 * a pinned task runs or ran here (stack/tls.c: wt_tls_pin) */
	struct wt_task *curg;           /* [owner m] running task */
	struct wt_task *prevg;          /* [owner m] the task that switched out last */
	struct wt_p *p;                 /* [owner m; sched.lock on hand-off] */
	struct wt_p *nextp;             /* [sched.lock] proc handed over by startm */
	struct wt_m *link;              /* [sched.lock] idle list, or list of exited workers */
	bool idle;                      /* [sched.lock] on the idle list */
	void *exit_jb;                  /* [owner m] worker_main's jump buffer: the thread's
					 * way out (worker.c) */
	void *catch_jb;                 /* [owner m] signal/crash.c: a read that may fault, its */
	uintptr_t catch_lo, catch_hi;   /* jump buffer and the bytes it reads, or NULL */
	struct wt_m *alllink;           /* [const after publish] see wt_sched.allm */
	_Atomic int park;               /* [atomic] futex word: 0 asleep, 1 wake */
	bool spinning;                  /* [owner m] */
	int insyscall;                  /* [owner m] entersyscall depth (signal handlers nest) */
	int id;                         /* [const] */
	int ostid;                      /* [owner m; relaxed reads] its OS thread id, 0 once
					 * the thread exited (worker.c) */
	_Atomic int uring_inflight;     /* [atomic] io_uring calls this thread submitted that have
					 * not completed: the kernel cancels them if the thread
					 * exits, so it stays (io/uring.c, worker.c) */
	_Atomic bool tracer;            /* [atomic] the thread traces a process (process/tracer.c):
					 * it never retires */
	/* What to do on g0 after the task switched out (Go's mcall). */
	void (*after)(struct wt_m *, struct wt_task *, void *); /* [owner m] */
	void *after_arg;                /* [owner m] */
	/* [owner m] weft locks the context that switched out last still held
	 * (a parking task's bucket lock, which `after` releases): the next
	 * context on m counts them as its own (base/lock.h: wt_locks_held). */
	int handed_locks;
	uint64_t fastrand;              /* [owner m] */
	/* preempt.c: sysmon's requests to this worker and its answers. */
	_Atomic uint64_t preempt;       /* [atomic] schedtick + 1 of the task to preempt, 0 none */
	_Atomic int sigsent;            /* [atomic] sysmon set it and signalled; the handler clears */
	_Atomic int implicit;           /* [atomic; owner m writes, sysmon reads] in a system call
					 * nobody intercepted (entered by the signal handler;
					 * io/syscall.c) */
	char *sigstk;                   /* [const] alternate signal stack (WT_SIGSTK bytes) */
	int64_t mon_cpu, mon_sent;      /* [sysmon] CPU time at its last look; last signal */
	int64_t mon_cancel;             /* [sysmon] last cancellation signal (wt_sysmon_cancel) */
	uint64_t sigmask;               /* [owner m] this thread's blocked set as last set by
					 * weft (wt_sig_eff form), WT_SIGMASK_UNKNOWN if not */
	/* signal/sighandler.c: program signals that interrupted weft on this thread,
	 * to raise again here once it has left (siginfo kept). */
	_Atomic uint64_t defer_claim, defer_ready; /* [atomic] */
	_Atomic int defer_own;          /* [atomic] its task's own were put back in its
					 * sigpend: a poke raises them */
	_Atomic int defer_poke;         /* [atomic] sysmon: poke this thread while any */
	siginfo_t *defer_info;          /* [this thread] 64 slots, mapped on first use */
	/* signal/sigtask.c: a program's SIGURG raised on this thread and not run
	 * yet (wt_sig_raise), which the next SIGURG handler here runs,
	 * whichever SIGURG that is.  Written and read on this thread only
	 * (a raise, a handler that interrupted it). */
	_Atomic int urg_claim;          /* [atomic] the slot is taken (being written or full) */
	_Atomic int urg_ready;          /* [atomic] ... and written: urg_task and urg_info hold */
	struct wt_task *urg_task;       /* [urg_claim] the task it was raised for, NULL g0 */
	siginfo_t urg_info;             /* [urg_claim] its siginfo */
	/* process/cpuclock.c: the current accounting window of this thread's CPU
	 * clock.  [owner m] */
	bool acct_valid;                /* the window below was opened */
	int64_t acct_cpu0;              /* its CPU clock when the window opened */
	int64_t acct_mono0;             /* monotonic ns then */
	int64_t acct_short;             /* ns charged to short runs since */
	struct wt_tlbuf *tlbuf;         /* [const after start] its trace events (observe/timeline.c),
					 * NULL = tracing off */
};

/* ---- the scheduler ---- */

struct wt_sched {
	wt_lock_t lock;
	struct wt_task *runq_head, *runq_tail;  /* [sched.lock] global run queue */
	_Atomic int runq_size;          /* [sched.lock to change; read lock-free as a hint] */
	struct wt_p *pidle;             /* [sched.lock] */
	_Atomic int npidle;             /* [sched.lock to change; read lock-free as a hint] */
	struct wt_m *midle;             /* [sched.lock] */
	int nmidle;                     /* [sched.lock] */
	struct wt_m *mfree;             /* [sched.lock] workers whose thread exited (worker.c) */
	int nmfree;                     /* [sched.lock] those, and the ones retired on their
					 * way there: nm - nmfree workers live */
	_Atomic int nmspinning;         /* [atomic] */
	int nm;                         /* [sched.lock] workers created */
	bool capwait;                   /* [sched.lock] a proc waits: no thread for it (startm) */
	_Atomic bool capped;            /* [atomic, relaxed] WEFT_MAXTHREADS was reached once */
	_Atomic int nsysret;            /* [atomic, relaxed; a hint] tasks back from system calls
					 * at the global queue's head */
	/* Every worker ever created, newest first.  [sched.lock to push, with
	 * a release store; read without the lock after an acquire load]: the
	 * list only grows (a fork child rebuilds it alone) and a worker's
	 * alllink is constant once published. */
	struct wt_m *_Atomic allm;
	/* GOMAXPROCS: procs 0..nprocs-1 run tasks.  [sched.lock to change, in
	 * wt_procs_resize; read lock-free, relaxed]: a reader with a stale
	 * value at worst steals from or checks a proc being disabled, whose
	 * owner drains it at its next scheduling point. */
	_Atomic int nprocs;
	int maxprocs;                   /* [const] procs' size: affinity CPUs, or GOMAXPROCS if set */
	struct wt_p *procs;             /* [const] */
	_Atomic int unstarted WT_OWN_LINE; /* [atomic, relaxed; a hint] tasks made that have not run
					 * yet (task.c: wt_task_create, wt_task_entry) */
	wt_lock_t alllock WT_OWN_LINE;
	struct wt_task *alltasks;       /* [sched.alllock] */
};
extern struct wt_sched wt_sched;

#endif
