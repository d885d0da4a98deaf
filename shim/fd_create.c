/*
 * fd_create.c — calls that hand out descriptor numbers.
 *
 * The poller remembers per number what it learnt (pollable and registered,
 * socket or not: sched/netpoll.c).  A number comes back after close, so
 * every call that returns a fresh one makes the poller forget it, as every
 * close does (netio.c: close, dup2/3, fclose, close_range, closefrom;
 * spawn.c: pclose).
 */
#include <dlfcn.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "shim.h"
#include "../sched/netpoll.h"

#define REAL(name)                                               \
	static __typeof__(name) *real_##name;                    \
	if (!real_##name)                                        \
		real_##name = dlsym(RTLD_NEXT, #name)

static int fresh(int fd)
{
	if (fd >= 0)
		wt_fd_set_kind(fd, WT_FD_UNKNOWN);
	return fd;
}

static int fresh2(int r, const int fds[2])
{
	if (r == 0) {
		fresh(fds[0]);
		fresh(fds[1]);
	}
	return r;
}

WT_EXPORT int socket(int dom, int type, int proto)
{
	REAL(socket);
	return fresh(real_socket(dom, type, proto));
}

WT_EXPORT int socketpair(int dom, int type, int proto, int sv[2])
{
	REAL(socketpair);
	return fresh2(real_socketpair(dom, type, proto, sv), sv);
}

WT_EXPORT int pipe(int fds[2])
{
	REAL(pipe);
	return fresh2(real_pipe(fds), fds);
}

WT_EXPORT int pipe2(int fds[2], int fl)
{
	REAL(pipe2);
	return fresh2(real_pipe2(fds, fl), fds);
}

WT_EXPORT int dup(int fd)
{
	REAL(dup);
	return fresh(real_dup(fd));
}

WT_EXPORT int eventfd(unsigned v, int fl)
{
	REAL(eventfd);
	return fresh(real_eventfd(v, fl));
}

WT_EXPORT int timerfd_create(int clk, int fl)
{
	REAL(timerfd_create);
	return fresh(real_timerfd_create(clk, fl));
}

WT_EXPORT int signalfd(int fd, const sigset_t *m, int fl)
{
	REAL(signalfd);
	return fresh(real_signalfd(fd, m, fl));
}

WT_EXPORT int epoll_create(int n)
{
	REAL(epoll_create);
	return fresh(real_epoll_create(n));
}

WT_EXPORT int epoll_create1(int fl)
{
	REAL(epoll_create1);
	return fresh(real_epoll_create1(fl));
}
