/*
 * netpoll.c — tasks waiting on descriptors park; one epoll instance wakes
 * them.
 *
 * Nouns: a poll descriptor (struct pd) per descriptor number, in a table
 * that only grows (pds are never freed, so a stale pointer is harmless); two
 * readiness counters per pd, seq[WT_IO_READ] and seq[WT_IO_WRITE], that the
 * poller bumps on every edge; and the poller thread, an OS thread without a
 * proc... see "Who calls epoll_wait" below.
 *
 * Protocol (shim/netio.c drives it; no lost wake-ups):
 *   1. s = wt_netpoll_seq(fd, mode)          read the counter first;
 *   2. try the call without blocking, for this call only (RWF_NOWAIT,
 *      MSG_DONTWAIT); success or a real error ends here;
 *   3. on EAGAIN, wt_netpoll_wait(fd, mode, s, …): register fd with
 *      EPOLLET (EPOLL_CTL_ADD every time; EEXIST means it already is), then
 *      park on &pd->seq[mode] while the counter still equals s.
 *   An edge between 1 and 3 bumped the counter, so the park does not sleep;
 *   an edge after the park's check finds the task queued.  An fd that was
 *   already ready when it was added yields an edge at once (epoll_ctl ADD
 *   checks readiness), so registering late loses nothing.
 * Registration is per (open file description, fd number) in the kernel, so
 * adding every time is also what keeps weft right when the program closes
 * an fd behind our back (stdio's fclose, pclose) and the number comes back
 * as a different file: the new pair is simply added.
 *
 * Who calls epoll_wait (Go's design): a worker that finds no work looks
 * with a zero timeout first; the last one to go idle, if tasks wait on
 * descriptors, sleeps in epoll_wait instead of on its futex and runs the
 * first task it wakes (wt_netpoll_block); while every worker is busy, sysmon
 * looks once a millisecond.  So an I/O event costs at most one thread
 * wake-up, and none when a worker is about to look anyway — a pipe
 * ping-pong on one proc runs without any.  Rejected: a dedicated poller
 * thread blocked in epoll_wait.  It is simpler, but it wins every event,
 * so each wake-up costs two thread switches (poller, then a worker):
 * measured 4-7x slower pipe hand-offs than this design.
 *
 * What the poller cannot do, and the shim does instead: a descriptor the
 * program made non-blocking gets EAGAIN as it expects (fcntl(F_GETFL),
 * checked only when a call would block); one epoll refuses (regular files,
 * some character devices) gets the blocking call between entersyscall and
 * exitsyscall, and its pd remembers that until close.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "core/runtime.h"
#include "netpoll.h"
#include "privfd.h"
#include "process/vfork.h"
#include "base/print.h"
#include "core/proc.h"
#include "core/rtq.h"
#include "core/runq.h"
#include "base/slab.h"
#include "core/task.h"
#include "uring.h"

/* What weft last saw of a number: whether it is a socket (for SO_RCVTIMEO
 * and SO_SNDTIMEO), and its O_NONBLOCK.  UNKNOWN until looked at, and
 * again after a close (O_NONBLOCK also after the program's F_SETFL). */
enum pd_sock { SOCK_UNKNOWN = 0, SOCK_YES = 1, SOCK_NOT = 2 };
enum pd_nonblock { NB_UNKNOWN = 0, NB_BLOCKING = 1, NB_NONBLOCK = 2 };

struct pd {
	_Atomic uint32_t seq[2];   /* bumped by the poller per edge */
	_Atomic uint32_t closegen; /* bumped by close/dup2 of this number */
	_Atomic int kind;          /* WT_FD_UNKNOWN / POLLABLE (registered) / FILE */
	_Atomic int sock;          /* enum pd_sock */
	_Atomic int nonblock;      /* enum pd_nonblock */
	_Atomic bool watched;      /* its closegen is kept (wt_netpoll_closegen):
				    * close_range counts it too */
};

#define CHUNK 1024
#define NCHUNKS 4096 /* 4M descriptors */

static struct pd *_Atomic chunks[NCHUNKS] WT_BSS_LARGE;
static int epfd = -1;
static wt_lock_t init_lock = WT_LOCK_INIT(WT_RANK_NETPOLL_INIT);
static _Atomic int started;
_Atomic long wt_netpoll_waiters;

static struct pd *pd_of(int fd, bool make)
{
	if (fd < 0 || fd >= CHUNK * NCHUNKS)
		return NULL;
	struct pd *c = atomic_load_explicit(&chunks[fd / CHUNK], memory_order_acquire);
	if (!c) {
		if (!make)
			return NULL;
		/* Raw mmap and munmap: callers are shim entry points that
		 * must leave the program's errno alone. */
		struct pd *m = wt_mmap_anon(CHUNK * sizeof(struct pd));
		if (!m)
			return NULL;
		struct pd *none = NULL;
		/* Release: the zeroed chunk before its pointer.  The loser unmaps. */
		if (atomic_compare_exchange_strong_explicit(&chunks[fd / CHUNK], &none, m,
							    memory_order_acq_rel,
							    memory_order_acquire))
			c = m;
		else {
			wt_syscall6(SYS_munmap, (long)m, CHUNK * sizeof(struct pd), 0, 0, 0, 0);
			c = none;
		}
	}
	return &c[fd % CHUNK];
}

int wt_fd_kind(int fd)
{
	struct pd *pd = pd_of(fd, false);
	return pd ? atomic_load_explicit(&pd->kind, memory_order_relaxed) : WT_FD_UNKNOWN;
}

void wt_fd_set_kind(int fd, int kind)
{
	if (wt_vfork_child())
		return; /* the child's descriptor table, not this process's */
	struct pd *pd = pd_of(fd, kind != WT_FD_UNKNOWN);
	if (!pd)
		return;
	atomic_store_explicit(&pd->kind, kind, memory_order_relaxed);
	if (kind == WT_FD_UNKNOWN) {
		atomic_store_explicit(&pd->sock, SOCK_UNKNOWN, memory_order_relaxed);
		atomic_store_explicit(&pd->nonblock, NB_UNKNOWN, memory_order_relaxed);
	}
}

uint32_t wt_netpoll_seq(int fd, int mode)
{
	struct pd *pd = pd_of(fd, true);
	/* Acquire: pairs with the poller's release bump, so what the edge
	 * announced is visible to the attempt that follows. */
	return pd ? atomic_load_explicit(&pd->seq[mode], memory_order_acquire) : 0;
}

/* ---- polling ---- */

static _Atomic int blocker;       /* a worker sleeps in epoll_wait */
static _Atomic int64_t last_poll; /* mono ns of the last epoll_wait */

/* Turns the events of one epoll_wait into a list of woken tasks. */
static void ready(int fd, uint32_t ev, struct wt_task **list)
{
	if (fd == wt_uring_fd()) {
		wt_uring_reap(list); /* completions: uring.c */
		return;
	}
	struct pd *pd = pd_of(fd, false);
	if (!pd)
		return;
	if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR | EPOLLPRI)) {
		/* Release: pairs with wt_netpoll_seq's acquire. */
		atomic_fetch_add_explicit(&pd->seq[WT_IO_READ], 1, memory_order_release);
		wt_unpark_collect(&pd->seq[WT_IO_READ], 0x7fffffff, list);
	}
	if (ev & (EPOLLOUT | EPOLLHUP | EPOLLERR)) {
		atomic_fetch_add_explicit(&pd->seq[WT_IO_WRITE], 1, memory_order_release);
		wt_unpark_collect(&pd->seq[WT_IO_WRITE], 0x7fffffff, list);
	}
}

/* One epoll_wait; returns the tasks it woke (linked by schedlink, for
 * wt_inject).  Context: a worker or sysmon. */
struct wt_task *wt_netpoll(int timeout_ms)
{
	if (!atomic_load_explicit(&started, memory_order_acquire))
		return NULL;
	struct epoll_event ev[128];
	struct wt_task *list = NULL;
	/* A wait (the last idle worker's) holds nothing: program handlers may
	 * run in it (signal/sighandler.c). */
	long n = timeout_ms ? wt_syscall6_sigok(SYS_epoll_pwait, epfd, (long)ev, 128, timeout_ms, 0, 8)
			    : wt_syscall6(SYS_epoll_pwait, epfd, (long)ev, 128, 0, 0, 8);
	atomic_store_explicit(&last_poll, wt_nanotime(), memory_order_relaxed);
	for (long i = 0; i < n; i++)
		ready((int)ev[i].data.u64, ev[i].events, &list);
	return list;
}

/*
 * Context: m's g0, without a proc, about to sleep.  If tasks wait on
 * descriptors and no other worker already does, sleep in epoll_wait until
 * one is ready.  Returns true holding a proc with the woken tasks on its
 * queue; false when m should sleep as usual (after queueing globally any
 * task it woke but has no proc for).
 */
bool wt_netpoll_block(struct wt_m *m)
{
	int z = 0;
	if (atomic_load_explicit(&wt_netpoll_waiters, memory_order_relaxed) <= 0 ||
	    !atomic_load_explicit(&started, memory_order_acquire) ||
	    !atomic_compare_exchange_strong(&blocker, &z, 1))
		return false;
	struct wt_task *list = NULL;
	while (!list && atomic_load_explicit(&wt_netpoll_waiters, memory_order_relaxed) > 0)
		list = wt_netpoll(-1);
	atomic_store(&blocker, 0);
	if (!list)
		return false;
	struct wt_p *p = wt_pidleget();
	if (!p) {
		wt_inject(list, NULL);
		return false;
	}
	m->p = p;
	p->m = m;
	wt_inject(list, p);
	return true;
}

/* Context: sysmon, every tick.  While every worker is busy nobody polls:
 * look at least once a millisecond, so woken tasks wait at most that. */
void wt_netpoll_sysmon(int64_t now)
{
	if (atomic_load_explicit(&wt_netpoll_waiters, memory_order_relaxed) <= 0 ||
	    atomic_load_explicit(&blocker, memory_order_relaxed) ||
	    now - atomic_load_explicit(&last_poll, memory_order_relaxed) < 1000000)
		return;
	struct wt_task *list = wt_netpoll(0);
	if (list)
		wt_inject(list, NULL);
}

static bool start(void)
{
	if (atomic_load_explicit(&started, memory_order_acquire))
		return true;
	wt_lock(&init_lock);
	if (!atomic_load_explicit(&started, memory_order_relaxed)) {
		/* Made and moved with the gate closed (privfd.c): no dup2 of
		 * the program's meets the low number meanwhile. */
		long fd = wt_fdgate_make(SYS_epoll_create1, EPOLL_CLOEXEC, 0, 0);
		if (fd < 0) {
			/* Tried again at the next wait: EMFILE (no descriptor
			 * free) passes once the program closes one.  Said once. */
			static bool said; /* [init_lock] */
			bool say = !said;
			said = true;
			wt_unlock(&init_lock);
			if (say)
				wt_print("weft: epoll_create1 failed (errno %ld); waits on descriptors "
					 "hold a thread until it can be made\n", -fd);
			return false;
		}
		epfd = (int)fd;
		atomic_store_explicit(&started, 1, memory_order_release);
	}
	wt_unlock(&init_lock);
	return true;
}

/* Adds fd to the poller's set (edge-triggered, both directions).  0, or
 * -EPERM when epoll refuses it (regular files): the fd is then a FILE. */
int wt_netpoll_register(int fd)
{
	struct pd *pd = pd_of(fd, true);
	if (!pd || !start())
		return -EPERM;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLPRI | EPOLLET,
				  .data.u64 = (uint64_t)fd };
	long r = wt_syscall6(SYS_epoll_ctl, epfd, EPOLL_CTL_ADD, fd, (long)&ev, 0, 0);
	if (r < 0 && r != -EEXIST) {
		atomic_store_explicit(&pd->kind, WT_FD_FILE, memory_order_relaxed);
		return -EPERM;
	}
	atomic_store_explicit(&pd->kind, WT_FD_POLLABLE, memory_order_relaxed);
	return 0;
}

/* The poller's epoll fd (so close/dup2 of it by the program can be refused). */
int wt_netpoll_fd(void)
{
	return atomic_load_explicit(&started, memory_order_acquire) ? epfd : -1;
}

/* O_NONBLOCK as last seen (enum pd_nonblock), or -errno from F_GETFL;
 * fcntl(F_SETFL) and ioctl(FIONBIO) through the program's own calls make
 * weft look again (wt_fd_flags_changed). */
static int nonblock(struct pd *pd, int fd)
{
	int nb = atomic_load_explicit(&pd->nonblock, memory_order_relaxed);
	if (nb == NB_UNKNOWN) {
		long fl = wt_syscall6(SYS_fcntl, fd, F_GETFL, 0, 0, 0, 0);
		if (fl < 0)
			return (int)fl;
		nb = fl & O_NONBLOCK ? NB_NONBLOCK : NB_BLOCKING;
		atomic_store_explicit(&pd->nonblock, nb, memory_order_relaxed);
	}
	return nb;
}

/* 1 when fd's description is O_NONBLOCK, 0 when not, -errno when F_GETFL
 * fails (a bad descriptor).  Context: any. */
int wt_fd_nonblock(int fd)
{
	struct pd *pd = pd_of(fd, true);
	if (!pd)
		return -EBADF;
	int nb = nonblock(pd, fd);
	return nb < 0 ? nb : nb == NB_NONBLOCK;
}

/* The deadline (mono ns, -1 none) SO_RCVTIMEO (mode READ) or SO_SNDTIMEO
 * (WRITE) sets for a call starting now. */
static int64_t sock_deadline(struct pd *pd, int fd, int mode)
{
	if (atomic_load_explicit(&pd->sock, memory_order_relaxed) == SOCK_NOT)
		return -1;
	struct timeval tv = { 0, 0 };
	socklen_t len = sizeof tv;
	long r = wt_syscall6(SYS_getsockopt, fd, SOL_SOCKET,
			     mode == WT_IO_READ ? SO_RCVTIMEO : SO_SNDTIMEO, (long)&tv, (long)&len, 0);
	atomic_store_explicit(&pd->sock, r == -ENOTSOCK ? SOCK_NOT : SOCK_YES, memory_order_relaxed);
	if (r == 0 && (tv.tv_sec || tv.tv_usec))
		return wt_nanotime() + tv.tv_sec * 1000000000ll + tv.tv_usec * 1000ll;
	return -1;
}

int64_t wt_fd_sock_deadline(int fd, int mode)
{
	struct pd *pd = pd_of(fd, true);
	return pd ? sock_deadline(pd, fd, mode) : -1;
}

/*
 * Park the current task until fd may be ready for mode.  *deadline:
 * WT_DEADLINE_SOCKOPT = not looked up yet (this function reads SO_RCVTIMEO /
 * SO_SNDTIMEO once), -1 = none, else mono ns.  Returns 0 (try again), -EAGAIN (the description
 * is O_NONBLOCK: the program wants EAGAIN), -ETIMEDOUT (the socket timeout
 * passed), -EPERM (epoll refuses fd: do the blocking call), -EBADF (fd was
 * closed while we waited), -ECANCELED (pthread_cancel: act on it).
 */
static int wait_ready(struct pd *pd, int fd, int mode, uint32_t s, int64_t *deadline);

int wt_netpoll_wait(int fd, int mode, uint32_t s, int64_t *deadline)
{
	struct pd *pd = pd_of(fd, true);
	if (!pd || !start())
		return -EPERM;
	int nb = nonblock(pd, fd);
	if (nb < 0)
		return -EPERM; /* let the real call report it */
	if (nb == NB_NONBLOCK) {
		/* The program wants EAGAIN, unless epoll refuses fd: a regular
		 * file never says EAGAIN, O_NONBLOCK or not. */
		if (atomic_load_explicit(&pd->kind, memory_order_relaxed) == WT_FD_POLLABLE ||
		    wt_netpoll_register(fd) == 0)
			return -EAGAIN;
		return -EPERM;
	}
	if (*deadline == WT_DEADLINE_SOCKOPT)
		*deadline = sock_deadline(pd, fd, mode);
	return wait_ready(pd, fd, mode, s, deadline);
}

int wt_netpoll_wait_ready(int fd, int mode, uint32_t s, int64_t deadline)
{
	struct pd *pd = pd_of(fd, true);
	if (!pd || !start())
		return -EPERM;
	return wait_ready(pd, fd, mode, s, &deadline);
}

static int wait_ready(struct pd *pd, int fd, int mode, uint32_t s, int64_t *deadline)
{
	/* Registered before (kind POLLABLE): skip the epoll_ctl.  Every way
	 * the program closes a number (close, dup2/3, fclose, pclose,
	 * close_range, closefrom) and every call that hands one out makes
	 * weft forget it, so the registration is the current file's. */
	if (atomic_load_explicit(&pd->kind, memory_order_relaxed) != WT_FD_POLLABLE &&
	    wt_netpoll_register(fd) < 0)
		return -EPERM;
	uint32_t gen = atomic_load_explicit(&pd->closegen, memory_order_acquire);
	struct wt_task *t = wt_cur();
	if (t) {
		t->wait_reason = mode == WT_IO_READ ? "IO wait (read)" : "IO wait (write)";
		t->wait_fd = fd + 1;
	}
	atomic_fetch_add_explicit(&wt_netpoll_waiters, 1, memory_order_relaxed);
	if (t)
		t->sig_norestart = false;
	int pr = wt_park(&pd->seq[mode], wt_seq_unchanged, s, *deadline, true);
	atomic_fetch_sub_explicit(&wt_netpoll_waiters, 1, memory_order_relaxed);
	if (t) {
		t->wait_reason = NULL;
		t->wait_fd = 0;
	}
	if (atomic_load_explicit(&pd->closegen, memory_order_acquire) != gen)
		return -EBADF;
	if (pr == WT_PARK_TIMEDOUT)
		return -ETIMEDOUT;
	if (pr == WT_PARK_CANCELED)
		return -ECANCELED;
	/* A signal's handler ran as the task resumed: poll and select end with
	 * EINTR; a read or write does unless the handler has SA_RESTART
	 * (t->sig_norestart), as natively. */
	if (pr == WT_PARK_INTR)
		return -EINTR;
	return 0;
}

/* ---- waiting in the call itself ----
 * A process whose only runnable task would wait for a descriptor gains
 * nothing from the poller: no other task can use the CPU meanwhile, and
 * the poller's way costs an attempt, epoll_wait calls, and a thread
 * wake-up for an event from another process (a pipe between two
 * processes: five system calls a side per message where native makes
 * one).  Then the task makes the blocking call itself, on its worker,
 * between entersyscall and exitsyscall, as for a regular file: if work
 * appears meanwhile, sysmon takes the proc from the call as from any
 * other (syscall.c).  "Alone": the process has this one task (a
 * single-threaded program, or one whose other threads have ended); with
 * others, even all parked, one of them may become runnable at any moment,
 * and then the call would cost a worker taken from it and a second
 * thread (1,000 readers on pipes would hold GOMAXPROCS + 4 threads).  And
 * its proc's queue, the global and real-time queues are empty and no
 * task waits on the poller.  Only for a descriptor the program left
 * blocking (an O_NONBLOCK one wants EAGAIN, which the attempt gave). */
static _Atomic int direct_busy; /* [atomic] a task blocks in its call */

bool wt_netpoll_direct_begin(int fd)
{
	struct wt_task *t = wt_cur();
	struct wt_m *m = t ? t->m : NULL;
	struct wt_p *p = m ? m->p : NULL;
	if (!p || m->insyscall || atomic_load_explicit(&wt_ntasks, memory_order_relaxed) != 1 ||
	    atomic_load_explicit(&direct_busy, memory_order_relaxed) ||
	    atomic_load_explicit(&wt_netpoll_waiters, memory_order_relaxed) > 0 ||
	    wt_runq_len(p) != 0 || wt_rt_any() ||
	    atomic_load_explicit(&wt_sched.runq_size, memory_order_relaxed) != 0 ||
	    atomic_load_explicit(&wt_sched.npidle, memory_order_relaxed) !=
		    atomic_load_explicit(&wt_sched.nprocs, memory_order_relaxed) - 1)
		return false;
	struct pd *pd = pd_of(fd, true);
	if (!pd || nonblock(pd, fd) != NB_BLOCKING)
		return false;
	int z = 0;
	return atomic_compare_exchange_strong(&direct_busy, &z, 1);
}

void wt_netpoll_direct_end(void)
{
	atomic_store(&direct_busy, 0);
}

uint32_t wt_netpoll_closegen(int fd)
{
	struct pd *pd = pd_of(fd, true);
	if (!pd)
		return 0;
	if (!atomic_load_explicit(&pd->watched, memory_order_relaxed))
		atomic_store_explicit(&pd->watched, true, memory_order_relaxed);
	/* Acquire: pairs with wt_netpoll_close's release. */
	return atomic_load_explicit(&pd->closegen, memory_order_acquire);
}

/* close(fd) or dup2(x, fd) by the program: forget what we knew of the number
 * and fail the tasks waiting on it with EBADF (natively a blocked call keeps
 * waiting on the old file; reading a recycled number would be worse). */
void wt_netpoll_close(int fd)
{
	if (wt_vfork_child())
		return; /* the child's descriptor table, not this process's */
	struct pd *pd = pd_of(fd, false);
	if (!pd)
		return;
	atomic_store_explicit(&pd->kind, WT_FD_UNKNOWN, memory_order_relaxed);
	atomic_store_explicit(&pd->sock, SOCK_UNKNOWN, memory_order_relaxed);
	atomic_store_explicit(&pd->nonblock, NB_UNKNOWN, memory_order_relaxed);
	/* Release: pairs with the waiter's acquire load after it wakes. */
	atomic_fetch_add_explicit(&pd->closegen, 1, memory_order_release);
	for (int m = 0; m < 2; m++) {
		atomic_fetch_add_explicit(&pd->seq[m], 1, memory_order_release);
		wt_unpark(&pd->seq[m], 0x7fffffff);
	}
}

/* In a child of fork: the epoll instance is the parent's (a shared one would deliver the child's events
 * to the parent).  Start afresh at the next wait. */
void wt_netpoll_after_fork(void)
{
	if (atomic_load_explicit(&started, memory_order_relaxed))
		wt_syscall6(SYS_close, epfd, 0, 0, 0, 0, 0);
	epfd = -1;
	atomic_store_explicit(&started, 0, memory_order_relaxed);
	atomic_store_explicit(&blocker, 0, memory_order_relaxed);
	atomic_store_explicit(&wt_netpoll_waiters, 0, memory_order_relaxed);
	atomic_store_explicit(&direct_busy, 0, memory_order_relaxed);
	atomic_store_explicit(&init_lock.v, 0, memory_order_relaxed);
}

/* The program changed fd's file status flags (O_NONBLOCK). */
void wt_fd_flags_changed(int fd)
{
	if (wt_vfork_child())
		return; /* the child's descriptor table, not this process's */
	struct pd *pd = pd_of(fd, false);
	if (pd)
		atomic_store_explicit(&pd->nonblock, NB_UNKNOWN, memory_order_relaxed);
}

/* close_range/closefrom by the program: wt_netpoll_close for every number
 * in [lo, hi] weft knows something about (weft's own epoll fd excepted). */
void wt_netpoll_close_range(unsigned lo, unsigned hi)
{
	if (wt_vfork_child())
		return; /* the child's descriptor table, not this process's */
	for (unsigned c = lo / CHUNK; c < NCHUNKS && c <= hi / CHUNK; c++) {
		struct pd *pds = atomic_load_explicit(&chunks[c], memory_order_acquire);
		if (!pds)
			continue;
		for (unsigned i = 0; i < CHUNK; i++) {
			unsigned fd = c * CHUNK + i;
			if (fd < lo || fd > hi || (int)fd == epfd || (int)fd == wt_uring_fd())
				continue;
			if (atomic_load_explicit(&pds[i].kind, memory_order_relaxed) != WT_FD_UNKNOWN ||
			    atomic_load_explicit(&pds[i].nonblock, memory_order_relaxed) != NB_UNKNOWN ||
			    atomic_load_explicit(&pds[i].watched, memory_order_relaxed))
				wt_netpoll_close((int)fd);
		}
	}
}
