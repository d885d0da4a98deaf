/*
 * ioctl.c — ioctl passes through; FIONBIO (set or clear O_NONBLOCK) makes
 * the poller look at the descriptor's flags again (sched/io/netpoll.c).
 */
#include <sys/ioctl.h>

#include "shim.h"
#include "io/netpoll.h"

WT_EXPORT int ioctl(int fd, unsigned long req, ...)
{
	wt_real_init();
	__builtin_va_list ap;
	__builtin_va_start(ap, req);
	void *arg = __builtin_va_arg(ap, void *);
	__builtin_va_end(ap);
	int r = real.ioctl(fd, req, arg);
	if (req == FIONBIO && r == 0)
		wt_fd_flags_changed(fd);
	return r;
}
