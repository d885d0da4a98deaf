/*
 * netpoll.c — tasks waiting on descriptors park; one epoll instance wakes
 * them.
 *
 * Nouns: a poll descriptor (struct pd) per descriptor number, in a table
 * that only grows (pds are never freed, so a stale pointer is harmless); two
 * readiness counters per pd, seq[WT_IO_READ] and seq[WT_IO_WRITE], that the
 * poller bumps on every edge; and the poller thread, an OS thread without a
 * proc that sleeps in epoll_wait.
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
 * Why a poller thread and not Go's "idle worker blocks in epoll_wait": the
 * thread costs one OS thread for the whole process (GOMAXPROCS + sysmon +
 * poller stays within GOMAXPROCS + 3), needs no break-out protocol with
 * timers and run queues, and a woken task goes through wt_ready like any
 * other.  Idle workers also harvest events with a zero-timeout epoll_wait
 * before they sleep (wt_netpoll_harvest), so a busy process does not wait
 * for the poller thread to be scheduled.
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
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "rt.h"
#include "../shim/real.h"

struct pd {
	_Atomic uint32_t seq[2];   /* bumped by the poller per edge */
	_Atomic uint32_t closegen; /* bumped by close/dup2 of this number */
	_Atomic int kind;          /* WT_FD_UNKNOWN / POLLABLE / FILE */
};

#define CHUNK 1024
#define NCHUNKS 4096 /* 4M descriptors */

static struct pd *_Atomic chunks[NCHUNKS];
static int epfd = -1;
static wt_lock_t init_lock;
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
		void *m = mmap(NULL, CHUNK * sizeof(struct pd), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		struct pd *none = NULL;
		/* Release: the zeroed chunk before its pointer.  The loser unmaps. */
		if (atomic_compare_exchange_strong_explicit(&chunks[fd / CHUNK], &none, m,
							    memory_order_acq_rel,
							    memory_order_acquire))
			c = m;
		else {
			munmap(m, CHUNK * sizeof(struct pd));
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
	struct pd *pd = pd_of(fd, kind != WT_FD_UNKNOWN);
	if (pd)
		atomic_store_explicit(&pd->kind, kind, memory_order_relaxed);
}

uint32_t wt_netpoll_seq(int fd, int mode)
{
	struct pd *pd = pd_of(fd, true);
	/* Acquire: pairs with the poller's release bump, so what the edge
	 * announced is visible to the attempt that follows. */
	return pd ? atomic_load_explicit(&pd->seq[mode], memory_order_acquire) : 0;
}

/* ---- the poller ---- */

static void ready(int fd, uint32_t ev)
{
	struct pd *pd = pd_of(fd, false);
	if (!pd)
		return;
	if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR | EPOLLPRI)) {
		atomic_fetch_add_explicit(&pd->seq[WT_IO_READ], 1, memory_order_release);
		wt_unpark_g0(&pd->seq[WT_IO_READ], 0x7fffffff, NULL);
	}
	if (ev & (EPOLLOUT | EPOLLHUP | EPOLLERR)) {
		atomic_fetch_add_explicit(&pd->seq[WT_IO_WRITE], 1, memory_order_release);
		wt_unpark_g0(&pd->seq[WT_IO_WRITE], 0x7fffffff, NULL);
	}
}

static int poll_once(int timeout_ms)
{
	struct epoll_event ev[128];
	long n = wt_syscall6(SYS_epoll_wait, epfd, (long)ev, 128, timeout_ms, 0, 0);
	for (long i = 0; i < n; i++)
		ready((int)ev[i].data.u64, ev[i].events);
	return n > 0 ? (int)n : 0;
}

static void *poller(void *arg)
{
	(void)arg;
	wt_crash_altstack();
	for (;;)
		poll_once(-1);
	return NULL;
}

/* Context: a worker about to look for work elsewhere or sleep. */
int wt_netpoll_harvest(void)
{
	if (atomic_load_explicit(&started, memory_order_acquire) &&
	    atomic_load_explicit(&wt_netpoll_waiters, memory_order_relaxed) > 0)
		return poll_once(0);
	return 0;
}

static bool start(void)
{
	if (atomic_load_explicit(&started, memory_order_acquire))
		return true;
	wt_lock(&init_lock);
	if (!atomic_load_explicit(&started, memory_order_relaxed)) {
		long fd = wt_syscall6(SYS_epoll_create1, EPOLL_CLOEXEC, 0, 0, 0, 0, 0);
		if (fd < 0) {
			wt_unlock(&init_lock);
			wt_print("weft: epoll_create1 failed (%ld); waits on descriptors hold a thread\n",
				 -fd);
			return false;
		}
		epfd = (int)fd;
		pthread_attr_t a;
		pthread_t th;
		real.pthread_attr_init(&a);
		real.pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		real.pthread_attr_setstacksize(&a, 256 << 10);
		struct wt_pin pin = wt_tls_pin();
		int err = real.pthread_create(&th, &a, poller, NULL);
		wt_tls_unpin(pin);
		real.pthread_attr_destroy(&a);
		if (err) {
			wt_syscall6(SYS_close, epfd, 0, 0, 0, 0, 0);
			epfd = -1;
			wt_unlock(&init_lock);
			wt_print("weft: cannot start the poller thread; waits on descriptors hold a thread\n");
			return false;
		}
		atomic_fetch_add(&wt_nthreads, 1);
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

static bool seq_unchanged(const void *addr, uintptr_t s)
{
	return atomic_load_explicit((_Atomic uint32_t *)addr, memory_order_relaxed) == (uint32_t)s;
}

/*
 * Park the current task until fd may be ready for mode.  *deadline: -2 =
 * not looked up yet (this function reads SO_RCVTIMEO / SO_SNDTIMEO once),
 * -1 = none, else mono ns.  Returns 0 (try again), -EAGAIN (the description
 * is O_NONBLOCK: the program wants EAGAIN), -ETIMEDOUT (the socket timeout
 * passed), -EPERM (epoll refuses fd: do the blocking call), -EBADF (fd was
 * closed while we waited), -ECANCELED (pthread_cancel: act on it).
 */
int wt_netpoll_wait(int fd, int mode, uint32_t s, int64_t *deadline)
{
	struct pd *pd = pd_of(fd, true);
	if (!pd || !start())
		return -EPERM;
	long fl = wt_syscall6(SYS_fcntl, fd, F_GETFL, 0, 0, 0, 0);
	if (fl < 0)
		return -EPERM; /* let the real call report it */
	if (fl & O_NONBLOCK) {
		/* The program wants EAGAIN, unless epoll refuses fd: a regular
		 * file never says EAGAIN, O_NONBLOCK or not. */
		if (atomic_load_explicit(&pd->kind, memory_order_relaxed) == WT_FD_POLLABLE ||
		    wt_netpoll_register(fd) == 0)
			return -EAGAIN;
		return -EPERM;
	}
	if (*deadline == -2) {
		struct timeval tv = { 0, 0 };
		socklen_t len = sizeof tv;
		*deadline = -1;
		if (wt_syscall6(SYS_getsockopt, fd, SOL_SOCKET,
				mode == WT_IO_READ ? SO_RCVTIMEO : SO_SNDTIMEO, (long)&tv, (long)&len,
				0) == 0 &&
		    (tv.tv_sec || tv.tv_usec))
			*deadline = wt_nanotime() + tv.tv_sec * 1000000000ll + tv.tv_usec * 1000ll;
	}
	if (wt_netpoll_register(fd) < 0)
		return -EPERM;
	uint32_t gen = atomic_load_explicit(&pd->closegen, memory_order_acquire);
	struct wt_task *t = wt_cur();
	if (t)
		t->wait_reason = mode == WT_IO_READ ? "IO wait (read)" : "IO wait (write)";
	atomic_fetch_add_explicit(&wt_netpoll_waiters, 1, memory_order_relaxed);
	int pr = wt_park(&pd->seq[mode], seq_unchanged, s, *deadline, true);
	atomic_fetch_sub_explicit(&wt_netpoll_waiters, 1, memory_order_relaxed);
	if (t)
		t->wait_reason = NULL;
	if (atomic_load_explicit(&pd->closegen, memory_order_acquire) != gen)
		return -EBADF;
	if (pr == WT_PARK_TIMEDOUT)
		return -ETIMEDOUT;
	if (pr == WT_PARK_CANCELED)
		return -ECANCELED;
	return 0;
}

/* close(fd) or dup2(x, fd) by the program: forget what we knew of the number
 * and fail the tasks waiting on it with EBADF (natively a blocked call keeps
 * waiting on the old file; reading a recycled number would be worse). */
void wt_netpoll_close(int fd)
{
	struct pd *pd = pd_of(fd, false);
	if (!pd)
		return;
	atomic_store_explicit(&pd->kind, WT_FD_UNKNOWN, memory_order_relaxed);
	/* Release: pairs with the waiter's acquire load after it wakes. */
	atomic_fetch_add_explicit(&pd->closegen, 1, memory_order_release);
	for (int m = 0; m < 2; m++) {
		atomic_fetch_add_explicit(&pd->seq[m], 1, memory_order_release);
		wt_unpark(&pd->seq[m], 0x7fffffff);
	}
}

/* In a child of fork: the poller thread did not come along and the epoll
 * instance is the parent's (a shared one would deliver the child's events
 * to the parent).  Start afresh at the next wait. */
void wt_netpoll_after_fork(void)
{
	if (atomic_load_explicit(&started, memory_order_relaxed))
		wt_syscall6(SYS_close, epfd, 0, 0, 0, 0, 0);
	epfd = -1;
	atomic_store_explicit(&started, 0, memory_order_relaxed);
	atomic_store_explicit(&wt_netpoll_waiters, 0, memory_order_relaxed);
	init_lock = (wt_lock_t){ 0 };
}
