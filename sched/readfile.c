/*
 * readfile.c — a whole small file (/proc, cgroup) into a caller's buffer,
 * by raw system calls: no malloc, no stdio, errno untouched.  Usable
 * before the runtime starts, on g0 and from sysmon.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>

#include "arch.h"
#include "readfile.h"

/* Reads up to n-1 bytes of path into buf, NUL-terminated.  Returns the
 * length or -errno. */
long wt_read_file(const char *path, char *buf, size_t n)
{
	long fd = wt_syscall6(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return fd;
	size_t got = 0;
	while (got < n - 1) {
		long r = wt_syscall6(SYS_read, fd, (long)(buf + got), n - 1 - got, 0, 0, 0);
		if (r == -EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	wt_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	buf[got] = 0;
	return (long)got;
}
