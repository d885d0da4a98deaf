/*
 * netpoll.h — the poller: tasks parked on descriptors until epoll says
 * they are ready (netpoll.c).
 */
#ifndef WEFT_NETPOLL_H
#define WEFT_NETPOLL_H

#include "core/runtime.h"

enum { WT_IO_READ = 0, WT_IO_WRITE = 1 };
/* What weft knows of a descriptor number. */
enum { WT_FD_UNKNOWN = 0, WT_FD_POLLABLE = 1, WT_FD_FILE = 2 };

uint32_t wt_netpoll_seq(int fd, int mode);
/* *deadline: mono ns, -1 none, or WT_DEADLINE_SOCKOPT: the socket's
 * SO_RCVTIMEO / SO_SNDTIMEO, looked up by the first wait (netpoll.c). */
#define WT_DEADLINE_SOCKOPT (-2)
int wt_netpoll_wait(int fd, int mode, uint32_t seq, int64_t *deadline);
/* The same wait for readiness alone, O_NONBLOCK or not (poll on one
 * descriptor): deadline mono ns or -1.  Context: a task. */
int wt_netpoll_wait_ready(int fd, int mode, uint32_t seq, int64_t deadline);
/* After wt_netpoll_wait's -EINTR: no handler without SA_RESTART ran
 * during the wait (signal/sighandler.c), so a read or write waits again, as
 * natively.  Context: the task that waited. */
static inline bool wt_netpoll_restarts(void)
{
	struct wt_task *t = wt_cur();
	return !(t && t->sig_norestart);
}
/* The calling task is alone in the process: it may make its blocking call
 * on fd itself instead of waiting on the poller (netpoll.c, "waiting in
 * the call itself"); then wt_netpoll_direct_end after the call.  Context:
 * a task, after a non-blocking attempt said EAGAIN. */
bool wt_netpoll_direct_begin(int fd);
void wt_netpoll_direct_end(void);
int wt_netpoll_register(int fd);
void wt_netpoll_close(int fd);
/* How many times weft saw fd closed or replaced (close, dup2, dup3,
 * close_range, fclose, pclose): a number whose count is unchanged is the
 * same file as before.  Context: any; may map the number's table chunk. */
uint32_t wt_netpoll_closegen(int fd);
void wt_netpoll_close_range(unsigned lo, unsigned hi);
struct wt_task *wt_netpoll(int timeout_ms);  /* ready tasks, a schedlink list */
bool wt_netpoll_block(struct wt_m *m);
void wt_netpoll_sysmon(int64_t now);
int wt_netpoll_fd(void);
void wt_netpoll_after_fork(void);
int wt_fd_kind(int fd);
void wt_fd_set_kind(int fd, int kind);
void wt_fd_flags_changed(int fd);
int wt_fd_nonblock(int fd);
int64_t wt_fd_sock_deadline(int fd, int mode);
extern _Atomic long wt_netpoll_waiters;

#endif
