/*
 * readfile.c — a whole small file (/proc, cgroup) into a caller's buffer,
 * by raw system calls: no malloc, no stdio, errno untouched.  Opened in a
 * descriptor table of weft's own (privfd.c), never the program's.  Usable
 * before the runtime starts, on g0 and from sysmon.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>

#include "arch.h"
#include "privfd.h"
#include "readfile.h"

struct rf {
	const char *path;
	char *buf;
	size_t n;
};

/* Context: a thread whose table is weft's own (privfd.c). */
static long read_whole(void *arg)
{
	struct rf *a = arg;
	long fd = wt_syscall6(SYS_openat, AT_FDCWD, (long)a->path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return fd;
	size_t got = 0;
	while (got < a->n - 1) {
		long r = wt_syscall6(SYS_read, fd, (long)(a->buf + got), a->n - 1 - got, 0, 0, 0);
		if (r == -EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	wt_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	return (long)got;
}

/* Reads up to n-1 bytes of path into buf, NUL-terminated.  Returns the
 * length or -errno (-ENOSYS: no table of weft's own could be had). */
long wt_read_file(const char *path, char *buf, size_t n)
{
	struct rf a = { path, buf, n };
	buf[0] = 0;
	long r = wt_privfd_run(read_whole, &a);
	if (r >= 0)
		buf[r] = 0;
	return r;
}
