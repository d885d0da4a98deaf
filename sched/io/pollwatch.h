/*
 * pollwatch.h — the private epoll instance a task's poll or select waits
 * on, kept for its next wait on the same set (pollwatch.c).
 */
#ifndef WEFT_POLLWATCH_H
#define WEFT_POLLWATCH_H

#include <poll.h>

#include "core/runtime.h"

/* An instance watching fds[0..n) as make(fds, n) makes one (a descriptor,
 * or -1): t's kept one when it watches this very set and nothing of it was
 * closed since, else a new one, kept if it may be.  *own: the caller
 * closes it after the wait (wt_pollwatch_put); *kept_before: it is the one
 * kept from an earlier wait (its registrations are trusted, so the caller
 * bounds its wait: wt_pollwatch_drop heals a close weft did not see).
 * Context: t, a task; may make system calls; never parks. */
int wt_pollwatch_get(struct wt_task *t, const struct pollfd *fds, nfds_t n,
		     int (*make)(const struct pollfd *, nfds_t), bool *own, bool *kept_before);
/* After the wait on ep from wt_pollwatch_get.  Context: t. */
void wt_pollwatch_put(struct wt_task *t, int ep, bool own);
/* The kept instance is not trusted any more: closed, forgotten.  Context: t,
 * not between get and put. */
void wt_pollwatch_drop(struct wt_task *t);
/* t exits: its instance is closed and its record unmapped.  Context: t. */
void wt_pollwatch_exit(struct wt_task *t);

#endif
