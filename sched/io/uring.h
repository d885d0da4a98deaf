/*
 * uring.h — calls without a non-blocking form, made asynchronously by the
 * kernel (io_uring) while the task parks (uring.c).
 */
#ifndef WEFT_URING_H
#define WEFT_URING_H

#include <sys/socket.h>

#include "core/runtime.h"

/* How wt_uring_connect / wt_uring_accept ended. */
enum wt_uring_end {
	WT_URING_DONE = 0,      /* the call completed: *res is its value or -errno */
	WT_URING_NORING = 1,    /* no ring here (refused, fork child failed): nothing done */
	WT_URING_TIMEDOUT = 2,  /* the deadline passed: the call was canceled */
	WT_URING_INTR = 3,      /* a signal's handler ran, no restart: canceled */
};

int wt_uring_connect(int fd, const struct sockaddr *a, socklen_t al, int64_t deadline,
		     bool restart, long *res);
int wt_uring_accept(int fd, struct sockaddr *a, socklen_t *al, int fl, int64_t deadline,
		    bool restart, long *res);
int wt_uring_fd(void);
void wt_uring_reap(struct wt_task **list);
void wt_uring_after_fork(void);

#endif
