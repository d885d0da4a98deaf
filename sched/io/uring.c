/*
 * uring.c — connect and accept on blocking sockets, made by the kernel
 * asynchronously (io_uring) while the task parks.
 *
 * A blocking connect(2) waits for the TCP handshake, a blocking accept(2)
 * for a connection, and neither has a non-blocking form for one call only
 * (as RWF_NOWAIT and MSG_DONTWAIT are for reads and writes).  io_uring's
 * IORING_OP_CONNECT and IORING_OP_ACCEPT have one: the kernel makes the
 * attempt with O_NONBLOCK or'ed into the flags of that attempt (the file
 * description's own f_flags untouched), and when it would block it waits on
 * the socket's poll queue and tries again, then posts a completion (CQE)
 * holding the native result: 0, ECONNREFUSED, ETIMEDOUT, a new descriptor.
 * The task parks meanwhile, and holds no OS thread.
 *
 * Nouns: one ring per process (created at the first call; its fd moved to
 * 100 or above, as the epoll fd, behind privfd.c's gate, and spared by the
 * program's close, dup2 and close_range), its submission queue under sq_lock, its completion
 * queue drained under cq_lock.  A task has at most one call in flight; its
 * user_data is the task, and the task's uring_done / uring_res carry the
 * result.
 *
 * Protocol (no lost wake-ups):
 *   1. t->uring_done = 0; fill an SQE; io_uring_enter, under sq_lock;
 *   2. the task parks on &t->uring_done while it is 0;
 *   3. whoever drains the CQ (the submitter right after its enter, for
 *      calls that completed at once; else the poller: the ring fd is in the
 *      one epoll set, edge-triggered, and every CQE posted wakes the ring's
 *      poll queue) writes uring_res, stores uring_done = 1 (release), then
 *      unparks &t->uring_done.
 *   A drainer may unpark a task that saw uring_done already and went on:
 *   its next wait on that word wakes once for nothing and parks again
 *   (every wait here loops on the word).
 * A call given up (SO_SNDTIMEO / SO_RCVTIMEO passed, a signal's handler
 * without restart, pthread_cancel) is canceled by user_data
 * (IORING_OP_ASYNC_CANCEL) and its own CQE awaited, so no CQE outlives its
 * task's wait; one that completed despite the cancel keeps its value (an
 * accepted connection is returned, never lost).
 *
 * The kernel ties a call to the OS thread that submitted it and cancels it
 * (-ECANCELED) when that thread exits: an idle worker retiring with an
 * accept in flight ended a program's accept with "Operation canceled"
 * (python-http, 1 request in 1,000, once in ten soak rounds).  Each
 * worker counts its calls in flight (m->uring_inflight) and does not
 * retire while any is (core/worker.c).
 *
 * Where the kernel finishes a call: the retry after the poll wake-up runs
 * as task work on the OS thread that submitted (a worker), which the kernel
 * interrupts for it as for a signal without a handler: a system call it
 * sleeps in restarts, but the few that return EINTR outright when any
 * signal is pending (epoll_wait, sigtimedwait) end early.  weft's own waits
 * loop; a program's call bracketed on that worker may see the EINTR (the
 * README's known limits).
 *
 * Rejected:
 *   - O_NONBLOCK set on the description for the call's duration, even on a
 *     socket weft saw created and never duplicated, passed or inherited:
 *     another thread's fcntl(F_GETFL), a read or write on it meanwhile
 *     (EAGAIN instead of a wait), /proc/PID/fdinfo, and another process
 *     that took the descriptor with pidfd_getfd all see the flag; "never
 *     shared" cannot be proved from inside the process.
 *   - SO_SNDTIMEO set to one tick for the attempt: as visible (getsockopt,
 *     and every send meanwhile), and the attempt still sleeps that tick.
 *   - IORING_SETUP_SQPOLL (task work on the kernel's own submission
 *     thread, never on a worker): one more thread, spinning a CPU for at
 *     least a millisecond after each submission; on a loaded machine that
 *     costs more than it saves.
 *   - IORING_SETUP_COOP_TASKRUN: the kernel does not wake the submitter for
 *     the task work, so a worker asleep on its futex would leave the
 *     connect unfinished until something else woke it.
 *   - a ring per task or per call: a descriptor each in the program's table
 *     (8,000 waiting connects, 8,000 descriptors), and ring setup costs more
 *     than the connect.
 * A kernel that refuses io_uring (io_uring_disabled, a seccomp filter)
 * leaves the callers to their fallback: the call between entersyscall and
 * exitsyscall, a thread each while it waits.  A setup that fails for want
 * of a descriptor or memory (RLIMIT_NOFILE reached) falls back the same
 * way and is tried again at the next call; the first such failure prints
 * one weft: line.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "core/runtime.h"
#include "netpoll.h"
#include "core/park.h"
#include "base/print.h"
#include "privfd.h"
#include "core/proc.h"
#include "core/task.h"
#include "base/throw.h"
#include "uring.h"

#define SQ_ENTRIES 256
#define CQ_ENTRIES 16384 /* calls in flight before the kernel keeps CQEs aside */

/* The mapped ring.  [const after init; in the fork child, reset] */
static struct {
	int fd;
	_Atomic unsigned *sq_head, *sq_tail, *sq_flags;
	unsigned sq_mask, sq_entries;
	unsigned *sq_array;
	struct io_uring_sqe *sqes;
	_Atomic unsigned *cq_head, *cq_tail;
	unsigned cq_mask;
	struct io_uring_cqe *cqes;
	void *sq_map, *cq_map;
	size_t sq_len, cq_len, sqe_len;
} ring = { .fd = -1 };

enum { RING_UNTRIED = 0, RING_UP = 1, RING_REFUSED = 2 };
static _Atomic int ring_state;     /* [atomic; init_lock for the move from UNTRIED] */
static wt_lock_t init_lock = WT_LOCK_INIT(WT_RANK_URING_INIT);
static wt_lock_t sq_lock = WT_LOCK_INIT(WT_RANK_URING_SQ);
static wt_lock_t cq_lock = WT_LOCK_INIT(WT_RANK_URING_CQ);

static long enter(unsigned submit, unsigned flags)
{
	return wt_syscall6(SYS_io_uring_enter, ring.fd, submit, 0, flags, 0, 0);
}

static void *map(size_t len, long off)
{
	long r = wt_syscall6(SYS_mmap, 0, (long)len, PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_POPULATE, ring.fd, off);
	return r < 0 && r > -4096 ? NULL : (void *)r;
}

static void unmap(void)
{
	if (ring.sq_map)
		wt_syscall6(SYS_munmap, (long)ring.sq_map, (long)ring.sq_len, 0, 0, 0, 0);
	if (ring.cq_map && ring.cq_map != ring.sq_map)
		wt_syscall6(SYS_munmap, (long)ring.cq_map, (long)ring.cq_len, 0, 0, 0, 0);
	if (ring.sqes)
		wt_syscall6(SYS_munmap, (long)ring.sqes, (long)ring.sqe_len, 0, 0, 0, 0);
	if (ring.fd >= 0)
		wt_syscall6(SYS_close, ring.fd, 0, 0, 0, 0, 0);
	memset(&ring, 0, sizeof ring);
	ring.fd = -1;
}

/* Creates and maps the ring: 0, or -errno.  Context: a task, under
 * init_lock. */
static int setup(void)
{
	struct io_uring_params p;
	memset(&p, 0, sizeof p);
	p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP;
	p.cq_entries = CQ_ENTRIES;
	/* Made and moved with the gate closed (privfd.c): no dup2 of the
	 * program's meets the low number meanwhile. */
	long fd = wt_fdgate_make(SYS_io_uring_setup, SQ_ENTRIES, (long)&p, 0);
	if (fd < 0)
		return (int)fd;
	ring.fd = (int)fd;
	ring.sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	ring.cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		if (ring.cq_len > ring.sq_len)
			ring.sq_len = ring.cq_len;
		ring.sq_map = ring.cq_map = map(ring.sq_len, IORING_OFF_SQ_RING);
	} else {
		ring.sq_map = map(ring.sq_len, IORING_OFF_SQ_RING);
		ring.cq_map = map(ring.cq_len, IORING_OFF_CQ_RING);
	}
	ring.sqe_len = p.sq_entries * sizeof(struct io_uring_sqe);
	ring.sqes = map(ring.sqe_len, IORING_OFF_SQES);
	if (!ring.sq_map || !ring.cq_map || !ring.sqes) {
		unmap();
		return -ENOMEM;
	}
	if (!(p.features & IORING_FEAT_NODROP)) {
		unmap();
		return -EOPNOTSUPP;
	}
	char *sq = ring.sq_map, *cq = ring.cq_map;
	ring.sq_head = (void *)(sq + p.sq_off.head);
	ring.sq_tail = (void *)(sq + p.sq_off.tail);
	ring.sq_flags = (void *)(sq + p.sq_off.flags);
	ring.sq_mask = *(unsigned *)(sq + p.sq_off.ring_mask);
	ring.sq_entries = p.sq_entries;
	ring.sq_array = (void *)(sq + p.sq_off.array);
	ring.cq_head = (void *)(cq + p.cq_off.head);
	ring.cq_tail = (void *)(cq + p.cq_off.tail);
	ring.cq_mask = *(unsigned *)(cq + p.cq_off.ring_mask);
	ring.cqes = (void *)(cq + p.cq_off.cqes);
	/* In the epoll set: a CQE posted is an edge on the ring fd, and
	 * netpoll.c's ready() hands it to wt_uring_reap. */
	if (wt_netpoll_register(ring.fd) < 0) {
		unmap();
		return -EMFILE; /* no epoll instance: the ring fd itself is pollable */
	}
	return 0;
}

/* A setup that failed for want of a resource the program may give back (a
 * descriptor, memory) is tried again at the next call; anything else (the
 * kernel refuses io_uring) is final. */
static bool transient(int err)
{
	return err == -EMFILE || err == -ENFILE || err == -ENOMEM || err == -EAGAIN;
}

static bool up(void)
{
	int s = atomic_load_explicit(&ring_state, memory_order_acquire);
	if (s != RING_UNTRIED)
		return s == RING_UP;
	wt_lock(&init_lock);
	s = atomic_load_explicit(&ring_state, memory_order_relaxed);
	int err = 0;
	static bool said;               /* [init_lock] a transient failure was reported */
	bool say = false;
	if (s == RING_UNTRIED) {
		err = setup();
		s = !err ? RING_UP : transient(err) ? RING_UNTRIED : RING_REFUSED;
		say = err && transient(err) && !said;
		said |= say;
		/* Release: the mapped ring before the state that says so. */
		atomic_store_explicit(&ring_state, s, memory_order_release);
	}
	wt_unlock(&init_lock);
	if (say)
		wt_print("weft: io_uring setup failed (errno %d); a blocking connect or accept "
			 "holds a thread until it can be made\n", -err);
	return s == RING_UP;
}

int wt_uring_fd(void)
{
	return atomic_load_explicit(&ring_state, memory_order_acquire) == RING_UP ? ring.fd : -1;
}

/*
 * Drains the completion queue: each CQE's task gets its result and is
 * unparked (collected into *list when list is not NULL, for the poller's
 * wt_inject; readied at once otherwise).  Context: a worker, sysmon or a
 * task; takes cq_lock, then bucket locks.  Never blocks in the kernel.
 */
void wt_uring_reap(struct wt_task **list)
{
	if (atomic_load_explicit(&ring_state, memory_order_acquire) != RING_UP)
		return;
	wt_lock(&cq_lock);
	for (;;) {
		unsigned head = atomic_load_explicit(ring.cq_head, memory_order_relaxed);
		/* Acquire: the CQEs the kernel wrote before its tail. */
		unsigned tail = atomic_load_explicit(ring.cq_tail, memory_order_acquire);
		for (; head != tail; head++) {
			struct io_uring_cqe *c = &ring.cqes[head & ring.cq_mask];
			struct wt_task *t = (struct wt_task *)(uintptr_t)c->user_data;
			if (!t)
				continue; /* a cancel request's own completion */
			/* Before done: t may submit again at once. */
			atomic_fetch_sub_explicit(&t->uring_m->uring_inflight, 1, memory_order_relaxed);
			t->uring_res = c->res;
			/* Release: uring_res before done; pairs with the task's acquire. */
			atomic_store_explicit(&t->uring_done, 1, memory_order_release);
			if (list)
				wt_unpark_collect(&t->uring_done, 1, list);
			else
				wt_unpark(&t->uring_done, 1);
		}
		/* Release: the kernel may reuse the slots once it sees the head. */
		atomic_store_explicit(ring.cq_head, head, memory_order_release);
		/* CQEs the kernel kept aside while the queue was full come back
		 * into it on an enter with GETEVENTS. */
		if (!(atomic_load_explicit(ring.sq_flags, memory_order_acquire) & IORING_SQ_CQ_OVERFLOW))
			break;
		enter(0, IORING_ENTER_GETEVENTS);
	}
	wt_unlock(&cq_lock);
}

/* Queues one SQE (filled by fill(sqe, args)) and submits it.  0 or -errno.
 * Context: a task; takes sq_lock (and cq_lock when the kernel says its
 * completion queue is too full to take more). */
static int submit(uint8_t op, int fd, uint64_t addr, uint64_t off, uint32_t len,
		  uint32_t opflags, uint64_t user_data)
{
	wt_lock(&sq_lock);
	unsigned tail = atomic_load_explicit(ring.sq_tail, memory_order_relaxed);
	unsigned idx = tail & ring.sq_mask;
	struct io_uring_sqe *e = &ring.sqes[idx];
	memset(e, 0, sizeof *e);
	e->opcode = op;
	e->fd = fd;
	e->addr = addr;
	e->off = off;
	e->len = len;
	e->rw_flags = (int)opflags;
	e->user_data = user_data;
	ring.sq_array[idx] = idx;
	/* Release: the SQE before the tail that publishes it. */
	atomic_store_explicit(ring.sq_tail, tail + 1, memory_order_release);
	long r;
	for (;;) {
		r = enter(1, 0);
		if (r >= 0 || (r != -EINTR && r != -EAGAIN && r != -EBUSY))
			break;
		if (r == -EBUSY)
			wt_uring_reap(NULL); /* room for the completions it holds back */
	}
	if (r < 0) /* unconsumed: take the entry back */
		atomic_store_explicit(ring.sq_tail, tail, memory_order_release);
	wt_unlock(&sq_lock);
	return r < 0 ? (int)r : 0;
}

static bool not_done(const void *addr, uintptr_t arg)
{
	(void)arg;
	return !atomic_load_explicit((_Atomic int *)addr, memory_order_acquire);
}

/* After a cancel: the call's own CQE, whatever wakes the task meanwhile. */
static void await_done(struct wt_task *t)
{
	while (!atomic_load_explicit(&t->uring_done, memory_order_acquire))
		wt_park(&t->uring_done, not_done, 0, -1, false);
}

/*
 * Makes the call and parks until it completes.  restart: a signal's handler
 * with SA_RESTART lets the wait go on (the socket has no timeout).  Returns
 * enum wt_uring_end; *res for WT_URING_DONE.  pthread_cancel of the task
 * acts here once the call is canceled (unless it completed anyway).
 * Context: a task; parks.
 */
static int call(uint8_t op, int fd, uint64_t addr, uint64_t off, uint32_t len, uint32_t opflags,
		int64_t deadline, bool restart, long *res)
{
	struct wt_task *t = wt_cur();
	if (!t || !up())
		return WT_URING_NORING;
	atomic_store_explicit(&t->uring_done, 0, memory_order_relaxed);
	/* The submitting thread owns the call in the kernel: it must not exit
	 * before the CQE (core/worker.c).  t stays on this worker until it parks. */
	t->uring_m = t->m;
	atomic_fetch_add_explicit(&t->uring_m->uring_inflight, 1, memory_order_relaxed);
	if (submit(op, fd, addr, off, len, opflags, (uint64_t)(uintptr_t)t) < 0) {
		atomic_fetch_sub_explicit(&t->uring_m->uring_inflight, 1, memory_order_relaxed);
		return WT_URING_NORING;
	}
	wt_uring_reap(NULL); /* most calls complete inside the enter */
	int end = WT_URING_DONE;
	int pr = WT_PARK_WOKEN;
	t->wait_reason = op == IORING_OP_CONNECT ? "IO wait (connect)" : "IO wait (accept)";
	atomic_fetch_add_explicit(&wt_netpoll_waiters, 1, memory_order_relaxed);
	while (!atomic_load_explicit(&t->uring_done, memory_order_acquire)) {
		t->sig_norestart = false;
		pr = wt_park(&t->uring_done, not_done, 0, deadline, true);
		if (pr == WT_PARK_TIMEDOUT || pr == WT_PARK_CANCELED ||
		    (pr == WT_PARK_INTR && !(restart && wt_netpoll_restarts())))
			break;
	}
	if (!atomic_load_explicit(&t->uring_done, memory_order_acquire)) {
		/* Give the call up; its CQE says whether it finished first. */
		if (submit(IORING_OP_ASYNC_CANCEL, -1, (uint64_t)(uintptr_t)t, 0, 0, 0, 0) < 0)
			wt_throw("io_uring: a call could not be canceled");
		await_done(t);
		if (t->uring_res == -ECANCELED || t->uring_res == -EINTR) {
			end = pr == WT_PARK_TIMEDOUT ? WT_URING_TIMEDOUT : WT_URING_INTR;
			if (pr == WT_PARK_CANCELED) {
				atomic_fetch_sub_explicit(&wt_netpoll_waiters, 1, memory_order_relaxed);
				t->wait_reason = NULL;
				wt_cancel_act();
			}
		}
	}
	atomic_fetch_sub_explicit(&wt_netpoll_waiters, 1, memory_order_relaxed);
	t->wait_reason = NULL;
	*res = t->uring_res;
	return end;
}

/* connect(fd, a, al) on a blocking socket, as the kernel's blocking form
 * would end (the caller maps WT_URING_TIMEDOUT to EINPROGRESS). */
int wt_uring_connect(int fd, const struct sockaddr *a, socklen_t al, int64_t deadline,
		     bool restart, long *res)
{
	return call(IORING_OP_CONNECT, fd, (uint64_t)(uintptr_t)a, al, 0, 0, deadline, restart,
		    res);
}

/* accept4(fd, a, al, fl) on a blocking listener. */
int wt_uring_accept(int fd, struct sockaddr *a, socklen_t *al, int fl, int64_t deadline,
		    bool restart, long *res)
{
	return call(IORING_OP_ACCEPT, fd, (uint64_t)(uintptr_t)a, (uint64_t)(uintptr_t)al, 0,
		    (uint32_t)fl, deadline, restart, res);
}

/* In a child of fork: the ring (and its shared mappings) is the parent's;
 * the child makes its own at its first call.  Context: the fork child. */
void wt_uring_after_fork(void)
{
	if (atomic_load_explicit(&ring_state, memory_order_relaxed) == RING_UP)
		unmap();
	atomic_store_explicit(&ring_state, RING_UNTRIED, memory_order_relaxed);
	atomic_store_explicit(&init_lock.v, 0, memory_order_relaxed);
	atomic_store_explicit(&sq_lock.v, 0, memory_order_relaxed);
	atomic_store_explicit(&cq_lock.v, 0, memory_order_relaxed);
}
