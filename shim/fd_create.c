/*
 * fd_create.c — calls that hand out descriptor numbers.
 *
 * The poller remembers per number what it learnt (pollable and registered,
 * socket or not: sched/io/netpoll.c).  A number comes back after close, so
 * every call that returns a fresh one makes the poller forget it, as every
 * close does (netio.c: close, dup2/3, fclose, close_range, closefrom;
 * spawn.c: pclose).
 */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "shim.h"
#include "io/netpoll.h"

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
	wt_real_init();
	return fresh(real.socket(dom, type, proto));
}

WT_EXPORT int socketpair(int dom, int type, int proto, int sv[2])
{
	wt_real_init();
	return fresh2(real.socketpair(dom, type, proto, sv), sv);
}

WT_EXPORT int pipe(int fds[2])
{
	wt_real_init();
	return fresh2(real.pipe(fds), fds);
}

WT_EXPORT int pipe2(int fds[2], int fl)
{
	wt_real_init();
	return fresh2(real.pipe2(fds, fl), fds);
}

WT_EXPORT int dup(int fd)
{
	wt_real_init();
	return fresh(real.dup(fd));
}

WT_EXPORT int eventfd(unsigned v, int fl)
{
	wt_real_init();
	return fresh(real.eventfd(v, fl));
}

WT_EXPORT int timerfd_create(int clk, int fl)
{
	wt_real_init();
	return fresh(real.timerfd_create(clk, fl));
}

WT_EXPORT int signalfd(int fd, const sigset_t *m, int fl)
{
	wt_real_init();
	return fresh(real.signalfd(fd, m, fl));
}

WT_EXPORT int epoll_create(int n)
{
	wt_real_init();
	return fresh(real.epoll_create(n));
}

WT_EXPORT int epoll_create1(int fl)
{
	wt_real_init();
	return fresh(real.epoll_create1(fl));
}
