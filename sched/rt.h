/*
 * rt.h — the nouns of the weft runtime and the calls between its parts.
 *
 *   task   (Go's G)  a pthread of the program: stack, saved context, its
 *                    own TCB + static TLS block, a state, a queue link.
 *   proc   (Go's P)  a scheduling context; exactly GOMAXPROCS of them, each
 *                    with a local run queue and a runnext slot.
 *   worker (Go's M)  an OS thread; runs tasks while it holds a proc.  Its
 *                    own stack and TCB ("g0") run the scheduler loop.
 *
 * Ownership rules (who may write what) are given beside each field:
 *   [owner m]   only the worker that runs the task / holds the proc;
 *   [sched]     under wt_sched.lock;
 *   [atomic]    lock-free, with the ordering named at each access;
 *   [const]     written once before the object is published.
 *
 * Internal functions return 0 or -errno.  Broken invariants call wt_throw.
 */
#ifndef WEFT_RT_H
#define WEFT_RT_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define WT_HIDDEN __attribute__((visibility("hidden")))
#define WT_NORETURN __attribute__((noreturn))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Orders a store before an atomic read-modify-write against a load after it
 * (Linux's smp_mb__after_atomic).  On x86 every lock-prefixed instruction is
 * a full barrier, so only the compiler needs telling. */
#if defined(__x86_64__)
#define wt_mb_after_rmw() atomic_signal_fence(memory_order_seq_cst)
#else
#define wt_mb_after_rmw() atomic_thread_fence(memory_order_seq_cst)
#endif

struct wt_task;
struct wt_m;
struct wt_p;

/* ---- arch/x86_64: saved context (see arch/x86_64/switch.S) ---- */
struct wt_ctx {
	uintptr_t sp; /* stack pointer after the callee-saved pushes */
	uintptr_t tp; /* thread pointer (fs base) to load, 0 = keep */
};
void wt_ctx_switch(struct wt_ctx *save, const struct wt_ctx *load, uintptr_t *cur_tp);
void wt_ctx_make(struct wt_ctx *c, void *stack_top, void (*fn)(void *), void *arg, uintptr_t tp);
extern int wt_tls_mode; /* 0 = wrfsbase, 1 = arch_prctl system call */
uintptr_t wt_arch_get_tp(void);
void wt_arch_set_tp(uintptr_t tp);

/* ---- lock.c: internal locks, futex helpers ---- */
typedef struct { _Atomic int v; } wt_lock_t; /* 0 free, 1 held, 2 held + waiters */
void wt_lock(wt_lock_t *l);
void wt_unlock(wt_lock_t *l);
bool wt_trylock(wt_lock_t *l);

/* A spin lock for the parking lot's buckets, whose critical sections are a
 * few list operations: its release is a plain store, where wt_unlock needs an
 * atomic exchange to learn about sleepers.  A waiter spins, then yields its
 * CPU, so a holder descheduled by the kernel costs time, never a deadlock. */
typedef struct { _Atomic int v; } wt_spin_t;
void wt_spin_lock_slow(wt_spin_t *l);
static inline void wt_spin_lock(wt_spin_t *l)
{
	/* Acquire: pairs with the release in wt_spin_unlock. */
	if (__builtin_expect(atomic_exchange_explicit(&l->v, 1, memory_order_acquire), 0))
		wt_spin_lock_slow(l);
}
static inline void wt_spin_unlock(wt_spin_t *l)
{
	atomic_store_explicit(&l->v, 0, memory_order_release);
}
long wt_futex_wait(_Atomic int *addr, int val, const struct timespec *abs_mono, bool shared);
long wt_futex_wake(_Atomic int *addr, int n, bool shared);
long wt_futex_wait_sigok(_Atomic int *addr, int val, const struct timespec *abs_mono);
/* arch/x86_64/syscall_sigok.S: a system call where program handlers may run. */
long wt_syscall6_sigok(long nr, long a, long b, long c, long d, long e, long f);
extern const char wt_syscall6_sigok_end[];
/* Reads up to n-1 bytes of path into buf, NUL-terminated (no malloc, errno
 * untouched): the length or -errno.  lock.c */
long wt_read_file(const char *path, char *buf, size_t n);
long wt_syscall6(long nr, long a, long b, long c, long d, long e, long f);

/* ---- throw.c / print.c ---- */
WT_NORETURN void wt_throw(const char *msg);
void wt_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int wt_snprintf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
struct wt_wbuf {                /* buffered output to fd; cap >= 1024 */
	char *buf;
	size_t n, cap;
	int fd;
};
void wt_wprint(struct wt_wbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void wt_wflush(struct wt_wbuf *b);

/* ---- slab.c: mmap-backed fixed-size objects (never the program's malloc) ---- */
struct wt_slab {
	wt_lock_t lock;
	size_t size;
	void *free;         /* [lock] free list */
	char *cur, *end;    /* [lock] bump region */
};
void *wt_slab_alloc(struct wt_slab *s);   /* zeroed; NULL when out of memory */
void wt_slab_free(struct wt_slab *s, void *p);
void *wt_mmap_anon(size_t n);

/* ---- time ---- */
int64_t wt_nanotime(void);                 /* CLOCK_MONOTONIC, ns */
int64_t wt_abs_to_mono(clockid_t clk, const struct timespec *abs); /* deadline in mono ns */

/* ---- timer.c: one heap of deadlines ---- */
struct wt_timer {
	int64_t when;                       /* [timers.lock] mono ns */
	int idx;                            /* [timers.lock] heap index, -1 = not queued */
	_Atomic int running;                /* callback in flight */
	void (*fn)(struct wt_timer *, struct wt_m *); /* on a g0 (m) or sysmon (NULL), no lock held */
};
void wt_timer_add(struct wt_timer *t, int64_t when);
void wt_timer_del(struct wt_timer *t);     /* returns once fn is not running */
int64_t wt_timer_next(void);               /* earliest deadline or INT64_MAX */
int wt_timer_run(int64_t now, struct wt_m *m); /* fire expired timers; returns count */
int wt_timer_count(void);

/* ---- park.c: the parking lot ---- */
enum { WT_PARK_WOKEN = 0, WT_PARK_TIMEDOUT = 1, WT_PARK_INVALID = 2, WT_PARK_CANCELED = 3,
       WT_PARK_INTR = 4 /* a signal for the task: its handler ran, as after EINTR */ };
struct wt_waiter {
	struct wt_waiter *next;     /* [bucket lock] */
	const void *addr;           /* [bucket lock] key */
	struct wt_task *task;       /* NULL for an OS thread that is not a task */
	_Atomic int state;          /* 0 waiting, 1 woken; futex word for threads */
	int result;
	bool cancelable;            /* pthread_cancel may end this wait */
	uintptr_t token;            /* value passed by the waker */
};
/* Park the caller on addr if validate(arg) still holds under the bucket
 * lock.  deadline: mono ns or -1.  May park (task) or block (thread). */
int wt_park(const void *addr, bool (*validate)(const void *, uintptr_t), uintptr_t arg,
	    int64_t deadline, bool cancelable);
int wt_unpark(const void *addr, int n);        /* wakes up to n; returns count */
int wt_unpark_token(const void *addr, int n, uintptr_t token);
int wt_unpark_g0(const void *addr, int n, struct wt_m *m);
bool wt_park_has_waiters(const void *addr);
int wt_unpark_collect(const void *addr, int n, struct wt_task **list);
void wt_inject(struct wt_task *list, struct wt_p *p); /* proc.c */
void wt_park_cancel(struct wt_task *t);
void wt_park_interrupt(struct wt_task *t);     /* a signal arrived for t */

/* ---- task.c ---- */
enum wt_task_state {
	WT_IDLE = 0,      /* not yet started */
	WT_RUNNABLE,      /* on a run queue; the stack is not owned */
	WT_RUNNING,       /* owned by task->m */
	WT_WAITING,       /* parked; a waker makes it runnable */
	WT_DEAD,          /* exited; stack released, struct kept until join/detach */
};

struct wt_keyblock;
struct wt_dtor;
struct wt_cleanup;

struct wt_task {
	struct wt_ctx ctx;              /* [owner m] saved while not running */
	struct wt_task *schedlink;      /* [queue owner] run queue link */
	struct wt_m *m;                 /* [owner m] worker running it */
	_Atomic int state;              /* enum wt_task_state */
	uint64_t id;                    /* [const] 1 = main */
	int tid;                        /* [const] the value in its TCB's tid */
	uintptr_t tp;                   /* [const] thread pointer = pthread_t */
	char *stack_lo, *stack_hi;      /* [const] lowest the stack may reach; its start */
	char *stack_top;                /* [const] top of its slot or mapping */
	size_t stack_size;              /* [const] native bytes (attr or RLIMIT_STACK) */
	size_t stack_max;               /* [const] bytes it may grow to (WEFT_STACK_MAX) */
	size_t guard_size;              /* [const] as the attr asked */
	char *guard;                    /* [the task's fault handler; release] guard page now */
	int slot;                       /* [const] home arena slot, -1 = own mapping */
	int lowslot;                    /* [as guard] lowest slot its stack owns */
	void *(*start)(void *);         /* [const] */
	void *arg;                      /* [const] */
	void *retval;                   /* written before DEAD (release) */
	_Atomic int detached;           /* 0 joinable, 1 detached, 2 joined (a joiner owns it) */
	_Atomic int joinwait;           /* parking key for joiners */
	struct wt_task *joiner;
	bool main;                      /* [const] the program's main() */
	bool user_stack;                /* [const] pthread_attr_setstack */
	/* Wait state: one wait at a time, so these live here, not on the stack. */
	struct wt_waiter waiter;        /* [owner] */
	struct wt_timer timer;          /* [owner] deadline of the current wait */
	/* Cancellation (deferred only). */
	_Atomic int cancel;             /* bit0 requested, bit1 disabled, bit2 async, bit3 exiting */
	/* Per-task data kept by shim/: names, C++ dtors, cleanup handlers. */
	char name[16];
	struct wt_dtor *dtors;          /* [owner] __cxa_thread_atexit_impl list */
	struct wt_cleanup *cleanup;     /* [owner] __pthread_register_cancel chain */
	struct wt_task *alllink;        /* [alllock] list of all tasks (dump) */
	struct wt_task *allprev;
	/* What it waits on, for the task dump and schedtrace (read racily by
	 * sched/dump.c, which re-checks `resumes` around its reads). */
	const void *wait_on;            /* [owner] key of the current park */
	const char *wait_reason;        /* [owner] static string, NULL = unnamed */
	int64_t wait_since;             /* [owner] CLOCK_MONOTONIC_COARSE ns at park */
	uint64_t creator;               /* [const] id of the creating task, 0 = none */
	/* [owner; dump reads] bumped when the task starts and each time it is
	 * switched back in, before it writes to its stack: sched/dump.c reads
	 * a parked task's stack and discards the walk if this moved. */
	_Atomic uint32_t resumes;
	/* Signals (sched/sigtask.c).  Bit sig-1 stands for signal sig. */
	uint64_t sigmask;               /* [owner] blocked, exactly as the program set it */
	_Atomic uint64_t sigpend;       /* [atomic] sent to this task, not yet raised */
	uint64_t sigwait;               /* [owner; its worker's handler] set a sigwait waits on */
	uint64_t sigraised;             /* [owner; handler] raised for sigwait, blocked */
	unsigned sigintr;               /* [owner; handler] pokes that interrupted a call */
	bool sig_norestart;              /* [owner] a handler without SA_RESTART ran on it */
};

#define WT_CANCEL_REQ 1
#define WT_CANCEL_DISABLED 2
#define WT_CANCEL_ASYNC 4
#define WT_CANCEL_EXITING 8

/* The current task, read through the program-visible thread pointer: this
 * variable lives in every thread's static TLS, so a task reads its own copy
 * (set at creation) and a thread weft did not create reads NULL. */
extern __thread struct wt_task *wt_cur_tls __attribute__((tls_model("initial-exec")));
static inline struct wt_task *wt_cur(void) { return wt_cur_tls; }
extern intptr_t wt_cur_tpoff; /* &wt_cur_tls - thread pointer */

struct wt_task *wt_task_create(const void *attr, void *(*fn)(void *), void *arg, int *err);
WT_NORETURN void wt_task_exit(void *retval);
struct wt_task *wt_task_from_pthread(uintptr_t pt);
void wt_task_release(struct wt_task *t, struct wt_p *p); /* joined or detached+dead */
struct wt_task *wt_task_alloc(void);
void wt_task_link(struct wt_task *t);
extern struct wt_task *wt_main_task;
/* Names the wait the caller is about to park in (wt_park clears it). */
static inline void wt_wait_reason(const char *why)
{
	struct wt_task *t = wt_cur();
	if (t)
		t->wait_reason = why;
}
/* A task switched in: see `resumes`.  The release fence orders the bump
 * before the stack writes that follow (a compiler barrier on x86); it pairs
 * with the acquire fence in sched/dump.c after its stack reads. */
static inline void wt_task_resumed(struct wt_task *t)
{
	atomic_store_explicit(&t->resumes,
			      atomic_load_explicit(&t->resumes, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
}

void wt_task_entry(struct wt_task *t);     /* first frame of every task */
extern _Atomic long wt_ntasks;             /* live tasks, main included */

/* ---- stack.c ---- */
int wt_stack_alloc(struct wt_task *t, size_t size, size_t guard);
void wt_stack_free(struct wt_task *t, struct wt_p *p);
struct wt_task *wt_stack_owner(uintptr_t addr); /* task whose slot holds addr */
enum { WT_NOT_GUARD = 0, WT_GROWN = 1, WT_OVERFLOW = 2 };
struct wt_overflow {
	size_t limit, depth;            /* bytes */
	struct wt_task *blocker;        /* a task whose stack lies below, or NULL */
};
int wt_stack_grow(struct wt_task *t, uintptr_t addr, struct wt_overflow *info);
void wt_stack_scavenge(int64_t now);       /* sysmon */
void wt_stack_stats(long *live, long *warm, long *nslots);
extern size_t wt_default_stack, wt_stack_max;
extern const char *wt_guard_method;

/* ---- tls.c ---- */
int wt_tls_init(void);
uintptr_t wt_tls_new(char *top, int tid, char *stack_lo, size_t stack_size, struct wt_task *t,
		     bool compact, char **tls_low); /* returns tp, 0 when out of memory */
bool wt_tls_alloc_dtv(uintptr_t tp);
/* ---- tls_static.c ---- */
void wt_tls_static_init(void);
char *wt_tls_stack_hi(uintptr_t tp, bool compact); /* a task's stack start */
void wt_tls_static_sync(void);             /* after a dlopen */
void wt_tls_static_check(struct wt_task *t); /* a new task, once linked */
void wt_tls_static_fork_reset(void);
extern const char *wt_tls_layout;          /* "compact" or "full ..." */
void wt_tls_free(uintptr_t tp);
void wt_tls_start(struct wt_task *t);      /* on the task: __ctype_init */
extern size_t wt_tls_static_size, wt_tls_static_align, wt_tcb_size;
extern size_t wt_off_tid, wt_off_stackblock, wt_off_stackblock_size, wt_off_specific, wt_off_list;
extern ptrdiff_t wt_rseq_off;

/* ---- proc.c / worker.c: scheduling ---- */
#define WT_RUNQ_SIZE 256
enum { WT_P_IDLE = 0, WT_P_RUNNING = 1, WT_P_SYSCALL = 2 };
#define WT_P_SYSCALL_BY(m) (WT_P_SYSCALL | (((m)->id + 1) << 2))
struct wt_p {
	int id;
	_Atomic int status;             /* WT_P_*: [sched.lock] idle<->running; owner m and
					 * sysmon CAS for syscall (see syscall.c) */
	uint64_t syscalltick;           /* [owner m] bumped by every entersyscall */
	uint64_t sysmon_tick;           /* [sysmon] syscalltick seen at its last look */
	int64_t sysmon_when;            /* [sysmon] mono ns of its first look at this call */
	struct wt_m *m;                 /* [owner m] */
	struct wt_p *link;              /* [sched] idle list */
	bool disabled;                  /* [sched] id >= nprocs, owned by nobody, not idle-listed */
	_Atomic uint32_t head;          /* [atomic] consumers CAS */
	_Atomic uint32_t tail;          /* [atomic] only the owner stores */
	struct wt_task *_Atomic runnext;
	struct wt_task *_Atomic q[WT_RUNQ_SIZE];
	uint64_t schedtick;             /* [owner m] */
	struct wt_slotcache {           /* [owner m] warm stack slots */
		int n;
		int slot[16];
	} slots;
};

struct wt_m {
	struct wt_ctx g0;               /* [owner] scheduler context */
	uintptr_t cur_tp;               /* [owner] tp this thread should have */
	uintptr_t g0_tp;                /* [const] the worker's own TCB */
	uintptr_t guard_tp;             /* [const] trap mode: base the kernel knows */
	struct wt_task *curg;           /* [owner] running task */
	struct wt_task *prevg;          /* [owner] the task that switched out last */
	struct wt_p *p;                 /* [owner; sched on hand-off] */
	struct wt_p *nextp;             /* [sched] proc handed over by startm */
	struct wt_m *link;              /* [sched] idle list */
	struct wt_m *alllink;           /* [const after publish] */
	_Atomic int park;               /* futex word: 0 asleep, 1 wake */
	bool spinning;                  /* [owner] */
	int insyscall;                  /* [owner] entersyscall depth (signal handlers nest) */
	int id;
	int ostid;
	/* What to do on g0 after the task switched out (Go's mcall). */
	void (*after)(struct wt_m *, struct wt_task *, void *);
	void *after_arg;
	uint64_t fastrand;
	/* preempt.c: sysmon's requests to this worker and its answers. */
	_Atomic uint64_t preempt;       /* [atomic] schedtick + 1 of the task to preempt, 0 none */
	_Atomic int sigsent;            /* [atomic] sysmon set it and signalled; the handler clears */
	_Atomic int implicit;           /* [owner writes, sysmon reads] in a system call nobody
					 * intercepted (entered by the signal handler) */
	char *sigstk;                   /* [const] alternate signal stack (WT_SIGSTK bytes) */
	int64_t mon_cpu, mon_sent;      /* [sysmon] CPU time at its last look; last signal */
	uint64_t sigmask;               /* [owner] this thread's blocked set as last set by
					 * weft (wt_sig_eff form), WT_SIGMASK_UNKNOWN if not */
	/* sighandler.c: program signals that interrupted weft on this thread,
	 * to raise again here once it has left (siginfo kept). */
	_Atomic uint64_t defer_claim, defer_ready;
	_Atomic int defer_poke;         /* sysmon: poke this thread */
	siginfo_t *defer_info;          /* [this thread] 64 slots, mapped on first use */
};
#define WT_SIGSTK (256 << 10)

struct wt_sched {
	wt_lock_t lock;
	struct wt_task *runq_head, *runq_tail;  /* [lock] global run queue */
	_Atomic int runq_size;
	struct wt_p *pidle;             /* [lock] */
	_Atomic int npidle;
	struct wt_m *midle;             /* [lock] */
	int nmidle;                     /* [lock] */
	_Atomic int nmspinning;
	int nm;                         /* [lock] workers created */
	bool capwait;                   /* [lock] a proc waits: no thread for it (startm) */
	_Atomic bool capped;            /* [atomic, relaxed] WEFT_MAXTHREADS was reached once */
	_Atomic int nsysret;            /* [hint] tasks back from system calls at the global queue's head */
	struct wt_m *allm;              /* [lock] */
	/* GOMAXPROCS: procs 0..nprocs-1 run tasks.  Written under lock by
	 * wt_procs_resize (procresize.c); read lock-free, relaxed: a reader
	 * with a stale value at worst steals from or checks a proc being
	 * disabled, whose owner drains it at its next scheduling point. */
	_Atomic int nprocs;
	int maxprocs;                   /* [const] procs' size: affinity CPUs, or GOMAXPROCS if set */
	struct wt_p *procs;             /* [const] */
	struct wt_task *alltasks;       /* [alllock] */
	wt_lock_t alllock;
	bool started;
};
extern struct wt_sched wt_sched;

void wt_ready(struct wt_task *t);          /* on a task or a foreign thread */
void wt_ready_m(struct wt_task *t, struct wt_m *m); /* on m's g0, or sysmon (m NULL) */
void wt_mcall(void (*fn)(struct wt_m *, struct wt_task *, void *), void *arg);
void wt_park_commit(wt_spin_t *unlock);    /* task: switch out, g0 unlocks */
void wt_finish_switch(struct wt_m *m);
void wt_yield(void);
WT_NORETURN void wt_schedule(struct wt_m *m);
void wt_runq_put(struct wt_p *p, struct wt_task *t, bool next);
struct wt_task *wt_runq_get(struct wt_p *p);
struct wt_task *wt_runq_get_inherit(struct wt_p *p, bool *inherit); /* from runnext? */
void wt_runq_demote_next(struct wt_p *p);  /* runnext to the ring's tail */
struct wt_task *wt_runq_steal(struct wt_p *p, struct wt_p *victim, bool stealnext);
void wt_globrunq_put(struct wt_task *t);       /* [sched.lock held] */
void wt_globrunq_puthead(struct wt_task *t);   /* [sched.lock held] */
struct wt_task *wt_globrunq_get(struct wt_p *p, int max); /* [sched.lock held] */
uint32_t wt_runq_len(struct wt_p *p);
void wt_wakep(void);
struct wt_m *wt_newm(struct wt_p *p, bool spinning);
void wt_worker_init_self(struct wt_m *m);
void wt_stopm(struct wt_m *m);
extern _Atomic int wt_nthreads;            /* OS threads weft runs */

/* ---- sigtask.c: per-task signal masks and thread-directed signals ----
 * A task's mask is applied to its worker thread after the switch, on the task
 * (wt_sig_switchin); a switch first blocks what the next task blocks more
 * (wt_sig_preswitch), so a task's code never runs unblocked for a signal it
 * blocks.  SIGSEGV and SIGBUS (crash.c, trap-mode TLS) and SIGURG (pokes,
 * preemption) stay unblocked at the thread level; SIGKILL/SIGSTOP cannot be
 * blocked. */
#define WT_SIGBIT(s) (1ull << ((s) - 1))
#define WT_SIG_KEEP (WT_SIGBIT(11) | WT_SIGBIT(7) | WT_SIGBIT(23) | WT_SIGBIT(9) | WT_SIGBIT(19))
#define WT_SIGMASK_UNKNOWN (~0ull)
extern bool wt_sig_fence;                  /* no membarrier: fence on switch-in */
void wt_sig_init(void);                    /* start: poke handler, membarrier */
uint64_t wt_sig_thread_init(struct wt_m *m); /* a worker thread, first thing */
void wt_sig_block_all(void);               /* sysmon */
void wt_sig_block_more(struct wt_m *m, uint64_t more);
void wt_sig_switchin_slow(struct wt_task *t);
void wt_sig_deliver(struct wt_task *t);    /* on t: raise what t may take now */
int wt_sig_send(struct wt_task *t, int sig);
void wt_sig_setmask(struct wt_task *t, uint64_t mask);
extern int wt_pid;                         /* getpid(), refreshed in a fork child */
static inline uint64_t wt_sig_eff(uint64_t mask) { return mask & ~WT_SIG_KEEP; }
/* Context: the switching side (a task or g0), before switching to next. */
static inline void wt_sig_preswitch(struct wt_m *m, struct wt_task *next)
{
	uint64_t more = wt_sig_eff(next->sigmask) & ~m->sigmask;
	if (unlikely(more))
		wt_sig_block_more(m, more);
}
/* Context: t, just switched in (after wt_finish_switch: no lock held). */
static inline void wt_sig_switchin(struct wt_task *t)
{
	if (unlikely(wt_sig_fence))
		atomic_thread_fence(memory_order_seq_cst);
	if (unlikely((wt_sig_eff(t->sigmask) != t->m->sigmask) |
		     (atomic_load_explicit(&t->sigpend, memory_order_relaxed) != 0)))
		wt_sig_switchin_slow(t);
}

/* ---- fork.c ---- */
void wt_fork_init(void);                   /* start: register the atfork handlers */
void wt_fork_child_tls(void);              /* in fork's wrapper, child, after libc's fork */
void wt_fork_child_nohandlers(void);       /* after _Fork, in the child */
void wt_timer_fork_reset(void);
void wt_park_fork_reset(void);
void wt_stack_fork_reset(void);
void wt_slab_fork_reset(struct wt_slab *s);
void wt_task_fork_reset(struct wt_task *self);
void wt_worker_fork_reset(void);
void wt_sysmon_fork_reset(void);
void wt_tls_fork_reset(void);

/* ---- start.c / config.c / sysmon.c / crash.c ---- */
int wt_runtime_start(void);                /* on the initial thread, before main */
struct wt_config {
	int gomaxprocs;                 /* at start */
	bool gomaxprocs_set;            /* GOMAXPROCS given: fixed, no cgroup updates */
	int ncpu;                       /* affinity CPUs, or WEFT_NCPU */
	int maxthreads;                 /* WEFT_MAXTHREADS */
	bool maxthreads_fail;           /* WEFT_MAXTHREADS_POLICY=fail */
	int schedtrace_ms;
	bool scheddetail;
	size_t stack_size;              /* WEFT_STACK_SIZE, 0 = RLIMIT_STACK */
	size_t stack_max;               /* WEFT_STACK_MAX, 0 = 1 GiB */
	int tls_mode;                   /* -1 auto */
	bool static_tls_full;           /* WEFT_STATIC_TLS=full */
	bool asyncpreemptoff;           /* WEFTDEBUG=asyncpreemptoff=1 */
	int sigquit;                    /* WEFT_SIGQUIT: WT_SIGQUIT_* */
	bool sigquit_set;               /* WEFT_SIGQUIT was given */
	bool secure;
};
extern struct wt_config wt_cfg;
enum { WT_SIGQUIT_OFF = 0, WT_SIGQUIT_EXIT = 1, WT_SIGQUIT_CONTINUE = 2 };
void wt_config_read(void);
void wt_sysmon_start(void);
void wt_sysmon_kick(void);                 /* an earlier timer was added */
bool wt_sysmon_wake_idle_work(void);
void wt_entersyscall(void);                /* task, before a call that may block */
void wt_exitsyscall(void);                 /* task, after it */
int wt_sysmon_retake(int64_t now);         /* sysmon: take procs from blocked calls */
extern _Atomic int wt_sysmon_slow;         /* sysmon sleeps longer than its shortest delay */
void wt_handoffp(struct wt_p *p);          /* give an unowned proc work or idle it */
struct wt_p *wt_pidleget(void);            /* an idle proc or NULL; takes sched.lock */
void wt_crash_init(void);
/* sighandler.c: program handlers run through weft's trampoline, which
 * defers those that interrupt weft's own code. */
void wt_sig_trampoline(int sig, siginfo_t *si, void *uc);
void wt_sig_defer_poke(void);               /* sysmon: poke threads with deferred ones */
void wt_sig_redeliver(void *uc);            /* a poke on this thread: raise them again */
bool wt_sig_main_info(int sig, siginfo_t *out); /* siginfo of a signal moved to main */
bool wt_runtime_on(void);                   /* start.c: weft runs the program */
bool wt_pc_in_weft(uintptr_t pc);           /* preempt.c */
void wt_sig_poke(struct wt_m *m);           /* sigtask.c */
struct wt_m *wt_m_of_tid(int tid);          /* worker.c: by OS thread id, lock-free */
char *wt_crash_altstack(void);
const char *wt_src_line(uintptr_t pc, int *line); /* symbolize.c: file:line or NULL */

/* ---- preempt.c: asynchronous preemption, system calls nobody intercepted ---- */
void wt_preempt_init(void);                /* initial thread, at start */
bool wt_sig_urg(siginfo_t *si, void *uc);          /* sigtask.c: pokes, from preempt.c's handler */
void wt_sysmon_preempt(int64_t now);       /* sysmon: signal long runners and blocked workers */
bool wt_implicit_settle(struct wt_m *m);   /* task: try to end an implicit syscall, no switch */
void wt_implicit_exit(struct wt_m *m);     /* task: end it; may switch (queue + stop worker) */
void wt_preempt_yield(void);               /* task: go to the global queue and reschedule */
struct wt_p *wt_curp(void);                /* task: the proc it may use, NULL in a syscall */
extern _Atomic int wt_nimplicit;           /* workers in an implicit syscall */
/* A preemption sysmon asked for and the signal handler could not do (not a
 * safe point): honoured at the next entry that may switch. */
static inline bool wt_preempt_wanted(struct wt_m *m)
{
	return m->p && atomic_load_explicit(&m->preempt, memory_order_relaxed) == m->p->schedtick + 1;
}

/* ---- netpoll.c ---- */
enum { WT_IO_READ = 0, WT_IO_WRITE = 1 };
enum { WT_FD_UNKNOWN = 0, WT_FD_POLLABLE = 1, WT_FD_FILE = 2 };
uint32_t wt_netpoll_seq(int fd, int mode);
int wt_netpoll_wait(int fd, int mode, uint32_t seq, int64_t *deadline);
int wt_netpoll_register(int fd);
void wt_netpoll_close(int fd);
struct wt_task *wt_netpoll(int timeout_ms);
bool wt_netpoll_block(struct wt_m *m);
void wt_netpoll_sysmon(int64_t now);
int wt_netpoll_fd(void);
void wt_netpoll_after_fork(void);
int wt_fd_kind(int fd);
void wt_fd_set_kind(int fd, int kind);
void wt_fd_flags_changed(int fd);
void wt_netpoll_close_range(unsigned lo, unsigned hi);
extern _Atomic long wt_netpoll_waiters;
void wt_sched_trace(int64_t now);

/* ---- dump.c: SIGQUIT's task dump; symbol.c: names for code addresses ---- */
extern _Atomic int wt_dump_req;            /* [atomic] SIGQUIT asked; sysmon reads */
void wt_dump_init(void);                   /* start, after sysmon */
void wt_dump_start(void);                  /* sysmon: start the dumper thread */
bool wt_dump_fault(void);                  /* crash.c: a fault in the dumper's walk */
void wt_dump_hide(struct sigaction *old);  /* shim/signal.c: weft's handler reads as SIG_DFL */
void wt_dump_fork_reset(void);
struct wt_sym {
	const char *name;               /* NULL = unknown */
	uintptr_t off;                  /* pc - start of name */
	const char *file;               /* object's path, NULL = unknown */
	uintptr_t fbase;                /* object's load address */
};
/* Names pc (a return address when ret, looked up as pc - 1).  may_load:
 * read an object's symbol table now if it is not yet (libelf, which
 * allocates: never in a signal handler); else only tables read before and
 * dladdr.  Context: any thread. */
void wt_symbolize(uintptr_t pc, bool ret, struct wt_sym *s, bool may_load);
/* "  #i  0xpc name+0xoff (file)\n" into buf; returns its length. */
int wt_sym_line(char *buf, size_t n, int i, uintptr_t pc, const struct wt_sym *s,
		const char *src, int line); /* src: file of " at src:line", or NULL */
int wt_ncpu_affinity(void);
/* cgroup.c: the GOMAXPROCS default and its updates; proc.c: resizing. */
void wt_cgroup_init(const char *root);
long wt_cgroup_parse_max(const char *s);
long wt_cgroup_limit(void);
int wt_procs_default(int ncpu, long limit);
void wt_procs_update(void);
void wt_procs_resize(int n);

#define WT_ALIGN_UP(x, a) (((x) + (a) - 1) & ~((uintptr_t)(a) - 1))
#define WT_ALIGN_DOWN(x, a) ((x) & ~((uintptr_t)(a) - 1))

#endif

/* tls.c, trap mode: each worker's kernel-known thread pointer is a guard. */
bool wt_tls_worker_guard(struct wt_m *m);  /* assign m's guard window */
void wt_tls_worker_enter(struct wt_m *m);  /* on m's thread: install it */
bool wt_tls_fault(uintptr_t addr);         /* SIGSEGV: repaired a reverted fs? */
struct wt_m *wt_m0_alloc(void);
struct wt_pin { uintptr_t guard, tp; };
struct wt_pin wt_tls_pin(void);      /* see tls.c: around signal-blocking libc calls */
void wt_tls_unpin(struct wt_pin pin);
extern bool wt_tls_trap;
