/*
 * blocking.c — system calls that may block, bracketed so that a task stuck
 * in one does not hold its proc (sched/syscall.c).
 *
 * Each wrapper calls libc's own function between wt_entersyscall and
 * wt_exitsyscall; errno and return values are libc's.  The list is the
 * calls a thread-per-connection or worker-pool program blocks in.  Issue 3
 * moves the pollable descriptors (pipes, sockets) to the poller, where a
 * blocked task holds no thread at all; until then each one blocked in the
 * kernel costs an OS thread, as in Go.  Calls glibc makes internally
 * (stdio's read, system()'s waitpid) are not seen here.
 */
#include <dlfcn.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shim.h"

#define BLOCKING(ret, name, params, args)                                   \
	WT_EXPORT ret name params                                           \
	{                                                                   \
		static ret(*real_) params;                                  \
		if (!real_)                                                 \
			real_ = dlsym(RTLD_NEXT, #name);                    \
		if (!wt_cur())                                              \
			return real_ args;                                  \
		wt_entersyscall();                                          \
		ret r_ = real_ args;                                        \
		int e_ = errno;                                             \
		wt_exitsyscall();                                           \
		errno = e_;                                                 \
		return r_;                                                  \
	}

BLOCKING(ssize_t, read, (int fd, void *buf, size_t n), (fd, buf, n))
BLOCKING(ssize_t, write, (int fd, const void *buf, size_t n), (fd, buf, n))
BLOCKING(ssize_t, readv, (int fd, const struct iovec *iov, int n), (fd, iov, n))
BLOCKING(ssize_t, writev, (int fd, const struct iovec *iov, int n), (fd, iov, n))
BLOCKING(ssize_t, pread64, (int fd, void *buf, size_t n, off_t off), (fd, buf, n, off))
BLOCKING(ssize_t, pwrite64, (int fd, const void *buf, size_t n, off_t off), (fd, buf, n, off))
BLOCKING(ssize_t, recv, (int fd, void *buf, size_t n, int fl), (fd, buf, n, fl))
BLOCKING(ssize_t, recvfrom, (int fd, void *buf, size_t n, int fl, struct sockaddr *a,
			     socklen_t *al), (fd, buf, n, fl, a, al))
BLOCKING(ssize_t, recvmsg, (int fd, struct msghdr *msg, int fl), (fd, msg, fl))
BLOCKING(ssize_t, send, (int fd, const void *buf, size_t n, int fl), (fd, buf, n, fl))
BLOCKING(ssize_t, sendto, (int fd, const void *buf, size_t n, int fl,
			   const struct sockaddr *a, socklen_t al), (fd, buf, n, fl, a, al))
BLOCKING(ssize_t, sendmsg, (int fd, const struct msghdr *msg, int fl), (fd, msg, fl))
BLOCKING(int, accept, (int fd, struct sockaddr *a, socklen_t *al), (fd, a, al))
BLOCKING(int, accept4, (int fd, struct sockaddr *a, socklen_t *al, int fl), (fd, a, al, fl))
BLOCKING(int, connect, (int fd, const struct sockaddr *a, socklen_t al), (fd, a, al))
BLOCKING(int, poll, (struct pollfd *f, nfds_t n, int ms), (f, n, ms))
BLOCKING(int, ppoll, (struct pollfd *f, nfds_t n, const struct timespec *ts,
		      const sigset_t *m), (f, n, ts, m))
BLOCKING(int, select, (int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv),
	 (n, r, w, e, tv))
BLOCKING(int, pselect, (int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts,
			const sigset_t *m), (n, r, w, e, ts, m))
BLOCKING(int, epoll_wait, (int ep, struct epoll_event *ev, int n, int ms), (ep, ev, n, ms))
BLOCKING(int, epoll_pwait, (int ep, struct epoll_event *ev, int n, int ms, const sigset_t *m),
	 (ep, ev, n, ms, m))
BLOCKING(pid_t, waitpid, (pid_t pid, int *st, int opt), (pid, st, opt))
BLOCKING(pid_t, wait, (int *st), (st))
BLOCKING(int, waitid, (idtype_t t, id_t id, siginfo_t *in, int opt), (t, id, in, opt))
BLOCKING(int, fsync, (int fd), (fd))
