/*
 * preempt.c — taking the CPU from a task that does not give it back, and
 * the proc from a worker blocked where weft did not see it.
 *
 * Both are done by sysmon (sysmon.c) sending SIGURG to the worker, as Go
 * does, and by the handler below, which runs on the worker's own thread and
 * so may change what only the owner may change.
 *
 * 1. Preemption.  sysmon remembers, per proc, the schedtick it last saw and
 *    when it first saw it (Go's sysmon retake).  A proc whose tick has not
 *    moved for 10 ms while its worker's thread CPU clock advances runs one
 *    task that long: sysmon stores m->preempt = tick + 1 and signals.  The
 *    handler switches only at a safe point:
 *      - the interrupted rip is outside libc, ld.so, the vDSO, libweft and
 *        the libraries weft uses (libunwind, libelf, libz, liblzma,
 *        libgcc_s; text ranges taken once at start with dl_iterate_phdr);
 *        so no glibc-internal lock (malloc's arena, stdio's) and no weft
 *        lock or cached proc is held by the innermost frames;
 *      - the task is not in a system call (m->insyscall == 0) and the
 *        worker runs a task (not g0);
 *      - the stack pointer is inside the task's stack with room to spare.
 *    It does not switch inside the handler.  As Go's asyncPreempt, it makes
 *    the interrupted context "call" wt_async_preempt (arch/x86_64/
 *    preempt.S): the interrupted rip is pushed 8 bytes below the 128-byte
 *    red zone and rip set to the stub.  After sigreturn the stub saves every
 *    register, the flags and the extended state (xsave with the XCR0 mask,
 *    fxsave without XSAVE), calls wt_preempt_park, which puts the task on
 *    the global run queue and reschedules (Go's gopreempt_m), and on
 *    resumption restores all of it and returns past the red zone.  Not at a
 *    safe point, the request stays in m->preempt and the task yields at
 *    its next exit from a blocking call or yield (wt_preempt_wanted); any
 *    switch meanwhile makes it stale, since it names the schedtick.
 *
 * 2. System calls nobody intercepted (stdio's internal read, inline
 *    `syscall` instructions, glibc's internal lock waits).  A proc whose
 *    tick has not moved for a sysmon tick while its worker's CPU clock
 *    stood still is suspect.  sysmon reads /proc/self/task/TID/syscall: a
 *    worker that is runnable but not running ("running"), not in a system
 *    call, in weft's own code, or in a call that a handled signal would end
 *    with EINTR (poll, epoll_wait, nanosleep, sigtimedwait, a timed futex,
 *    ...) is left alone.  Otherwise it signals; the handler, seeing the
 *    interrupted context sit on a `syscall` instruction the kernel rewound
 *    for SA_RESTART (or just after one that returned EINTR), outside
 *    libweft, with m->insyscall == 0, does what wt_entersyscall does and
 *    marks the worker (m->implicit).  After sigreturn the kernel restarts
 *    the call and it blocks again; wt_sysmon_retake then takes the proc as
 *    for any system call and hands it to another worker.
 *    The worker learns it lost its proc at its next entry into weft: every
 *    path that uses m->p from a task checks m->implicit first: wt_mcall
 *    (park, yield, exit), wt_yield, wt_entersyscall, wt_ready and task
 *    creation (wt_curp), the stack slot cache (wt_curp) and the stub.
 *    wt_implicit_settle tries, without switching, to get the proc back
 *    (CAS SYSCALL -> RUNNING) or an idle one; wt_implicit_exit, where a
 *    switch is allowed, otherwise queues the task and stops the worker, as
 *    wt_exitsyscall does.  Until then the task runs on a worker without a
 *    proc; sysmon signals such a worker whose CPU clock advances, and the
 *    handler sends it through the stub at the next safe point.
 *    A worker that is runnable but descheduled by the kernel also shows a
 *    still CPU clock.  Mistaking it costs nothing: /proc says "running" and
 *    no signal is sent; and if it were sent, the handler would find no
 *    system call at rip and change nothing.  The handler's checks, not
 *    sysmon's guess, decide: only code interrupted inside a kernel call
 *    outside libweft gives up its proc (a weft-internal futex wait, whose
 *    caller may be using m->p, never does).
 *
 * Signal set-up.  SA_SIGINFO, SA_RESTART, SA_ONSTACK.  The handler runs on
 * the worker's alternate stack, not on the task's: the kernel builds the
 * signal frame, with the extended state that sigreturn restores, right
 * below the interrupted red zone, exactly where the rewritten context
 * pushes the return address; on the task stack the push would corrupt the
 * frame being returned through.  SA_RESTART keeps read/write/futex waits
 * restarting transparently.  sysmon's requests are queued with
 * rt_tgsigqueueinfo, si_code SI_QUEUE and a per-process cookie in si_value,
 * so any other SIGURG (raise, kill, a socket's out-of-band data) goes to
 * the program's own handler (shim/signal.c records it; SA_SIGINFO,
 * SA_RESETHAND, SA_NODEFER and sa_mask honoured; its default, as
 * natively, is to ignore).  Masks never block SIGURG at the OS level
 * (shim/signal.c strips it), or preemption would stop.
 *
 * EINTR risk.  The signal interrupts whatever the worker is doing.
 * Restartable calls (read, write, wait4, accept, futex waits without a
 * timeout, ...) restart.  Calls the kernel never restarts after a handled
 * signal — poll, select, epoll_wait, nanosleep, clock_nanosleep,
 * sigtimedwait, sigsuspend, pause, timed futex waits, semop, msgrcv,
 * io_getevents, reads on sockets with SO_RCVTIMEO — return EINTR if made
 * with a raw `syscall` instruction or libc's wrapper from a task that
 * sysmon signals while it is in them.  sysmon never sends a blocked-worker
 * probe to those, and sends preemption requests only to workers whose CPU
 * clock advances, so the window is a task entering such a call in the
 * microseconds after sysmon decided; the intercepted forms (weft's
 * poll, sleep, ...) are not affected.  Go documents the same for cgo.
 *
 * Rejected: switching inside the handler (the task would resume through a
 * signal frame on another worker, restoring that worker's mask with the
 * first one's); a timer signal per worker (POSIX timers tick even when the
 * task yields often, costing a signal per slice); letting sysmon take a
 * RUNNING proc from a blocked worker without its handler (every weft entry
 * would need a fenced handshake to learn of it).
 */
#include <cpuid.h>
#include <errno.h>
#include <link.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include "runtime.h"
#include "config.h"
#include "preempt.h"
#include "print.h"
#include "proc.h"
#include "readfile.h"
#include "real.h"
#include "runq.h"
#include "sighandler.h"
#include "sigtask.h"
#include "slab.h"
#include "syscall.h"
#include "task.h"

#define PREEMPT_NS 10000000 /* a task's slice before sysmon asks, as Go's forcePreemptNS */
#define PROBE_NS 2000000    /* least interval between probes of one suspect proc */
#define SKIP_NS 10000000    /* after /proc said "leave it alone" */


_Atomic int wt_nimplicit;

/* preempt.S reads these. */
uint32_t wt_xsave_size WT_HIDDEN = 512 + 64;
uint8_t wt_xsave_ok WT_HIDDEN;
uint64_t wt_xsave_mask WT_HIDDEN;

static void *cookie; /* [const after init] si_value of sysmon's requests */
static uintptr_t main_top; /* [const after init] top of the initial thread's stack */
extern void *__libc_stack_end; /* ld.so: where _start found argc */
static long self_pid;

/* ---- text ranges: where a task must not be switched out ---- */
struct range {
	uintptr_t lo, hi;
};
#define MAXR 64
static struct range no_switch[MAXR], weft[8]; /* [const after init] */
static int n_no_switch, n_weft;

static bool in(const struct range *r, int n, uintptr_t pc)
{
	for (int i = 0; i < n; i++)
		if (pc >= r[i].lo && pc < r[i].hi)
			return true;
	return false;
}

bool wt_pc_in_weft(uintptr_t pc)
{
	return in(weft, n_weft, pc);
}

static bool runtime_lib(const char *name)
{
	static const char *const libs[] = { "libc.so", "ld-linux", "linux-vdso", "libunwind",
					    "libelf", "libz.so", "liblzma", "libgcc_s",
					    "libpthread.so", "libdl.so" };
	const char *b = strrchr(name, '/');
	b = b ? b + 1 : name;
	for (size_t i = 0; i < sizeof libs / sizeof *libs; i++)
		if (!strncmp(b, libs[i], strlen(libs[i])))
			return true;
	return false;
}

static int add_ranges(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	uintptr_t me = (uintptr_t)&add_ranges;
	bool ours = false, lib = info->dlpi_name && runtime_lib(info->dlpi_name);
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (ph->p_type == PT_LOAD && me >= lo && me < hi)
			ours = true;
	}
	if (!ours && !lib)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		struct range r = { info->dlpi_addr + ph->p_vaddr,
				   info->dlpi_addr + ph->p_vaddr + ph->p_memsz };
		if (n_no_switch < MAXR)
			no_switch[n_no_switch++] = r;
		if (ours && n_weft < 8)
			weft[n_weft++] = r;
	}
	return 0;
}

/* ---- extended state the stub saves ---- */
static void xsave_init(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_XSAVE))
		return; /* fxsave: 512 bytes, + 64 for the alignment */
	unsigned lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	__cpuid_count(0xd, 0, a, b, c, d);
	wt_xsave_mask = ((uint64_t)hi << 32) | lo;
	wt_xsave_size = b + 64;
	wt_xsave_ok = 1;
}

/* ---- the handler ---- */

/* The kernel leaves a context interrupted in a blocking call on its
 * `syscall` instruction (0f 05) when it will restart it (SA_RESTART), or
 * just after it with rax = -EINTR when it will not. */
static bool at_syscall(const greg_t *g)
{
	const unsigned char *ip = (const unsigned char *)g[REG_RIP];
	if (ip[0] == 0x0f && ip[1] == 0x05)
		return true;
	return ((uintptr_t)ip & 4095) >= 2 && ip[-2] == 0x0f && ip[-1] == 0x05 &&
	       g[REG_RAX] == -EINTR;
}

/* Context: signal handler on m's thread, the task interrupted outside
 * weft with m->insyscall == 0: wt_entersyscall's work. */
static void implicit_enter(struct wt_m *m)
{
	struct wt_p *p = m->p;
	m->insyscall = 1;
	atomic_store_explicit(&m->implicit, 1, memory_order_relaxed);
	atomic_fetch_add(&wt_nimplicit, 1);
	p->syscalltick++;
	/* Release: pairs with sysmon's acquire in wt_sysmon_retake. */
	atomic_store_explicit(&p->status, WT_P_SYSCALL_BY(m), memory_order_release);
}

/* Context: signal handler.  sysmon asked something of this worker. */
static void on_request(ucontext_t *uc)
{
	struct wt_task *t = wt_cur();
	if (!t)
		return; /* g0 or a thread weft did not create */
	struct wt_m *m = t->m;
	if (!m || m->curg != t)
		return; /* mid-switch (weft code anyway) */
	atomic_store_explicit(&m->sigsent, 0, memory_order_relaxed);
	greg_t *g = uc->uc_mcontext.gregs;
	uintptr_t pc = (uintptr_t)g[REG_RIP];
	if (in(weft, n_weft, pc))
		return; /* weft checks its flags itself; its futex waits keep the proc */
	bool sys = at_syscall(g);
	if (m->insyscall == 0) {
		if (sys) {
			if (m->p)
				implicit_enter(m);
			return;
		}
		if (!wt_preempt_wanted(m))
			return;
	} else if (!atomic_load_explicit(&m->implicit, memory_order_relaxed) ||
		   m->insyscall != 1 || sys) {
		return; /* an intercepted call, or still blocked in the implicit one */
	}
	/* Preempt, or settle an implicit call that has returned: at a safe point only. */
	/* On the task's own stack, with room for the stub's frame and the C
	 * code under it (not on a signal stack or a stack of its own making).
	 * main's frames lie above the constructor's frame weft started from
	 * (stack_hi): _start reset the stack pointer. */
	uintptr_t sp = (uintptr_t)g[REG_RSP];
	uintptr_t top = t->main ? main_top : (uintptr_t)t->stack_hi;
	if (wt_cfg.asyncpreemptoff || in(no_switch, n_no_switch, pc) ||
	    sp < (uintptr_t)t->stack_lo + 16384 + wt_xsave_size || sp > top)
		return;
	sp -= 128 + 8;
	*(uintptr_t *)sp = pc;
	g[REG_RSP] = (greg_t)sp;
	g[REG_RIP] = (greg_t)(uintptr_t)wt_async_preempt;
}

static void chain(int sig, siginfo_t *si, void *ucv)
{
	struct sigaction u;
	if (!wt_sig_handler_take(sig, &u))
		return; /* SIGURG's default action: ignore */
	if (u.sa_handler == SIG_IGN || u.sa_handler == SIG_DFL)
		return;
	/* The mask the kernel would have set for the program's handler: the
	 * interrupted mask, its sa_mask, and sig unless SA_NODEFER.  SIGSEGV
	 * and SIGBUS stay open for weft (crash.c). */
	ucontext_t *uc = ucv;
	uint64_t set, old, um;
	memcpy(&set, &uc->uc_sigmask, 8);
	memcpy(&um, &u.sa_mask, 8);
	set |= um;
	if (u.sa_flags & SA_NODEFER)
		set &= ~(1ull << (sig - 1));
	else
		set |= 1ull << (sig - 1);
	set &= ~((1ull << (SIGSEGV - 1)) | (1ull << (SIGBUS - 1)));
	wt_syscall6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&set, (long)&old, 8, 0, 0);
	if (u.sa_flags & SA_SIGINFO)
		u.sa_sigaction(sig, si, ucv);
	else
		u.sa_handler(sig);
	wt_syscall6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8, 0, 0);
}

static void on_sigurg(int sig, siginfo_t *si, void *uc)
{
	if (si && si->si_code == SI_QUEUE && si->si_value.sival_ptr == cookie)
		on_request(uc);
	else if (!si || !wt_sig_urg(si, uc))
		chain(sig, si, uc);
}

/* Context: the initial thread, at start (after the fault handler). */
void wt_preempt_init(void)
{
	dl_iterate_phdr(add_ranges, NULL);
	xsave_init();
	self_pid = wt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	main_top = WT_ALIGN_UP((uintptr_t)__libc_stack_end, 4096);
	if (wt_main_task && main_top < (uintptr_t)wt_main_task->stack_hi)
		main_top = (uintptr_t)wt_main_task->stack_hi;
	cookie = (void *)(((uintptr_t)&cookie ^ (uintptr_t)wt_nanotime() * 0x9e3779b97f4a7c15ull) | 1);
	struct sigaction sa = { 0 }, old;
	sa.sa_sigaction = on_sigurg;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	/* Everything but the fault signals is blocked in the handler, so what
	 * a poke raises (sigtask.c) is delivered as it returns, on the
	 * interrupted task; chain() sets the program handler's own mask. */
	sigfillset(&sa.sa_mask);
	sigdelset(&sa.sa_mask, SIGSEGV);
	sigdelset(&sa.sa_mask, SIGBUS);
	real.sigaction(SIGURG, &sa, &old);
	/* A handler the program set before weft started (a constructor). */
	if (old.sa_handler != SIG_DFL && (void *)old.sa_sigaction != (void *)on_sigurg)
		wt_sig_handler_set(SIGURG, &old, NULL);
}

/* ---- task side ---- */

/* Context: a task in weft code (not a signal handler).  Ends an implicit
 * system call without switching: the proc back if sysmon has not taken it,
 * else an idle one.  false: none; m->p is then NULL and the task runs on
 * as if still in the call (insyscall stays 1), without a proc. */
bool wt_implicit_settle(struct wt_m *m)
{
	if (!atomic_load_explicit(&m->implicit, memory_order_relaxed))
		return true;
	if (m->insyscall != 1)
		return false; /* an intercepted call nested inside (a signal handler's) */
	struct wt_p *p = m->p;
	int s = WT_P_SYSCALL_BY(m);
	/* Acquire: pairs with the release in implicit_enter / the new owner. */
	if (!p || !atomic_compare_exchange_strong_explicit(&p->status, &s, WT_P_RUNNING,
							  memory_order_acquire,
							  memory_order_relaxed)) {
		m->p = NULL;
		struct wt_p *np = wt_pidleget();
		if (!np)
			return false;
		np->m = m;
		m->p = np;
	}
	m->insyscall = 0;
	atomic_store_explicit(&m->implicit, 0, memory_order_relaxed);
	atomic_fetch_sub(&wt_nimplicit, 1);
	return true;
}

/* Context: a task where a switch is allowed (no lock held).  Ends an
 * implicit system call; without a proc to be had, queues the task and
 * stops the worker (wt_exitsyscall), so it resumes later elsewhere. */
void wt_implicit_exit(struct wt_m *m)
{
	if (wt_implicit_settle(m) || m->insyscall != 1)
		return;
	atomic_store_explicit(&m->implicit, 0, memory_order_relaxed);
	atomic_fetch_sub(&wt_nimplicit, 1);
	wt_exitsyscall(); /* insyscall 1 -> 0, m->p NULL: the lost-proc path */
}

struct wt_p *wt_curp(void)
{
	struct wt_task *t = wt_cur();
	if (!t || !t->m)
		return NULL;
	struct wt_m *m = t->m;
	if (unlikely(atomic_load_explicit(&m->implicit, memory_order_relaxed)))
		wt_implicit_settle(m);
	return m->insyscall ? NULL : m->p;
}

static void after_preempt(struct wt_m *m, struct wt_task *t, void *arg)
{
	(void)m;
	(void)arg;
	atomic_store(&t->state, WT_RUNNABLE);
	wt_lock(&wt_sched.lock);
	wt_globrunq_put(t);
	wt_unlock(&wt_sched.lock);
	wt_wakep();
}

/* Context: a task, no lock held.  Go's gopreempt_m: to the back of the
 * global queue, so every other runnable task goes first. */
void wt_preempt_yield(void)
{
	struct wt_task *t = wt_cur();
	atomic_store_explicit(&t->m->preempt, 0, memory_order_relaxed);
	wt_mcall(after_preempt, NULL);
}

/* Context: the task, called by wt_async_preempt with every register saved. */
void wt_preempt_park(void)
{
	struct wt_task *t = wt_cur();
	if (atomic_load_explicit(&t->m->implicit, memory_order_relaxed))
		wt_implicit_exit(t->m);
	if (wt_preempt_wanted(t->m))
		wt_preempt_yield();
}

/* ---- sysmon side ---- */

struct pmon {
	struct wt_m *m;     /* the worker seen on the proc */
	uint64_t tick;      /* its schedtick */
	int64_t when;       /* first seen */
	int64_t cpu;        /* worker's CPU time at the last look */
	int64_t next_probe; /* no blocked-worker probe before */
};
static struct pmon *pmon; /* [sysmon] one per proc */

static int64_t thread_cpu(int tid)
{
	struct timespec ts;
	/* The kernel's per-thread scheduler clock of tid (what
	 * pthread_getcpuclockid returns): ~tid << 3 | CPUCLOCK_PERTHREAD |
	 * CPUCLOCK_SCHED. */
	long clk = (long)((~(unsigned long)(unsigned)tid) << 3) | 6;
	if (wt_syscall6(SYS_clock_gettime, clk, (long)&ts, 0, 0, 0, 0) < 0)
		return -1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void send(struct wt_m *m, int64_t now)
{
	/* One request in flight; again after 10 ms in case a SIGURG of the
	 * program's, pending at the same time, absorbed ours. */
	if (atomic_load_explicit(&m->sigsent, memory_order_relaxed) && now - m->mon_sent < 10000000)
		return;
	atomic_store_explicit(&m->sigsent, 1, memory_order_relaxed);
	m->mon_sent = now;
	siginfo_t si;
	memset(&si, 0, sizeof si);
	si.si_signo = SIGURG;
	si.si_code = SI_QUEUE;
	si.si_pid = (pid_t)self_pid;
	si.si_value.sival_ptr = cookie;
	/* The signal's delivery orders m->preempt, stored before, for the handler. */
	wt_syscall6(SYS_rt_tgsigqueueinfo, self_pid, m->ostid, SIGURG, (long)&si, 0, 0);
}

static long hexnum(const char **s)
{
	const char *p = *s;
	while (*p == ' ')
		p++;
	bool neg = *p == '-';
	if (neg)
		p++;
	int base = 10;
	if (p[0] == '0' && p[1] == 'x') {
		base = 16;
		p += 2;
	}
	unsigned long v = 0;
	for (;; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0'
			: base == 16 && *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
		if (d < 0)
			break;
		v = v * base + d;
	}
	*s = p;
	return neg ? -(long)v : (long)v;
}

/* Is m's thread asleep in a system call outside weft that restarts after
 * a handled signal?  Unknown (no /proc): yes, the handler re-checks. */
static bool blocked_restartable(struct wt_m *m)
{
	char path[64], buf[256];
	wt_snprintf(path, sizeof path, "/proc/self/task/%d/syscall", m->ostid);
	if (wt_read_file(path, buf, sizeof buf) <= 0)
		return true;
	if (buf[0] < '0' || buf[0] > '9')
		return false; /* "running" (descheduled, not blocked), or "-1 sp pc" */
	const char *s = buf;
	long a[9];
	for (int i = 0; i < 9; i++)
		a[i] = hexnum(&s);
	long nr = a[0];
	if (in(weft, n_weft, (uintptr_t)a[8]))
		return false;
	switch (nr) {
	case SYS_read: case SYS_write: case SYS_pread64: case SYS_pwrite64:
	case SYS_readv: case SYS_writev: case SYS_preadv: case SYS_pwritev:
	case SYS_accept: case SYS_accept4: case SYS_recvfrom: case SYS_recvmsg:
	case SYS_sendto: case SYS_sendmsg: case SYS_sendmmsg: case SYS_wait4:
	case SYS_waitid: case SYS_fcntl: case SYS_flock: case SYS_open:
	case SYS_openat: case SYS_splice: case SYS_tee: case SYS_sendfile:
	case SYS_copy_file_range:
		return true;
	case SYS_futex: {
		int cmd = (int)a[2] & FUTEX_CMD_MASK;
		return (cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_LOCK_PI) &&
		       a[4] == 0; /* untimed waits restart; timed ones return EINTR */
	}
	default:
		return false; /* EINTR-prone (poll, epoll_wait, nanosleep, ...) or unknown */
	}
}

/* Context: sysmon, every tick while a proc is busy. */
void wt_sysmon_preempt(int64_t now)
{
	if (!pmon && !(pmon = wt_mmap_anon(sizeof *pmon * wt_sched.nprocs)))
		return;
	for (int i = 0; i < wt_sched.nprocs; i++) {
		struct wt_p *p = &wt_sched.procs[i];
		struct pmon *pm = &pmon[i];
		int s = atomic_load_explicit(&p->status, memory_order_acquire);
		struct wt_m *m = __atomic_load_n(&p->m, __ATOMIC_RELAXED);
		if ((s & 3) != WT_P_RUNNING || !m) {
			pm->m = NULL;
			continue;
		}
		uint64_t tick = __atomic_load_n(&p->schedtick, __ATOMIC_RELAXED);
		if (m != pm->m || tick != pm->tick) {
			pm->m = m;
			pm->tick = tick;
			pm->when = now;
			pm->cpu = thread_cpu(m->ostid);
			pm->next_probe = 0;
			continue;
		}
		if (!__atomic_load_n(&m->curg, __ATOMIC_RELAXED))
			continue; /* g0: looking for work or waiting for a lock */
		int64_t cpu = thread_cpu(m->ostid);
		bool ran = cpu != pm->cpu;
		pm->cpu = cpu;
		if (ran) {
			if (now - pm->when >= PREEMPT_NS) {
				atomic_store_explicit(&m->preempt, tick + 1, memory_order_relaxed);
				if (!wt_cfg.asyncpreemptoff)
					send(m, now);
			}
		} else if (now >= pm->next_probe) {
			bool b = blocked_restartable(m);
			if (b)
				send(m, now);
			pm->next_probe = now + (b ? PROBE_NS : SKIP_NS);
		}
	}
	/* Workers that left an implicit call and run on without a proc. */
	if (atomic_load(&wt_nimplicit) == 0 || wt_cfg.asyncpreemptoff)
		return;
	wt_lock(&wt_sched.lock);
	struct wt_m *all = atomic_load_explicit(&wt_sched.allm, memory_order_acquire);
	wt_unlock(&wt_sched.lock);
	for (struct wt_m *m = all; m; m = m->alllink) {
		if (!atomic_load_explicit(&m->implicit, memory_order_relaxed)) {
			m->mon_cpu = 0;
			continue;
		}
		int64_t cpu = thread_cpu(m->ostid);
		if (m->mon_cpu && cpu > m->mon_cpu + 100000)
			send(m, now);
		m->mon_cpu = cpu;
	}
}
