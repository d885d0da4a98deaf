/*
 * fallback.c — calls that may block and that no poller can wait for, run on
 * a real thread: libc's own function between wt_entersyscall and
 * wt_exitsyscall (sched/io/syscall.c).  The worker keeps its proc while the
 * call is quick; sysmon takes the proc away after about 20 µs and hands it
 * to another worker, so the other tasks keep running; the task's worker
 * wins a proc back or queues the task when the call returns.
 *
 * What blocks here and why it cannot be polled:
 *   open* / creat     a FIFO's open waits for the other end; NFS, FUSE;
 *   flock, fcntl(F_SETLKW, F_OFD_SETLKW), lockf(F_LOCK)   file locks;
 *   wait3, wait4                                           children;
 *   msgrcv, msgsnd, semop, semtimedop                      System V IPC;
 *   mq_send, mq_receive and their timed forms              POSIX queues;
 *   fdatasync, sync, syncfs, truncate, ftruncate           disk writeback;
 *   sendfile, copy_file_range, splice, tee, vmsplice       in-kernel copies.
 * fcntl and lockf bracket only their waiting commands; every other command
 * goes straight to libc.  The calls glibc makes cancellation points are
 * cancellation points here too (CANCELABLE, CANCEL_POINT: shim.h): open*,
 * creat, the waiting fcntl and lockf commands, wait3,
 * wait4, msgrcv, msgsnd, the mq_ sends and receives, fdatasync; flock,
 * semop, sync*, truncate and the copies are not, as in glibc (pause and
 * sigsuspend, in signal.c, are too).  Return values and errno are libc's (the runtime
 * calls made after libc's leave errno alone).  waitpid, wait, waitid
 * and fsync are in blocking.c.
 *
 * Context: any caller.  A thread weft did not create (wt_cur() == NULL)
 * calls libc directly.  Each call may block its worker, never parks.
 */
#include <fcntl.h>
#include <mqueue.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/file.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/sendfile.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shim.h"
#include "io/netpoll.h"

/* ---- open: a mode argument exists only with O_CREAT or O_TMPFILE ---- */

#define NEEDS_MODE(fl) (((fl) & O_CREAT) || ((fl) & O_TMPFILE) == O_TMPFILE)

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

static int open_common(open_fn f, int dirfd, openat_fn fat, const char *path, int flags,
		       va_list ap)
{
	mode_t mode = NEEDS_MODE(flags) ? va_arg(ap, mode_t) : 0;
	int fd = f ? CANCELABLE(f(path, flags, mode))
		   : CANCELABLE(fat(dirfd, path, flags, mode));
	if (fd >= 0)
		wt_fd_set_kind(fd, WT_FD_UNKNOWN); /* a number the poller may know */
	return fd;
}

WT_EXPORT int open(const char *path, int flags, ...)
{
	va_list ap;
	wt_real_init();
	va_start(ap, flags);
	int r = open_common(real.open, 0, NULL, path, flags, ap);
	va_end(ap);
	return r;
}

WT_EXPORT int open64(const char *path, int flags, ...)
{
	va_list ap;
	wt_real_init();
	va_start(ap, flags);
	int r = open_common(real.open64, 0, NULL, path, flags, ap);
	va_end(ap);
	return r;
}

WT_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	wt_real_init();
	va_start(ap, flags);
	int r = open_common(NULL, dirfd, real.openat, path, flags, ap);
	va_end(ap);
	return r;
}

WT_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	wt_real_init();
	va_start(ap, flags);
	int r = open_common(NULL, dirfd, real.openat64, path, flags, ap);
	va_end(ap);
	return r;
}

/* _FORTIFY_SOURCE builds call these when the flags are not constant. */
CANCEL_POINT(int, __open_2, (const char *path, int flags), (path, flags))
CANCEL_POINT(int, __open64_2, (const char *path, int flags), (path, flags))
CANCEL_POINT(int, __openat_2, (int dirfd, const char *path, int flags), (dirfd, path, flags))
CANCEL_POINT(int, __openat64_2, (int dirfd, const char *path, int flags), (dirfd, path, flags))
CANCEL_POINT(int, creat, (const char *path, mode_t mode), (path, mode))
CANCEL_POINT(int, creat64, (const char *path, mode_t mode), (path, mode))

/* ---- file locks ---- */

BLOCKING(int, flock, (int fd, int op), (fd, op))

typedef int (*fcntl_fn)(int, int, ...);

/* The third argument's type depends on the command, as the kernel reads
 * it: none, an int, or a pointer.  Unknown (newer) commands get a pointer-
 * sized value, which is what libc itself reads for every command. */
static int fcntl_common(fcntl_fn f, int fd, int cmd, va_list ap)
{
	switch (cmd) {
	case F_GETFD:
	case F_GETFL:
	case F_GETOWN:
	case F_GETSIG:
	case F_GETLEASE:
	case F_GETPIPE_SZ:
	case F_GET_SEALS:
		return f(fd, cmd);
	case F_SETFL: { /* O_NONBLOCK may change: the poller looks again */
		int r = f(fd, cmd, va_arg(ap, int));
		wt_fd_flags_changed(fd);
		return r;
	}
	case F_DUPFD:
	case F_DUPFD_CLOEXEC: {
		int r = f(fd, cmd, va_arg(ap, int));
		if (r >= 0)
			wt_fd_set_kind(r, WT_FD_UNKNOWN);
		return r;
	}
	case F_SETFD:
	case F_SETOWN:
	case F_SETSIG:
	case F_SETLEASE:
	case F_NOTIFY:
	case F_SETPIPE_SZ:
	case F_ADD_SEALS:
		return f(fd, cmd, va_arg(ap, int));
	case F_SETLKW: /* = F_SETLKW64 on LP64 */
	case F_OFD_SETLKW: {
		struct flock *lk = va_arg(ap, struct flock *);
		return CANCELABLE(f(fd, cmd, lk));
	}
	default:
		return f(fd, cmd, va_arg(ap, void *));
	}
}

WT_EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	wt_real_init();
	va_start(ap, cmd);
	int r = fcntl_common(real.fcntl, fd, cmd, ap);
	va_end(ap);
	return r;
}

WT_EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	wt_real_init();
	va_start(ap, cmd);
	int r = fcntl_common(real.fcntl64, fd, cmd, ap);
	va_end(ap);
	return r;
}

/* glibc's lockf calls its internal fcntl, which the wrapper above never
 * sees: only F_LOCK waits. */
WT_EXPORT int lockf(int fd, int cmd, off_t len)
{
	wt_real_init();
	return cmd == F_LOCK ? CANCELABLE(real.lockf(fd, cmd, len)) : real.lockf(fd, cmd, len);
}

WT_EXPORT int lockf64(int fd, int cmd, off64_t len)
{
	wt_real_init();
	return cmd == F_LOCK ? CANCELABLE(real.lockf64(fd, cmd, len))
			     : real.lockf64(fd, cmd, len);
}

/* ---- signals ---- */

/* sigwait, sigwaitinfo, sigtimedwait, sigsuspend and pause: signal.c (the
 * task's mask and queued signals take part in the wait). */

/* ---- children ---- */

CANCEL_POINT(pid_t, wait3, (int *st, int opt, struct rusage *ru), (st, opt, ru))
CANCEL_POINT(pid_t, wait4, (pid_t pid, int *st, int opt, struct rusage *ru), (pid, st, opt, ru))

/* ---- System V and POSIX IPC ---- */

/* The kernel never restarts these after a handler, SA_RESTART or not
 * (signal(7)), so a SIGURG of weft's own (a preemption request or a poke
 * sent in the microseconds before the call) would end them with EINTR:
 * a call that fails so while no handler of the program's ran on the task
 * is made again, as the program would see it natively.  semtimedop's
 * timeout is relative: the retry gets what is left of it. */
#define UNTIL_PROGRAM_EINTR(wrap, call)                                          \
	({                                                                         \
		struct wt_task *t_ = wt_cur();                                     \
		__typeof__(call) r_;                                               \
		for (;;) {                                                         \
			unsigned h_ = t_ ? wt_sig_handler_runs(t_) : 0;            \
			r_ = wrap(call);                                           \
			if (!t_ || r_ != -1 || errno != EINTR ||                   \
			    wt_sig_handler_runs(t_) != h_)                         \
				break;                                             \
		}                                                                  \
		r_;                                                                \
	})

WT_EXPORT ssize_t msgrcv(int id, void *msg, size_t n, long type, int fl)
{
	wt_real_init();
	return UNTIL_PROGRAM_EINTR(CANCELABLE, real.msgrcv(id, msg, n, type, fl));
}

WT_EXPORT int msgsnd(int id, const void *msg, size_t n, int fl)
{
	wt_real_init();
	return UNTIL_PROGRAM_EINTR(CANCELABLE, real.msgsnd(id, msg, n, fl));
}

WT_EXPORT int semop(int id, struct sembuf *ops, size_t n)
{
	wt_real_init();
	return UNTIL_PROGRAM_EINTR(BRACKETED, real.semop(id, ops, n));
}

/* What is left at now of the relative timeout ts started at start; false
 * once it has passed. */
static bool rel_left(const struct timespec *ts, int64_t start, int64_t now, struct timespec *left)
{
	int64_t ns = (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec - (now - start);
	if (ns <= 0)
		return false;
	left->tv_sec = ns / 1000000000;
	left->tv_nsec = ns % 1000000000;
	return true;
}

WT_EXPORT int semtimedop(int id, struct sembuf *ops, size_t n, const struct timespec *ts)
{
	wt_real_init();
	struct wt_task *t = wt_cur();
	/* The first call gets ts as given, so an invalid one fails with the
	 * kernel's EINVAL or EFAULT. */
	const struct timespec *arg = ts;
	struct timespec left;
	int64_t start = t && ts ? wt_nanotime() : 0;
	for (;;) {
		unsigned h = t ? wt_sig_handler_runs(t) : 0;
		int r = BRACKETED(real.semtimedop(id, ops, n, arg));
		if (!t || r != -1 || errno != EINTR || wt_sig_handler_runs(t) != h)
			return r;
		if (ts) {
			if (!rel_left(ts, start, wt_nanotime(), &left)) {
				errno = EAGAIN; /* the timeout passed: as the kernel says it */
				return -1;
			}
			arg = &left;
		}
	}
}
CANCEL_POINT(ssize_t, mq_receive, (mqd_t q, char *msg, size_t n, unsigned *prio), (q, msg, n, prio))
CANCEL_POINT(int, mq_send, (mqd_t q, const char *msg, size_t n, unsigned prio), (q, msg, n, prio))
CANCEL_POINT(ssize_t, mq_timedreceive, (mqd_t q, char *msg, size_t n, unsigned *prio,
				    const struct timespec *ts), (q, msg, n, prio, ts))
CANCEL_POINT(int, mq_timedsend, (mqd_t q, const char *msg, size_t n, unsigned prio,
			     const struct timespec *ts), (q, msg, n, prio, ts))

/* ---- disk writeback ---- */

CANCEL_POINT(int, fdatasync, (int fd), (fd))
BLOCKING(int, syncfs, (int fd), (fd))
BLOCKING(int, truncate, (const char *path, off_t len), (path, len))
BLOCKING(int, truncate64, (const char *path, off64_t len), (path, len))
BLOCKING(int, ftruncate, (int fd, off_t len), (fd, len))
BLOCKING(int, ftruncate64, (int fd, off64_t len), (fd, len))

WT_EXPORT void sync(void)
{
	wt_real_init();
	BRACKETED((real.sync(), 0)); /* sync cannot fail: errno stays as it was */
}

/* ---- in-kernel copies ---- */

BLOCKING(ssize_t, sendfile, (int out, int in, off_t *off, size_t n), (out, in, off, n))
BLOCKING(ssize_t, sendfile64, (int out, int in, off64_t *off, size_t n), (out, in, off, n))
BLOCKING(ssize_t, copy_file_range, (int in, off64_t *inoff, int out, off64_t *outoff, size_t n,
				    unsigned fl), (in, inoff, out, outoff, n, fl))
BLOCKING(ssize_t, splice, (int in, off64_t *inoff, int out, off64_t *outoff, size_t n,
			   unsigned fl), (in, inoff, out, outoff, n, fl))
BLOCKING(ssize_t, tee, (int in, int out, size_t n, unsigned fl), (in, out, n, fl))
BLOCKING(ssize_t, vmsplice, (int fd, const struct iovec *iov, size_t n, unsigned fl),
	 (fd, iov, n, fl))
