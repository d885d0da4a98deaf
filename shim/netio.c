/*
 * netio.c — read, write and the socket calls, parked on the poller.
 *
 * For a task, each call is first tried without blocking, for this call only
 * (preadv2/pwritev2 with RWF_NOWAIT — pipes, sockets, eventfd, timerfd on
 * this kernel; recv/send with MSG_DONTWAIT), and on EAGAIN the task parks
 * until the poller sees the descriptor ready (sched/io/netpoll.c has the
 * protocol).  The file description's O_NONBLOCK flag is never touched.
 * Blocking semantics kept:
 *   - writes and stream sends finish the whole buffer, parking as often as
 *     needed (a pipe write of at most PIPE_BUF bytes is all-or-nothing in
 *     its non-blocking form too, so stays atomic); a socket send timeout or
 *     a later error returns the count written so far, as natively;
 *   - a descriptor the program made non-blocking gets EAGAIN at once;
 *   - SO_RCVTIMEO / SO_SNDTIMEO expire with EAGAIN, and a socket with one
 *     ends the call with EINTR at any handled signal, SA_RESTART or not;
 *   - pthread_cancel reaches a task parked here (these are cancellation
 *     points).
 * connect on a blocking TCP socket and accept on a blocking listener have
 * no non-blocking form for one call: the kernel makes them asynchronously
 * (sched/io/uring.c) while the task parks, and the results are the blocking
 * forms' own: SO_SNDTIMEO ends a connect with EINPROGRESS (EALREADY when
 * it found one in progress), SO_RCVTIMEO an accept with EAGAIN; a handled
 * signal ends either with EINTR, or lets it go on when the handler has
 * SA_RESTART and the socket no timeout.  Whether a connect blocks is the
 * kernel's O_NONBLOCK at the call, never a remembered one (a non-blocking
 * socket's connect returns at once), and a refused one leaves the socket
 * unconnected, as the blocking form does.  Where the kernel refuses io_uring,
 * accept parks until poll says ready, then makes the plain call between
 * entersyscall and exitsyscall, and connect makes the plain call there.
 * So does a tty once poll says ready (it refuses RWF_NOWAIT), and so do
 * descriptors epoll refuses (regular files) and recv with MSG_WAITALL.
 */
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <linux/close_range.h>
#include <stdio.h>
#include <unistd.h>

#include "shim.h"
#include "stack/stack.h"
#include "io/netpoll.h"
#include "io/privfd.h"
#include "core/task.h"
#include "io/uring.h"

/* Arguments of one call, for its non-blocking and plain forms. */
struct op {
	int fd;
	struct iovec *iov;
	int iovcnt;
	int flags;              /* recv/send flags */
	struct sockaddr *addr;  /* recvfrom, sendto, accept */
	socklen_t *addrlen;
	socklen_t alen;         /* sendto */
	struct msghdr *msg;     /* recvmsg, sendmsg */
	bool plain;             /* out: the plain call ran */
	long (*nowait)(struct op *);
	long (*block)(struct op *);
};

static long neg(long r)
{
	return r < 0 ? -errno : r;
}

/* The blocking call, its errno already in its value (neg). */
static long plain(struct op *o)
{
	o->plain = true;
	return CANCELABLE(o->block(o));
}

static bool poll_ready(int fd, int mode)
{
	struct pollfd p = { fd, mode == WT_IO_READ ? POLLIN : POLLOUT, 0 };
	struct timespec zero = { 0, 0 };
	return wt_syscall6(SYS_ppoll, (long)&p, 1, (long)&zero, 0, 8, 0) != 0;
}

/* Nothing else of the process can run (sched/io/netpoll.c): the call itself,
 * as natively; then wt_netpoll_direct_end.  Only without a timeout (none
 * of weft's, no SO_RCVTIMEO or SO_SNDTIMEO): a timed call is not
 * restarted after a handler, and weft's own SIGURG would end it with
 * EINTR.  The socket's timeout is looked up last: it costs a system call. */
static bool direct_ok(struct op *o, int mode, const int64_t *deadline)
{
	if ((*deadline != -1 && *deadline != WT_DEADLINE_SOCKOPT) ||
	    !wt_netpoll_direct_begin(o->fd))
		return false;
	if (*deadline == -1 || wt_fd_sock_deadline(o->fd, mode) < 0)
		return true;
	wt_netpoll_direct_end();
	return false;
}

/* One call, the poller's way.  Returns a count or -errno. */
static long io(struct op *o, int mode, int64_t *deadline)
{
	if (wt_fd_kind(o->fd) == WT_FD_FILE)
		return plain(o);
	if (direct_ok(o, mode, deadline)) {
		long r = plain(o);
		wt_netpoll_direct_end();
		return r;
	}
	for (;;) {
		uint32_t s = wt_netpoll_seq(o->fd, mode);
		long r = o->nowait ? o->nowait(o) : -EOPNOTSUPP;
		if (r == -EOPNOTSUPP) {
			/* No non-blocking form here: wait for readiness, then the
			 * plain call (which may still block if another task won
			 * the data: then it holds a thread, as natively). */
			if (wt_fd_kind(o->fd) != WT_FD_POLLABLE && wt_netpoll_register(o->fd) < 0)
				return plain(o);
			if (poll_ready(o->fd, mode))
				return plain(o);
			r = -EAGAIN;
		}
		if (r != -EAGAIN)
			return r;
		if (direct_ok(o, mode, deadline)) {
			r = plain(o);
			wt_netpoll_direct_end();
			return r;
		}
		switch (wt_netpoll_wait(o->fd, mode, s, deadline)) {
		case 0:
			continue;
		case -EAGAIN:
		case -ETIMEDOUT:
			return -EAGAIN;
		case -EBADF:
			return -EBADF;
		case -EINTR:
			/* The kernel restarts the call after handlers that all
			 * had SA_RESTART, unless the socket has a timeout for
			 * this direction: then it always ends with EINTR. */
			if (*deadline >= 0 || !wt_netpoll_restarts())
				return -EINTR;
			continue;
		case -ECANCELED:
			wt_cancel_act();
		default: /* -EPERM: epoll refuses it */
			return plain(o);
		}
	}
}

static long ret(long r)
{
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* preadv2/pwritev2 for one call without blocking.  Where they are missing
 * (ENOSYS: a kernel before 4.6, qemu-user before 8.0) every descriptor
 * goes the poll-then-plain-call way, as a tty does. */
static bool rw_nowait_missing;

static long rw_nowait(long nr, struct op *o)
{
	if (__atomic_load_n(&rw_nowait_missing, __ATOMIC_RELAXED))
		return -EOPNOTSUPP;
	long r = wt_syscall6(nr, o->fd, (long)o->iov, o->iovcnt, -1, 0, RWF_NOWAIT);
	if (r == -ENOSYS) {
		__atomic_store_n(&rw_nowait_missing, true, __ATOMIC_RELAXED);
		return -EOPNOTSUPP;
	}
	return r;
}

/* ---- read side ---- */

static long rd_nowait(struct op *o)
{
	return rw_nowait(SYS_preadv2, o);
}

static long rd_block(struct op *o)
{
	return neg(real.readv(o->fd, o->iov, o->iovcnt));
}

WT_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	wt_real_init();
	if (!wt_cur())
		return real.read(fd, buf, n);
	wt_testcancel();
	wt_stack_prepare(buf, n);
	struct iovec v = { buf, n };
	struct op o = { .fd = fd, .iov = &v, .iovcnt = 1, .nowait = rd_nowait, .block = rd_block };
	int64_t dl = WT_DEADLINE_SOCKOPT;
	return ret(io(&o, WT_IO_READ, &dl));
}

WT_EXPORT ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
	wt_real_init();
	if (!wt_cur())
		return real.readv(fd, iov, cnt);
	wt_testcancel();
	for (int i = 0; i < cnt; i++)
		wt_stack_prepare(iov[i].iov_base, iov[i].iov_len);
	struct op o = { .fd = fd, .iov = (struct iovec *)iov, .iovcnt = cnt,
			.nowait = rd_nowait, .block = rd_block };
	int64_t dl = WT_DEADLINE_SOCKOPT;
	return ret(io(&o, WT_IO_READ, &dl));
}

static long recv_nowait(struct op *o)
{
	return wt_syscall6(SYS_recvfrom, o->fd, (long)o->iov->iov_base, o->iov->iov_len,
			   o->flags | MSG_DONTWAIT, (long)o->addr, (long)o->addrlen);
}

static long recv_block(struct op *o)
{
	return neg(real.recvfrom(o->fd, o->iov->iov_base, o->iov->iov_len, o->flags, o->addr,
				 o->addrlen));
}

WT_EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int fl, struct sockaddr *a,
			   socklen_t *al)
{
	wt_real_init();
	if (!wt_cur() || (fl & MSG_DONTWAIT))
		return real.recvfrom(fd, buf, n, fl, a, al);
	wt_testcancel();
	wt_stack_prepare(buf, n);
	struct iovec v = { buf, n };
	struct op o = { .fd = fd, .iov = &v, .flags = fl, .addr = a, .addrlen = al,
			.nowait = (fl & MSG_WAITALL) ? NULL : recv_nowait, .block = recv_block };
	if (fl & MSG_WAITALL)
		return ret(plain(&o)); /* the kernel assembles the whole buffer */
	int64_t dl = WT_DEADLINE_SOCKOPT;
	return ret(io(&o, WT_IO_READ, &dl));
}

WT_EXPORT ssize_t recv(int fd, void *buf, size_t n, int fl)
{
	return recvfrom(fd, buf, n, fl, NULL, NULL);
}

static long recvmsg_nowait(struct op *o)
{
	return wt_syscall6(SYS_recvmsg, o->fd, (long)o->msg, o->flags | MSG_DONTWAIT, 0, 0, 0);
}

static long recvmsg_block(struct op *o)
{
	return neg(real.recvmsg(o->fd, o->msg, o->flags));
}

WT_EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int fl)
{
	wt_real_init();
	if (!wt_cur() || (fl & MSG_DONTWAIT))
		return real.recvmsg(fd, msg, fl);
	wt_testcancel();
	for (size_t i = 0; i < msg->msg_iovlen; i++)
		wt_stack_prepare(msg->msg_iov[i].iov_base, msg->msg_iov[i].iov_len);
	struct op o = { .fd = fd, .msg = msg, .flags = fl, .nowait = recvmsg_nowait,
			.block = recvmsg_block };
	if (fl & MSG_WAITALL)
		return ret(plain(&o));
	int64_t dl = WT_DEADLINE_SOCKOPT;
	return ret(io(&o, WT_IO_READ, &dl));
}

static long accept_block(struct op *o)
{
	return neg(real.accept4(o->fd, o->addr, o->addrlen, o->flags));
}

/* accept on a blocking listener, by the kernel while the task parks;
 * -ENOSYS when no ring: the caller does it the poller's way. */
static long accept_async(int fd, struct sockaddr *a, socklen_t *al, int fl)
{
	if (wt_fd_kind(fd) == WT_FD_FILE || wt_fd_nonblock(fd) != 0)
		return -ENOSYS; /* a non-blocking listener says EAGAIN at once */
	int64_t dl = wt_fd_sock_deadline(fd, WT_IO_READ);
	long res;
	switch (wt_uring_accept(fd, a, al, fl, dl, dl < 0, &res)) {
	case WT_URING_DONE:
		return res;
	case WT_URING_TIMEDOUT:
		return -EAGAIN;
	case WT_URING_INTR:
		return -EINTR;
	default:
		return -ENOSYS;
	}
}

WT_EXPORT int accept4(int fd, struct sockaddr *a, socklen_t *al, int fl)
{
	wt_real_init();
	if (!wt_cur())
		return real.accept4(fd, a, al, fl);
	wt_testcancel();
	long r = accept_async(fd, a, al, fl);
	if (r == -ENOSYS) {
		struct op o = { .fd = fd, .addr = a, .addrlen = al, .flags = fl,
				.block = accept_block };
		int64_t dl = WT_DEADLINE_SOCKOPT;
		r = io(&o, WT_IO_READ, &dl);
	}
	if (r >= 0)
		wt_fd_set_kind((int)r, WT_FD_UNKNOWN); /* a number used before */
	return (int)ret(r);
}

WT_EXPORT int accept(int fd, struct sockaddr *a, socklen_t *al)
{
	return accept4(fd, a, al, 0);
}

/* ---- connect ---- */

static bool is_tcp(int fd)
{
	int proto = 0;
	socklen_t len = sizeof proto;
	return wt_syscall6(SYS_getsockopt, fd, SOL_SOCKET, SO_PROTOCOL, (long)&proto, (long)&len,
			   0) == 0 && proto == IPPROTO_TCP;
}

/* After a failed connect (refused, unreachable, timed out), the blocking
 * form leaves the socket unconnected, so the next connect starts afresh;
 * io_uring's connect reads the error without that step and leaves it
 * "connecting", where the next plain connect fails with ECONNABORTED.  A
 * connect to AF_UNSPEC puts it back (the connection is already closed). */
static void unconnect(int fd, long res)
{
	if (res != -ECONNREFUSED && res != -ETIMEDOUT && res != -ENETUNREACH &&
	    res != -EHOSTUNREACH && res != -ECONNRESET && res != -EHOSTDOWN && res != -ENETDOWN)
		return; /* not a failed attempt (EISCONN: a connection stands) */
	struct tcp_info ti;
	socklen_t len = sizeof ti;
	if (wt_syscall6(SYS_getsockopt, fd, IPPROTO_TCP, TCP_INFO, (long)&ti, (long)&len, 0) != 0 ||
	    ti.tcpi_state != TCP_CLOSE)
		return;
	struct sockaddr sa = { .sa_family = AF_UNSPEC };
	wt_syscall6(SYS_connect, fd, (long)&sa, sizeof sa, 0, 0, 0);
}

/* A blocking TCP connect, by the kernel while the task parks: the result
 * the blocking form gives.  -ENOSYS: not that case, or no ring. */
static long connect_async(int fd, const struct sockaddr *a, socklen_t al)
{
	/* O_NONBLOCK as the kernel has it now, not as the poller last saw it:
	 * io_uring's connect waits for the connection whatever the file's
	 * flags, so a stale "blocking" would park a non-blocking connect that
	 * must return EINPROGRESS at once (a number whose flags changed
	 * where weft could not see).  A socket connects about once, so the
	 * poller's cache would have cost this same look. */
	long fl = wt_syscall6(SYS_fcntl, fd, F_GETFL, 0, 0, 0, 0);
	if (fl < 0 || (fl & O_NONBLOCK) || !is_tcp(fd))
		return -ENOSYS; /* non-blocking (EINPROGRESS at once), or not TCP */
	int64_t dl = wt_fd_sock_deadline(fd, WT_IO_WRITE);
	bool restart = dl < 0; /* with a timeout, a handled signal ends it (EINTR) */
	for (bool first = true;; first = false) {
		uint32_t s = wt_netpoll_seq(fd, WT_IO_WRITE);
		long res;
		switch (wt_uring_connect(fd, a, al, dl, restart, &res)) {
		case WT_URING_DONE:
			break;
		case WT_URING_TIMEDOUT:
			return first ? -EINPROGRESS : -EALREADY;
		case WT_URING_INTR:
			return -EINTR;
		default:
			return first ? -ENOSYS : -EALREADY;
		}
		/* EALREADY (at once, not waited for): a connect this socket
		 * started before, given up by a timeout or a signal, is still
		 * under way.  The blocking form waits for it; an attempt once
		 * the socket is writable says how it ended (0, or the error). */
		if (res < 0)
			unconnect(fd, res);
		if (res != -EALREADY)
			return res;
		switch (wt_netpoll_wait(fd, WT_IO_WRITE, s, &dl)) {
		case 0:
			continue;
		case -EINTR:
			if (restart && wt_netpoll_restarts())
				continue;
			return -EINTR;
		case -ECANCELED:
			wt_cancel_act();
		case -EBADF:
			return -EBADF;
		default: /* the timeout passed, or made non-blocking meanwhile */
			return -EALREADY;
		}
	}
}

WT_EXPORT int connect(int fd, const struct sockaddr *a, socklen_t al)
{
	wt_real_init();
	if (!wt_cur())
		return real.connect(fd, a, al);
	wt_testcancel();
	long r = connect_async(fd, a, al);
	if (r == -ENOSYS)
		return CANCELABLE(real.connect(fd, a, al));
	return (int)ret(r);
}

/* ---- write side: blocking calls write everything ---- */

static long wr_nowait(struct op *o)
{
	return rw_nowait(SYS_pwritev2, o);
}

static long wr_block(struct op *o)
{
	return neg(real.writev(o->fd, o->iov, o->iovcnt));
}

static long send_nowait(struct op *o)
{
	if (o->msg)
		return wt_syscall6(SYS_sendmsg, o->fd, (long)o->msg, o->flags | MSG_DONTWAIT, 0,
				   0, 0);
	return wt_syscall6(SYS_sendto, o->fd, (long)o->iov->iov_base, o->iov->iov_len,
			   o->flags | MSG_DONTWAIT, (long)o->addr, o->alen);
}

static long send_block(struct op *o)
{
	if (o->msg)
		return neg(real.sendmsg(o->fd, o->msg, o->flags));
	return neg(real.sendto(o->fd, o->iov->iov_base, o->iov->iov_len, o->flags, o->addr,
			       o->alen));
}

/* Drops the first n bytes of iov[0..*cnt) in place. */
static void advance(struct iovec **iov, int *cnt, size_t n)
{
	while (*cnt > 0 && n >= (*iov)->iov_len) {
		n -= (*iov)->iov_len;
		(*iov)++;
		(*cnt)--;
	}
	if (*cnt > 0) {
		(*iov)->iov_base = (char *)(*iov)->iov_base + n;
		(*iov)->iov_len -= n;
	}
}

/* Runs o until iov[0..cnt) is all written.  o->iov must be a private copy. */
static long write_all(struct op *o, size_t want)
{
	size_t done = 0;
	int64_t dl = WT_DEADLINE_SOCKOPT;
	for (;;) {
		long r = io(o, WT_IO_WRITE, &dl);
		if (r < 0)
			return done ? (long)done : r;
		done += (size_t)r;
		if (o->plain || done >= want || r == 0)
			return (long)done;
		advance(&o->iov, &o->iovcnt, (size_t)r);
		if (o->msg) {
			o->msg->msg_iov = o->iov;
			o->msg->msg_iovlen = (size_t)o->iovcnt;
			o->msg->msg_control = NULL; /* ancillary data went with the first part */
			o->msg->msg_controllen = 0;
		}
	}
}

WT_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	wt_real_init();
	if (!wt_cur())
		return real.write(fd, buf, n);
	wt_testcancel();
	struct iovec v = { (void *)buf, n };
	struct op o = { .fd = fd, .iov = &v, .iovcnt = 1, .nowait = wr_nowait, .block = wr_block };
	return ret(write_all(&o, n));
}

static size_t iov_total(const struct iovec *iov, int cnt)
{
	size_t t = 0;
	for (int i = 0; i < cnt; i++)
		t += iov[i].iov_len;
	return t;
}

WT_EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	wt_real_init();
	if (!wt_cur() || cnt <= 0 || cnt > IOV_MAX)
		return real.writev(fd, iov, cnt);
	wt_testcancel();
	struct iovec copy[cnt];
	memcpy(copy, iov, sizeof copy);
	struct op o = { .fd = fd, .iov = copy, .iovcnt = cnt, .nowait = wr_nowait,
			.block = wr_block };
	return ret(write_all(&o, iov_total(iov, cnt)));
}

WT_EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int fl, const struct sockaddr *a,
			 socklen_t al)
{
	wt_real_init();
	if (!wt_cur() || (fl & MSG_DONTWAIT))
		return real.sendto(fd, buf, n, fl, a, al);
	wt_testcancel();
	struct iovec v = { (void *)buf, n };
	struct op o = { .fd = fd, .iov = &v, .iovcnt = 1, .flags = fl, .addr = (void *)a,
			.alen = al, .nowait = send_nowait, .block = send_block };
	return ret(write_all(&o, n));
}

WT_EXPORT ssize_t send(int fd, const void *buf, size_t n, int fl)
{
	return sendto(fd, buf, n, fl, NULL, 0);
}

WT_EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int fl)
{
	wt_real_init();
	if (!wt_cur() || (fl & MSG_DONTWAIT) || msg->msg_iovlen > IOV_MAX)
		return real.sendmsg(fd, msg, fl);
	wt_testcancel();
	int cnt = (int)msg->msg_iovlen;
	struct iovec copy[cnt > 0 ? cnt : 1];
	memcpy(copy, msg->msg_iov, cnt * sizeof *copy);
	struct msghdr m = *msg;
	m.msg_iov = copy;
	struct op o = { .fd = fd, .iov = copy, .iovcnt = cnt, .msg = &m, .flags = fl,
			.nowait = send_nowait, .block = send_block };
	return ret(write_all(&o, iov_total(copy, cnt)));
}

/* ---- the numbers themselves ---- */

/* weft's own descriptors: the epoll fd and the io_uring fd. */
static bool own_fd(int fd)
{
	return fd >= 0 && (fd == wt_netpoll_fd() || fd == wt_uring_fd());
}

WT_EXPORT int close(int fd)
{
	wt_real_init();
	if (own_fd(fd)) {
		errno = EBADF; /* weft's own: the program never opened it */
		return -1;
	}
	/* Before the close: once it is closed, another task may get the
	 * same number from socket() and park on it. */
	wt_netpoll_close(fd);
	/* A cancellation point, for a cancel pending before it only: once the
	 * kernel started it, the descriptor may be gone whatever it returns. */
	wt_testcancel();
	return real.close(fd);
}

WT_EXPORT int dup2(int old, int new)
{
	wt_real_init();
	/* Not while weft moves a descriptor of its own (io/privfd.c's gate);
	 * inside it, weft's own numbers are settled. */
	wt_fdgate_enter();
	if (own_fd(new)) {
		wt_fdgate_leave();
		errno = EBUSY; /* what Linux says for a number being installed */
		return -1;
	}
	int r = real.dup2(old, new);
	wt_fdgate_leave();
	if (r >= 0 && old != new)
		wt_netpoll_close(new);
	return r;
}

WT_EXPORT int dup3(int old, int new, int fl)
{
	wt_real_init();
	wt_fdgate_enter();
	if (own_fd(new)) {
		wt_fdgate_leave();
		errno = EBUSY;
		return -1;
	}
	int r = real.dup3(old, new, fl);
	wt_fdgate_leave();
	if (r >= 0)
		wt_netpoll_close(new);
	return r;
}

/* Closes libc makes inside these: the numbers may come back as other files. */
WT_EXPORT int fclose(FILE *fp)
{
	wt_real_init();
	int fd = WT_OPAQUE(fp) ? fileno(fp) : -1;
	if (fd >= 0 && !own_fd(fd))
		wt_netpoll_close(fd); /* before, as close() */
	return real.fclose(fp);
}

/* close_range and closefrom must spare weft's own descriptors. */
WT_EXPORT int close_range(unsigned lo, unsigned hi, int fl)
{
	wt_real_init();
	if (!real.close_range) { /* a libc older than close_range */
		errno = ENOSYS;
		return -1;
	}
	if (fl & CLOSE_RANGE_CLOEXEC)
		return real.close_range(lo, hi, fl);
	wt_netpoll_close_range(lo, hi); /* before, as close() */
	wt_fdgate_enter(); /* weft's own numbers settled (io/privfd.c) */
	/* [lo, hi] less weft's descriptors, in increasing order. */
	int own[2] = { wt_netpoll_fd(), wt_uring_fd() };
	if (own[0] > own[1]) {
		int x = own[0];
		own[0] = own[1];
		own[1] = x;
	}
	int r = 0;
	for (int i = 0; i < 2 && r == 0; i++) {
		if (own[i] < 0 || (unsigned)own[i] < lo || (unsigned)own[i] > hi)
			continue;
		if ((unsigned)own[i] > lo && real.close_range(lo, (unsigned)own[i] - 1, fl) != 0)
			r = -1;
		else if ((unsigned)own[i] == hi)
			r = 1;
		else
			lo = (unsigned)own[i] + 1;
	}
	if (r == 0)
		r = real.close_range(lo, hi, fl);
	wt_fdgate_leave();
	return r < 0 ? -1 : 0;
}

WT_EXPORT void closefrom(int lo)
{
	if (lo < 0)
		lo = 0;
	close_range((unsigned)lo, ~0u, 0);
}
