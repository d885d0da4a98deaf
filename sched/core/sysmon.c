/*
 * sysmon.c — the monitor thread: an OS thread that holds no proc, made
 * with a raw clone, so that a program that makes no thread stays
 * single-threaded to glibc (thread.c): it calls no malloc, no stdio and
 * makes no glibc thread while glibc is in that mode (proc.c and observe/dump.c
 * switch glibc first, holding the only task).
 *
 * Jobs: fire timers when no worker is looking for work (every worker
 * busy, or all asleep), take procs from workers blocked in system calls
 * (io/syscall.c), start a worker for queued work that the busy ones left
 * behind (wt_sysmon_wake_idle_work), follow the cgroup CPU limit
 * (process/cgroup.c and wt_procs_resize in proc.c, about once a second), print schedtrace lines (observe/trace.c)
 * start the task dump a SIGQUIT asked for (observe/dump.c), and look for tasks
 * that wait for each other for ever about twice a second (observe/deadlock.c: its
 * looks need no change of sleep, which is 10 ms at most once the program
 * made a task, and 1 s before).
 *
 * Its sleep adapts as Go's sysmon's does: 20 µs after a cycle that took a
 * proc from a blocked call; after 50 quiet cycles (1 ms) the sleep doubles
 * each cycle up to 1 ms while some proc is busy and another idle (the most
 * a lone runnext waits for a second worker, proc.c: wt_ready_m), 10 ms
 * while every proc is busy (5 ms while tasks wait for a slice; 1 ms while
 * a task waits in a busy proc's runnext, preempt.c, or if a task ever had
 * a real-time policy), when all are idle (a proc held in a
 * blocking call with nothing queued behind it counts as idle:
 * wt_sysmon_wake_idle_work) or while the program has a single task, and a
 * worker that gives its proc up, or the creation of a second task (at most
 * one kick a millisecond: wt_sysmon_shorten_spawn), during
 * such a long sleep with some proc busy wakes it (wt_sysmon_shorten); 1 s
 * while the program never made a task besides main (its first one kicks
 * it).  It starts at the long sleep, as after a quiet spell.  A cycle that
 * sees a call with work behind it for the first time makes the next sleep
 * 20 µs, once, so a proc changes hands about 20 µs into a blocking call,
 * without shortening the sleeps after it: most calls are over by then.  It
 * sleeps on its own futex word and is woken early by wt_timer_add (a new
 * earliest timer) and by entersyscall (work queued behind a blocking call
 * while it sleeps longer than 20 µs: wt_sysmon_slow).  A kick whose call was over by
 * sysmon's second look (nothing taken) mutes the kicks for 20 µs, doubled
 * at each such kick in a row up to 10 ms, until a proc is taken again: each
 * kick costs the kicker a system call and takes a CPU from a busy worker
 * while sysmon runs, which a program making tens of thousands of short
 * calls a second (SQLite writing its database file) paid at every call.  Its
 * timer slack is 1 µs, so a 20 µs sleep is not stretched to the kernel's
 * default 50 µs slack.
 * Preemption and taking procs from workers blocked in calls weft did not
 * see: preempt.c (wt_sysmon_preempt), every busy tick; the poller when no
 * worker looks: io/netpoll.c (wt_netpoll_sysmon).
 */
#include <errno.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>

#include "process/cgroup.h"
#include "config.h"
#include "signal/crash.h"
#include "hooks.h"
#include "base/lock.h"
#include "io/netpoll.h"
#include "preempt.h"
#include "base/print.h"
#include "process/prio.h"
#include "proc.h"
#include "signal/sighandler.h"
#include "signal/sigtask.h"
#include "task.h"
#include "stack/stack.h"
#include "io/syscall.h"
#include "process/setxid.h"
#include "sysmon.h"
#include "thread.h"
#include "timer.h"
#include "worker.h"

static _Atomic int kick;
static _Atomic int sleeping;
_Atomic int wt_sysmon_slow;
/* [atomic, seq_cst] sysmon sleeps longer than DELAY_BUSY with some proc
 * busy (every one, or a single task's); a worker that gives its proc up,
 * or a second task's creation, wakes it (wt_sysmon_shorten). */
static _Atomic bool sleep_full;
_Atomic int wt_sysmon_tid;           /* [atomic] set by sysmon itself */
_Atomic bool wt_sysmon_made;         /* [atomic] set once its thread is made */

/* Where these delays come from: Go's sysmon (runtime/proc.go). */
#define DELAY_MIN 20000ll           /* 20 µs */
#define DELAY_BUSY 1000000ll        /* 1 ms: some proc runs, another is idle */
#define DELAY_SLICE 5000000ll       /* 5 ms: every proc runs, tasks wait for a slice */
#define DELAY_FULL 10000000ll       /* 10 ms: every proc runs, none waits (Go's cap) */
#define DELAY_IDLE 10000000ll       /* 10 ms: all procs idle */
#define DELAY_DEEP 1000000000ll     /* 1 s: the program never made a task besides main */
#define QUIET_CYCLES 50             /* cycles at DELAY_MIN before doubling */
#define MUTE_SHIFT_MAX 9            /* kicks muted for at most DELAY_MIN << 9 (10 ms) */

/* sysmon's thread pointer, set as it starts.  [atomic] A __thread flag
 * would be reached through __tls_get_addr from every task that asks. */
static _Atomic uintptr_t self_tp;

bool wt_sysmon_self(void)
{
	return wt_arch_get_tp() == atomic_load_explicit(&self_tp, memory_order_relaxed);
}

void wt_sysmon_shorten(void)
{
	/* seq_cst: pairs with sysmon's store of sleep_full before its second
	 * load of npidle (one of the two sees the other). */
	if (atomic_load(&sleep_full) && atomic_exchange(&sleep_full, false))
		wt_sysmon_kick();
}

/* mono ns of the last kick wt_sysmon_shorten_spawn made.  [atomic, relaxed] */
static _Atomic int64_t shortened_at;

void wt_sysmon_shorten_spawn(void)
{
	/* At most one kick a DELAY_BUSY: a create-join loop takes the task
	 * count from one to two at every spawn, and paid a futex wake and a
	 * wake-up of sysmon at each (8,000 futex calls in 10,000 spawns at
	 * GOMAXPROCS=1; 50 now), for a sysmon that then slept long again.  A
	 * task made meanwhile waits at most that long sleep for its first
	 * look, as a preempted slice does. */
	if (!atomic_load(&sleep_full))
		return;
	int64_t now = wt_nanotime();
	if (now - atomic_load_explicit(&shortened_at, memory_order_relaxed) < DELAY_BUSY)
		return;
	atomic_store_explicit(&shortened_at, now, memory_order_relaxed);
	wt_sysmon_shorten();
}

void wt_sysmon_kick(void)
{
	/* seq_cst: the store before the load of sleeping (pairs with sysmon's
	 * store of sleeping before its exchange of kick). */
	atomic_store(&kick, 1);
	if (atomic_load(&sleeping))
		wt_futex_wake(&kick, 1, false);
}

static void *sysmon(void *arg)
{
	(void)arg;
	atomic_store_explicit(&self_tp, wt_arch_get_tp(), memory_order_relaxed);
	atomic_store_explicit(&wt_sysmon_tid, (int)wt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0),
			      memory_order_relaxed);
	wt_sig_block_all();
	wt_crash_altstack();
	prctl(PR_SET_TIMERSLACK, 1000ul, 0, 0, 0);
	/* The cgroup's CPU limit (the GOMAXPROCS default) is looked up once
	 * the process has a second task, before the first worker sysmon makes
	 * for it: a process of one task uses one proc whatever the count, and
	 * the lookup's files are read in weft's own descriptor table, whose
	 * helper thread (io/privfd.c) a process that never threads never needs. */
	bool cg_first = !wt_libc_single();
	if (cg_first)
		wt_cgroup_first();
	int64_t start = wt_nanotime();
	int64_t next_trace = wt_cfg.schedtrace_ms ? start + wt_cfg.schedtrace_ms * 1000000ll
						  : INT64_MAX;
	int64_t next_procs = start + 1000000000ll;
	/* It starts as after a quiet spell, at its long sleep: nothing has
	 * changed hands yet, and a process that never needs it (a shell,
	 * `cat`, a compiler) would otherwise wake it 50 times at 20 µs and
	 * some more while the sleep doubles, in its first 2 ms, each time
	 * taking a CPU from whatever runs. */
	int64_t delay = DELAY_IDLE;
	int quiet = QUIET_CYCLES;
	/* Kicks from entersyscall: a kicked wake is judged at the look that
	 * finds its call taken or over; muted until mute_until after one that
	 * was over, for DELAY_MIN << mute_shift. */
	bool judging = false;
	int mute_shift = 0;
	int64_t mute_until = 0;
	uint64_t ids_seen = 0; /* wt_task_ids at the last look */
	for (;;) {
		int64_t now = wt_nanotime();
		/* A dump first: the timers and looks below take the
		 * scheduler's locks, which a stuck worker may hold. */
		if (atomic_load_explicit(&wt_dump_req, memory_order_relaxed))
			wt_dump_start();
		if (wt_prof_req())
			wt_prof_poll();
		wt_timer_run(now, NULL);
		int seen;
		int taken = wt_sysmon_retake(now, &seen);
		int acted = taken;
		if (taken) {
			mute_shift = 0;
			mute_until = 0;
			judging = false;
		} else if (judging && !seen) {
			mute_until = now + (DELAY_MIN << mute_shift);
			if (mute_shift < MUTE_SHIFT_MAX)
				mute_shift++;
			judging = false;
		}
		/* Making the workers startm asked for is not a reason for
		 * short looks: a program starting its threads would otherwise
		 * get 50 of them, 20 µs apart, each taking a CPU from a busy
		 * worker. */
		if (!cg_first && !wt_libc_single()) {
			cg_first = true;
			wt_cgroup_first();
		}
		wt_sysmon_make_workers();
		wt_netpoll_sysmon(now);
		wt_stack_scavenge(now);
		wt_task_scavenge(now);
		if (wt_sig_defer_poke())
			acted = 1; /* again soon while a worker stays in weft */
		wt_setxid_poll();
		wt_sysmon_cancel(now);
		wt_deadlock_look(now);
		int procs = wt_sysmon_wake_idle_work();
		bool busy = procs != WT_PROCS_IDLE;
		bool rn_wait = false;
		if (busy) {
			rn_wait = wt_sysmon_preempt(now);
			wt_sig_sweep(now);
		}
		if (now >= next_procs) {
			wt_procs_update();
			next_procs = now + 1000000000ll;
		}
		if (now >= next_trace) {
			wt_sched_trace(now - start);
			next_trace += wt_cfg.schedtrace_ms * 1000000ll;
			if (next_trace < now)
				next_trace = now + wt_cfg.schedtrace_ms * 1000000ll;
		}
		if (acted) {
			quiet = 0;
			delay = DELAY_MIN;
		} else if (++quiet > QUIET_CYCLES) {
			delay *= 2;
		}
		/* Every proc busy: a wake-up takes a CPU from a running task
		 * (and, in trap mode, costs it a thread-pointer fault after), and
		 * no proc is idle for work it could start, so sysmon looks every
		 * 5 ms while tasks wait for a slice (a slice then ends 10-15 ms
		 * in: preempt.c decides at the third look at the same task), else
		 * every 10 ms, as Go's does.  With an idle proc it looks every
		 * 1 ms (a lone runnext waits for a second worker no longer than
		 * that), and so it does in a program with a real-time task (one
		 * raised above a running one preempts it within 1 ms), and while
		 * a task waits in a busy proc's runnext (a task woken by one that
		 * runs on gets the proc about 1 ms later: preempt.c).  A program
		 * of one task that made none since the last look has no runnext
		 * to wait: an idle proc is then no reason to look every 1 ms (a
		 * compiler, a shell or any single-threaded program would pay a
		 * wake-up a millisecond, each taking a CPU from whatever ran);
		 * its second task ends the long sleep (task.c). */
		uint64_t ids = wt_task_ids();
		bool alone = atomic_load(&wt_ntasks) == 1 && ids == ids_seen;
		ids_seen = ids;
		/* A program that never made a task besides main (a shell, a
		 * compiler, `make` waiting for its children) has nothing for
		 * sysmon to look at periodically: no proc to take back or to
		 * preempt for a queued task, no slot or record to scavenge.  A
		 * new earliest timer, the first task made (task.c), a dump
		 * request, setxid and a signal held back inside weft kick it;
		 * it looks once a second (the cgroup limit), as Go's sleeps
		 * long while idle. */
		bool never = ids == 2;
		int64_t cap = never ? DELAY_DEEP
			      : !busy ? DELAY_IDLE
			      : (atomic_load(&wt_sched.npidle) > 0 && !alone) || rn_wait ||
					atomic_load_explicit(&wt_prio_rt_seen, memory_order_relaxed)
				? DELAY_BUSY
			      : procs == WT_PROCS_QUEUED ? DELAY_SLICE
							 : DELAY_FULL;
		if (delay > cap)
			delay = cap;
		int64_t until = wt_timer_next();
		if (next_trace < until)
			until = next_trace;
		if (next_procs < until)
			until = next_procs;
		if (until > now + delay)
			until = now + delay;
		if (seen && until > now + DELAY_MIN)
			until = now + DELAY_MIN; /* the second look at a new call */
		/* Published before the sleep; entersyscall exchanges it to 0 and
		 * kicks.  A kick between here and the futex wait leaves kick=1,
		 * which the exchange below sees (no sleep). */
		if (cap > DELAY_BUSY && busy && until - now > DELAY_BUSY) {
			/* seq_cst: pairs with wt_sysmon_shorten after a pidleput
			 * or a second task's creation. */
			atomic_store(&sleep_full, true);
			if (atomic_load(&wt_sched.npidle) > 0 && atomic_load(&wt_ntasks) > 1) {
				atomic_store(&sleep_full, false);
				until = now + DELAY_BUSY;
			}
		}
		bool slow = until - now > DELAY_MIN && now >= mute_until;
		atomic_store_explicit(&wt_sysmon_slow, slow, memory_order_relaxed);
		atomic_store(&sleeping, 1);
		if (!atomic_exchange(&kick, 0) && until > now) {
			struct timespec ts = { until / 1000000000, until % 1000000000 };
			wt_futex_wait(&kick, 0, &ts, false);
		}
		atomic_store(&sleeping, 0);
		atomic_store(&sleep_full, false);
		/* Woken by entersyscall (the exchange there cleared slow): the
		 * retake at the next cycle sees the call, and this kick is judged
		 * by what the looks find. */
		if (atomic_exchange(&kick, 0) && slow &&
		    !atomic_load_explicit(&wt_sysmon_slow, memory_order_relaxed))
			judging = true;
		atomic_store_explicit(&wt_sysmon_slow, 0, memory_order_relaxed);
	}
	return NULL;
}

static int sysmon_raw(void *arg)
{
	sysmon(arg);
	return 0;
}

/* Its thread's stack and TCB, made once and used again by a fork child's. */
static struct wt_raw raw;

void wt_sysmon_start(void)
{
	if (wt_thread_raw(sysmon_raw, NULL, 256 << 10, &raw) != 0)
		wt_print("weft: cannot start sysmon; timers fire only when workers look for work\n");
	else {
		atomic_fetch_add(&wt_nthreads, 1);
		atomic_store_explicit(&wt_sysmon_made, true, memory_order_relaxed);
	}
}

/* Fork child: the sysmon thread is gone; process/fork.c starts a new one. */
void wt_sysmon_fork_reset(void)
{
	atomic_store_explicit(&self_tp, 0, memory_order_relaxed);
	atomic_store(&kick, 0);
	atomic_store(&sleeping, 0);
	atomic_store(&sleep_full, false);
	atomic_store(&wt_sysmon_tid, 0);
	atomic_store(&wt_sysmon_made, false);
	wt_dump_fork_reset();
	wt_deadlock_fork_reset();
}
