/*
 * sysmon.c — the monitor thread: an OS thread that holds no proc.
 *
 * Jobs (issue 2 scope): fire timers when no worker is looking for work
 * (every worker busy, or all asleep), take procs from workers blocked in
 * system calls (syscall.c), start a worker for queued work that
 * the busy ones left behind (wt_sysmon_wake_idle_work), and print
 * schedtrace lines.  It
 * sleeps on its own futex word until the earliest timer or the next trace
 * tick; wt_timer_add kicks it when a new timer becomes the earliest.
 * Preemption and taking procs from workers blocked in calls weft did not
 * see: preempt.c (wt_sysmon_preempt), every busy tick.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "rt.h"
#include "../shim/real.h"

static _Atomic int kick;
static _Atomic int sleeping;

void wt_sysmon_kick(void)
{
	atomic_store_explicit(&kick, 1, memory_order_release);
	if (atomic_load(&sleeping))
		wt_futex_wake(&kick, 1, false);
}

static void *sysmon(void *arg)
{
	(void)arg;
	wt_sig_block_all();
	wt_crash_altstack();
	int64_t start = wt_nanotime();
	int64_t next_trace = wt_cfg.schedtrace_ms ? start + wt_cfg.schedtrace_ms * 1000000ll
						  : INT64_MAX;
	for (;;) {
		int64_t now = wt_nanotime();
		wt_timer_run(now, NULL);
		wt_sysmon_retake();
		wt_netpoll_sysmon(now);
		wt_stack_scavenge(now);
		bool busy = wt_sysmon_wake_idle_work();
		if (busy)
			wt_sysmon_preempt(now);
		if (now >= next_trace) {
			wt_sched_trace(now - start);
			next_trace += wt_cfg.schedtrace_ms * 1000000ll;
			if (next_trace < now)
				next_trace = now + wt_cfg.schedtrace_ms * 1000000ll;
		}
		int64_t until = wt_timer_next();
		if (next_trace < until)
			until = next_trace;
		/* Tick: 1 ms while a proc is busy (the most a lone runnext waits
		 * for a second worker, proc.c: wt_ready_m), 10 ms when all idle. */
		int64_t tick = busy ? 1000000 : 10000000;
		if (until > now + tick)
			until = now + tick;
		atomic_store(&sleeping, 1);
		if (!atomic_exchange(&kick, 0) && until > now) {
			struct timespec ts = { until / 1000000000, until % 1000000000 };
			wt_futex_wait(&kick, 0, &ts, false);
		}
		atomic_store(&sleeping, 0);
		atomic_store(&kick, 0);
	}
	return NULL;
}

void wt_sysmon_start(void)
{
	pthread_attr_t a;
	pthread_t th;
	real.pthread_attr_init(&a);
	real.pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	real.pthread_attr_setstacksize(&a, 256 << 10);
	struct wt_pin pin = wt_tls_pin();
	int err = real.pthread_create(&th, &a, sysmon, NULL);
	wt_tls_unpin(pin);
	if (err != 0)
		wt_print("weft: cannot start sysmon; timers fire only when workers look for work\n");
	else
		atomic_fetch_add(&wt_nthreads, 1);
	real.pthread_attr_destroy(&a);
}

/* schedtrace, in Go's format (seeds/001). */
void wt_sched_trace(int64_t since)
{
	char line[1024];
	int n = wt_snprintf(line, sizeof line,
			    "SCHED %ldms: gomaxprocs=%d idleprocs=%d threads=%d spinningthreads=%d "
			    "idlethreads=%d runqueue=%d [",
			    (long)(since / 1000000), wt_sched.nprocs, atomic_load(&wt_sched.npidle),
			    atomic_load(&wt_nthreads), atomic_load(&wt_sched.nmspinning),
			    wt_sched.nmidle, atomic_load(&wt_sched.runq_size));
	for (int i = 0; i < wt_sched.nprocs && n < (int)sizeof line - 16; i++)
		n += wt_snprintf(line + n, sizeof line - n, " %u", wt_runq_len(&wt_sched.procs[i]));
	wt_snprintf(line + n, sizeof line - n, " ]\n");
	wt_print("%s", line);
	if (!wt_cfg.scheddetail)
		return;
	wt_print("  stack guards: %s; thread pointer: %s\n", wt_guard_method,
		 wt_cfg.tls_mode == 2 ? "wrfsbase+trap" : wt_cfg.tls_mode == 0 ? "wrfsbase" : "arch_prctl");
	for (int i = 0; i < wt_sched.nprocs; i++) {
		struct wt_p *p = &wt_sched.procs[i];
		struct wt_m *m = p->m;
		wt_print("  P%d: status=%d schedtick=%lu m=%d runqsize=%u\n", i, atomic_load(&p->status) & 3,
			 (unsigned long)p->schedtick, m ? m->id : -1, wt_runq_len(p));
	}
	for (struct wt_m *m = wt_sched.allm; m; m = m->alllink) {
		struct wt_p *p = m->p;
		struct wt_task *g = m->curg;
		wt_print("  M%d: p=%d curg=%ld spinning=%d tid=%d\n", m->id, p ? p->id : -1,
			 g ? (long)g->id : -1l, m->spinning, m->ostid);
	}
}

/* Fork child: the sysmon thread is gone; fork.c starts a new one. */
void wt_sysmon_fork_reset(void)
{
	atomic_store(&kick, 0);
	atomic_store(&sleeping, 0);
}
