/*
 * blocking.c — system calls that may block, bracketed so that a task stuck
 * in one does not hold its proc (sched/io/syscall.c).
 *
 * Each wrapper calls libc's own function between wt_entersyscall and
 * wt_exitsyscall; errno and return values are libc's.  All of these are
 * cancellation points (CANCEL_POINT, shim.h), as glibc's are.  These are the calls
 * with no pollable form: a task blocked in one holds an OS thread (its
 * worker), but not its proc.  Waits on pipes and sockets park on the poller
 * instead (netio.c, poll.c).  Calls glibc makes internally (stdio's read,
 * system()'s waitpid) are not seen here.
 */
#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shim.h"
#include "stack/stack.h"

/* BLOCKING, CANCEL_POINT: shim.h. */

/* pread and pwrite are the same calls as the 64 forms on LP64; a program
 * built without _FILE_OFFSET_BITS=64 calls them by these names. */
CANCEL_POINT(ssize_t, pwrite, (int fd, const void *buf, size_t n, off_t off), (fd, buf, n, off))
CANCEL_POINT(ssize_t, pwrite64, (int fd, const void *buf, size_t n, off_t off), (fd, buf, n, off))
/* The kernel writes the buffer: a stack guard in it moves first. */
WT_EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	wt_real_init();
	wt_stack_prepare(buf, n);
	return CANCELABLE(real.pread(fd, buf, n, off));
}

WT_EXPORT ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	wt_real_init();
	wt_stack_prepare(buf, n);
	return CANCELABLE(real.pread64(fd, buf, n, off));
}

CANCEL_POINT(pid_t, waitpid, (pid_t pid, int *st, int opt), (pid, st, opt))
CANCEL_POINT(pid_t, wait, (int *st), (st))
CANCEL_POINT(int, waitid, (idtype_t t, id_t id, siginfo_t *in, int opt), (t, id, in, opt))
CANCEL_POINT(int, fsync, (int fd), (fd))
