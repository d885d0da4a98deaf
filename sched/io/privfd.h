/*
 * privfd.h — weft's own files in a descriptor table the program does not
 * share, and the gate for the two descriptors of weft's that must be in
 * the program's table (privfd.c).
 */
#ifndef WEFT_PRIVFD_H
#define WEFT_PRIVFD_H

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/syscall.h>

#include "arch.h"
#include "base/hooks.h"

/* At start (initial thread): the helper's stack and TCB, made now so that
 * the helper itself can be started later from any context. */
void wt_privfd_init(void);

/* Runs fn(arg) where the descriptors it opens are in no table of the
 * program's: on the calling thread if its table is weft's own (the
 * helper, a thread that called wt_privfd_own) or the program cannot run
 * beside it (before start, a vfork child); else on the helper, made at
 * the first call (not while crashing).  fn runs raw system calls only: no
 * lock, no allocation.  fn's result, or -ENOSYS when no private table can
 * be had (the helper cannot be made).  Context: any but a signal handler
 * other than the crash report's; blocks the calling OS thread for the
 * round trip (a few microseconds), never parks. */
long wt_privfd_run(long (*fn)(void *), void *arg);
/* One raw system call run as wt_privfd_run runs fn. */
long wt_privfd_syscall(long nr, long a, long b, long c, long d, long e, long f);
/* write(2) to a descriptor of weft's own table (base/print.h: struct wt_wbuf). */
long wt_privfd_write(int fd, const void *buf, size_t n);

/* The calling thread, one of weft's own that never needs the program's
 * descriptors (a dump's, the trace's writer), takes a table of its own,
 * keeping copies of descriptors 0..keep-1 only.  0 or -errno.  Context:
 * that thread, before it opens anything. */
int wt_privfd_own(int keep);
/* wt_privfd_say and wt_privfd_self (a message to the program's stderr;
 * is the calling thread's table weft's own?): base/hooks.h, for
 * base/print.c. */

/* The helper's OS thread id, 0 when there is none; wakes it to look at a
 * change of credentials (process/setxid.c), as sysmon is kicked.  Context: any. */
int wt_privfd_tid(void);
void wt_privfd_kick(void);
/* The process is dying (signal/crash.c): no helper is made from now on. */
void wt_privfd_dying(void);
/* Fork child: the helper is the parent's; the child makes its own. */
void wt_privfd_fork_reset(void);

/* The gate around weft's own descriptors of the program's table (the epoll
 * instance, the io_uring instance): made at the lowest free number, then
 * moved to 100 or above, with the gate closed, so that no dup2, dup3 or
 * close_range of the program's runs meanwhile.  wt_fdgate_close: false
 * when calls of the program's did not leave within 10 ms (the caller gives
 * up, as for a transient failure).  Context: a task, g0 or sysmon.
 * wt_fdgate_enter/leave bracket those calls of the program's (shim). */
bool wt_fdgate_close(void);
void wt_fdgate_open(void);
/* The descriptor system call nr(a, b, c) makes (epoll_create1,
 * io_uring_setup), made and moved to 100 or above (close-on-exec) with
 * the gate closed: the descriptor, -errno, or -EAGAIN when the gate did
 * not close. */
long wt_fdgate_make(long nr, long a, long b, long c);
/* wt_fdgate_make's move: fd (a new descriptor, or -errno) at 100 or above,
 * close-on-exec, out of the low numbers programs expect to get back (a
 * daemon closes 0-2 and reopens /dev/null; a fork child dup2s onto every
 * free number); left where it is under a descriptor limit of 100 or less.
 * Context: any; raw system calls. */
static inline long wt_fd_move_high(long fd)
{
	if (fd < 0 || fd >= 100)
		return fd;
	long hi = wt_syscall6(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 100, 0, 0, 0);
	if (hi < 0)
		return fd;
	wt_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	return hi;
}
void wt_fdgate_enter(void);
void wt_fdgate_leave(void);

#endif
