/*
 * poll.c — poll, ppoll, select, pselect, epoll_wait, epoll_pwait,
 * epoll_pwait2: a task waiting for readiness parks on the poller.
 *
 * Each call first looks with a zero timeout (the real call), so a ready set
 * costs one system call as natively.  Otherwise the task needs one
 * descriptor to park on:
 *   - epoll_wait: the program's epoll fd itself (an epoll fd is pollable);
 *   - poll on one descriptor, for reading or for writing: that descriptor,
 *     in the process's poller, as a read or write parks;
 *   - poll/select otherwise: a private epoll instance holding the
 *     program's set (level-triggered), kept by the task for its next wait
 *     on the same set (sched/io/pollwatch.c), else made for this wait and
 *     closed after it.  It takes a descriptor number for as long as the
 *     task waits, or keeps it.
 * Then: read the counter, look again with a zero timeout, park (sched/
 * io/netpoll.c's protocol), and look again when woken, until something is
 * ready or the deadline passes.  Results are always the real call's.
 * Calls with a signal mask (ppoll, pselect, epoll_pwait, epoll_pwait2 with
 * a non-NULL mask) need the kernel's atomic mask swap: they run as a blocking call
 * between entersyscall and exitsyscall, holding a thread.
 */
#include <limits.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>

#include "shim.h"
#include "io/privfd.h"
#include "io/netpoll.h"
#include "io/pollwatch.h"
#include "core/task.h"

static long fail(long r)
{
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

static int64_t deadline_ms(int ms)
{
	return ms < 0 ? -1 : wt_nanotime() + ms * 1000000ll;
}

static int64_t deadline_ts(const struct timespec *ts)
{
	return ts ? wt_nanotime() + ts->tv_sec * 1000000000ll + ts->tv_nsec : -1;
}

/* What is left until dl, in *buf; NULL when there is no deadline. */
static const struct timespec *ts_left(int64_t dl, struct timespec *buf)
{
	if (dl < 0)
		return NULL;
	int64_t left = dl - wt_nanotime();
	if (left < 0)
		left = 0;
	buf->tv_sec = left / 1000000000;
	buf->tv_nsec = left % 1000000000;
	return buf;
}

static int remaining_ms(int64_t dl)
{
	if (dl < 0)
		return -1;
	int64_t left = dl - wt_nanotime();
	return left <= 0 ? 0 : (int)((left + 999999) / 1000000);
}

/* Look at the set (zero timeout); 0 = nothing ready, else a result. */
typedef long (*look_fn)(void *arg);

/* A look is weft's call, not the program's.  The kernel ends one with
 * EINTR when a signal is pending as it finds nothing ready (it checks even
 * with no timeout), so a SIGURG of weft's own (a preemption request, a
 * poke) that lands in it must not reach the program: the look is made
 * again, unless a handler of the program's ran on the task meanwhile (then
 * the call fails with EINTR, as poll, select and epoll_wait do natively
 * when a handler interrupts them).  Context: a task. */
static long look_call(long nr, long a, long b, long c, long d, long e, long f)
{
	struct wt_task *t = wt_cur();
	for (;;) {
		unsigned h = wt_sig_handler_runs(t);
		long r = wt_syscall6(nr, a, b, c, d, e, f);
		if (r != -EINTR || wt_sig_handler_runs(t) != h)
			return r;
	}
}

/* Parks on fd until look() finds something or dl passes.  Returns look's
 * result, 0 on timeout, -EPERM when fd cannot be parked on. */
static long wait_on(int fd, look_fn look, void *arg, int64_t dl)
{
	for (;;) {
		uint32_t s = wt_netpoll_seq(fd, WT_IO_READ);
		long r = look(arg);
		if (r != 0)
			return r;
		if (dl >= 0 && dl <= wt_nanotime())
			return 0;
		int64_t d = dl;
		switch (wt_netpoll_wait(fd, WT_IO_READ, s, &d)) {
		case 0:
			continue;
		case -ETIMEDOUT:
			return look(arg);
		case -ECANCELED:
			return -ECANCELED;
		case -EINTR:
			return -EINTR; /* poll, select, epoll_wait: never restarted */
		default:
			return -EPERM;
		}
	}
}

/* Parks with no descriptors: poll(NULL, 0, ms) is a sleep, which a
 * handler ends with EINTR as it ends any poll (never restarted).  Returns
 * 0 at the deadline (never with none), or -EINTR. */
static int sleep_until(int64_t dl)
{
	int r;
	while ((r = wt_park_sleep(dl)) == WT_PARK_WOKEN)
		;
	if (r == WT_PARK_CANCELED)
		wt_cancel_act();
	if (r == WT_PARK_INTR)
		return -EINTR;
	return 0;
}

/* ---- poll ---- */

struct pollset {
	struct pollfd *fds;
	nfds_t n;
};

static long look_poll(void *arg)
{
	struct pollset *ps = arg;
	struct timespec zero = { 0, 0 };
	return look_call(SYS_ppoll, (long)ps->fds, ps->n, (long)&zero, 0, 8, 0);
}

static uint32_t to_epoll(short ev)
{
	uint32_t e = 0;
	if (ev & POLLIN)
		e |= EPOLLIN;
	if (ev & POLLOUT)
		e |= EPOLLOUT;
	if (ev & POLLPRI)
		e |= EPOLLPRI;
	if (ev & POLLRDHUP)
		e |= EPOLLRDHUP;
	return e;
}

/* A private epoll instance watching the set; -1 if one cannot be made or a
 * descriptor cannot be watched (the caller then blocks the plain way).  It
 * lives in the program's table (epoll_ctl names the program's
 * descriptors), at 100 or above, made as the poller's is (io/privfd.h). */
static int make_watch(const struct pollfd *fds, nfds_t n)
{
	long ep = wt_fdgate_make(SYS_epoll_create1, EPOLL_CLOEXEC, 0, 0);
	if (ep < 0)
		return -1;
	for (nfds_t i = 0; i < n; i++) {
		if (fds[i].fd < 0)
			continue;
		struct epoll_event ev = { .events = to_epoll(fds[i].events),
					  .data.u64 = (uint64_t)fds[i].fd };
		long r = wt_syscall6(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, fds[i].fd, (long)&ev, 0, 0);
		if (r == -EEXIST) {
			/* The same descriptor twice: watch the union. */
			for (nfds_t j = 0; j < n; j++)
				if (fds[j].fd == fds[i].fd)
					ev.events |= to_epoll(fds[j].events);
			r = wt_syscall6(SYS_epoll_ctl, ep, EPOLL_CTL_MOD, fds[i].fd, (long)&ev, 0, 0);
		}
		if (r < 0) {
			wt_syscall6(SYS_close, ep, 0, 0, 0, 0, 0);
			return -1;
		}
	}
	wt_fd_set_kind((int)ep, WT_FD_UNKNOWN);
	return (int)ep;
}

/* Parks on an instance watching fds[0..n) (the task's kept one when it
 * watches this set: sched/io/pollwatch.c) until look() finds something or dl
 * passes; wait_on's results.  On a kept instance the wait is bounded by
 * KEPT_TRUST_NS: a close weft did not see may have left a number
 * unwatched, so past that the instance is made afresh and the wait goes
 * on. */
#define KEPT_TRUST_NS 1000000000ll
static long watch_wait(const struct pollfd *fds, nfds_t n, look_fn look, void *arg, int64_t dl)
{
	struct wt_task *t = wt_cur();
	for (;;) {
		bool own, kept;
		int ep = wt_pollwatch_get(t, fds, n, make_watch, &own, &kept);
		if (ep < 0)
			return -EPERM;
		int64_t d = dl;
		if (kept) {
			int64_t cap = wt_nanotime() + KEPT_TRUST_NS;
			if (d < 0 || d > cap)
				d = cap;
		}
		long r = wait_on(ep, look, arg, d);
		wt_pollwatch_put(t, ep, own);
		if (r != 0 || d == dl)
			return r;
		wt_pollwatch_drop(t);
	}
}

/* What the poller's read and write edges stand for (io/netpoll.c: a read
 * edge is any of EPOLLIN, EPOLLRDHUP, EPOLLPRI, EPOLLHUP, EPOLLERR). */
#define POLL_READ (POLLIN | POLLPRI | POLLRDNORM | POLLRDBAND | POLLRDHUP)
#define POLL_WRITE (POLLOUT | POLLWRNORM | POLLWRBAND)

/* One descriptor waited for one way (reading or writing), the most common
 * poll (a server's connection thread before each read): parked on the
 * descriptor itself in the process's poller, as a read is, instead of a
 * private epoll instance made and closed for the wait (four system calls).
 * -EPERM: the poller refuses it. */
static long wait_one(struct pollset *ps, int64_t dl)
{
	int fd = ps->fds[0].fd;
	int mode = ps->fds[0].events & POLL_READ ? WT_IO_READ : WT_IO_WRITE;
	for (;;) {
		uint32_t s = wt_netpoll_seq(fd, mode);
		long r = look_poll(ps);
		if (r != 0)
			return r;
		if (dl >= 0 && dl <= wt_nanotime())
			return 0;
		switch (wt_netpoll_wait_ready(fd, mode, s, dl)) {
		case 0:
			continue;
		case -ETIMEDOUT:
			return look_poll(ps);
		case -ECANCELED:
			return -ECANCELED;
		case -EINTR:
			return -EINTR; /* poll: never restarted */
		case -EBADF:
			return look_poll(ps); /* closed meanwhile: POLLNVAL, as the kernel says */
		default:
			return -EPERM;
		}
	}
}

/* Waits the poller's way; -EPERM means "do the blocking call". */
static long poll_wait(struct pollfd *fds, nfds_t n, int64_t dl)
{
	struct pollset ps = { fds, n };
	if (n == 0)
		return sleep_until(dl);
	short ev = fds[0].events & ~(POLLERR | POLLHUP | POLLNVAL);
	if (n == 1 && fds[0].fd >= 0 && ev &&
	    (!(ev & ~POLL_READ) || !(ev & ~POLL_WRITE))) {
		long r = wait_one(&ps, dl);
		if (r != -EPERM) {
			if (r == -ECANCELED)
				wt_cancel_act();
			return r;
		}
	}
	long r = watch_wait(fds, n, look_poll, &ps, dl);
	if (r == -ECANCELED)
		wt_cancel_act();
	return r;
}

static int poll_plain(struct pollfd *fds, nfds_t n, int64_t dl)
{
	return CANCELABLE_RETRY(real.poll(fds, n, remaining_ms(dl)));
}

WT_EXPORT int poll(struct pollfd *fds, nfds_t n, int ms)
{
	wt_real_init();
	if (!wt_cur() || ms == 0)
		return real.poll(fds, n, ms);
	wt_testcancel();
	struct pollset ps = { fds, n };
	long r = n ? look_poll(&ps) : 0;
	if (r != 0)
		return (int)fail(r);
	int64_t dl = deadline_ms(ms);
	r = poll_wait(fds, n, dl);
	if (r == -EPERM)
		return poll_plain(fds, n, dl);
	return (int)fail(r);
}

WT_EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *m)
{
	wt_real_init();
	sigset_t kb;
	m = wt_wait_mask(m, &kb);
	if (!wt_cur() || (ts && ts->tv_sec == 0 && ts->tv_nsec == 0))
		return real.ppoll(fds, n, ts, m);
	if (ts && !wt_ts_valid(ts)) {
		errno = EINVAL;
		return -1;
	}
	wt_testcancel();
	int64_t dl = deadline_ts(ts);
	if (m) {
		struct timespec left;
		return CANCELABLE_RETRY(real.ppoll(fds, n, ts_left(dl, &left), m));
	}
	struct pollset ps = { fds, n };
	long r = n ? look_poll(&ps) : 0;
	if (r != 0)
		return (int)fail(r);
	r = poll_wait(fds, n, dl);
	if (r == -EPERM)
		return poll_plain(fds, n, dl);
	return (int)fail(r);
}

/* ---- select ---- */

struct selset {
	int n;
	fd_set *r, *w, *e;          /* the program's sets: results */
	fd_set in_r, in_w, in_e;    /* what it asked for */
};

static long look_select(void *arg)
{
	struct selset *s = arg;
	fd_set r = s->in_r, w = s->in_w, e = s->in_e;
	struct timespec zero = { 0, 0 };
	long k = look_call(SYS_pselect6, s->n, (long)(s->r ? &r : NULL), (long)(s->w ? &w : NULL),
			   (long)(s->e ? &e : NULL), (long)&zero, 0);
	if (k > 0) {
		if (s->r)
			*s->r = r;
		if (s->w)
			*s->w = w;
		if (s->e)
			*s->e = e;
	}
	return k;
}

static long select_wait(struct selset *s, int64_t dl)
{
	struct pollfd fds[FD_SETSIZE];
	nfds_t k = 0;
	for (int fd = 0; fd < s->n; fd++) {
		short ev = 0;
		if (s->r && FD_ISSET(fd, &s->in_r))
			ev |= POLLIN;
		if (s->w && FD_ISSET(fd, &s->in_w))
			ev |= POLLOUT;
		if (s->e && FD_ISSET(fd, &s->in_e))
			ev |= POLLPRI;
		if (ev)
			fds[k++] = (struct pollfd){ fd, ev, 0 };
	}
	if (k == 0)
		return sleep_until(dl);
	long r = watch_wait(fds, k, look_select, s, dl);
	if (r == -ECANCELED)
		wt_cancel_act();
	return r;
}

static void clear_sets(struct selset *s)
{
	if (s->r)
		FD_ZERO(s->r);
	if (s->w)
		FD_ZERO(s->w);
	if (s->e)
		FD_ZERO(s->e);
}

/* select and pselect without a signal mask, for a task: the set watched
 * the poller's way.  Returns the count, or -EPERM when the caller must make
 * the blocking call (the program's sets are then as it passed them). */
static long select_task(int n, fd_set *r, fd_set *w, fd_set *e, int64_t dl)
{
	struct selset s = { .n = n, .r = r, .w = w, .e = e };
	FD_ZERO(&s.in_r);
	FD_ZERO(&s.in_w);
	FD_ZERO(&s.in_e);
	if (r)
		s.in_r = *r;
	if (w)
		s.in_w = *w;
	if (e)
		s.in_e = *e;
	long k = look_select(&s);
	if (k == 0)
		k = select_wait(&s, dl);
	if (k == -EPERM) {
		if (r)
			*r = s.in_r;
		if (w)
			*w = s.in_w;
		if (e)
			*e = s.in_e;
	} else if (k == 0) {
		clear_sets(&s);
	}
	return k;
}

WT_EXPORT int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv)
{
	wt_real_init();
	if (!wt_cur() || n < 0 || n > FD_SETSIZE || (tv && tv->tv_sec == 0 && tv->tv_usec == 0) ||
	    (tv && (tv->tv_sec < 0 || tv->tv_usec < 0 || tv->tv_usec >= 1000000)))
		return real.select(n, r, w, e, tv);
	wt_testcancel();
	int64_t dl = tv ? wt_nanotime() + tv->tv_sec * 1000000000ll + tv->tv_usec * 1000ll : -1;
	long k = select_task(n, r, w, e, dl);
	if (k == -EPERM) /* the kernel leaves in *tv what is left */
		return CANCELABLE_RETRY(real.select(n, r, w, e, tv));
	if (tv) { /* Linux reports the time left */
		int64_t left = dl - wt_nanotime();
		if (left < 0)
			left = 0;
		tv->tv_sec = left / 1000000000;
		tv->tv_usec = (left % 1000000000) / 1000;
	}
	return (int)fail(k);
}

WT_EXPORT int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts,
		      const sigset_t *m)
{
	wt_real_init();
	sigset_t kb;
	m = wt_wait_mask(m, &kb);
	bool zero = ts && ts->tv_sec == 0 && ts->tv_nsec == 0;
	if (!wt_cur() || zero)
		return real.pselect(n, r, w, e, ts, m);
	long k = -EPERM;
	if (!m && n >= 0 && n <= FD_SETSIZE && (!ts || wt_ts_valid(ts))) {
		wt_testcancel();
		k = select_task(n, r, w, e, deadline_ts(ts));
	}
	if (k == -EPERM && ts && !wt_ts_valid(ts)) /* for the kernel to judge */
		return CANCELABLE(real.pselect(n, r, w, e, ts, m));
	if (k == -EPERM) { /* a signal mask, or sets weft cannot watch */
		int64_t dl = deadline_ts(ts);
		struct timespec left;
		return CANCELABLE_RETRY(real.pselect(n, r, w, e, ts_left(dl, &left), m));
	}
	return (int)fail(k);
}

/* ---- epoll_wait ---- */

struct epset {
	int ep;
	struct epoll_event *ev;
	int max;
};

static long look_epoll(void *arg)
{
	struct epset *s = arg;
	return look_call(SYS_epoll_pwait, s->ep, (long)s->ev, s->max, 0, 0, 8);
}

WT_EXPORT int epoll_wait(int ep, struct epoll_event *ev, int max, int ms)
{
	wt_real_init();
	if (!wt_cur() || ms == 0)
		return real.epoll_wait(ep, ev, max, ms);
	wt_testcancel();
	struct epset s = { ep, ev, max };
	long r = look_epoll(&s);
	if (r != 0)
		return (int)fail(r);
	int64_t dl = deadline_ms(ms);
	r = wait_on(ep, look_epoll, &s, dl);
	if (r == -ECANCELED)
		wt_cancel_act();
	if (r == -EPERM)
		return CANCELABLE_RETRY(real.epoll_wait(ep, ev, max, remaining_ms(dl)));
	return (int)fail(r);
}

WT_EXPORT int epoll_pwait(int ep, struct epoll_event *ev, int max, int ms, const sigset_t *m)
{
	wt_real_init();
	sigset_t kb;
	m = wt_wait_mask(m, &kb);
	if (!m)
		return epoll_wait(ep, ev, max, ms);
	if (!wt_cur() || ms == 0)
		return real.epoll_pwait(ep, ev, max, ms, m);
	wt_testcancel();
	int64_t dl = deadline_ms(ms);
	return CANCELABLE_RETRY(real.epoll_pwait(ep, ev, max, remaining_ms(dl), m));
}

/* epoll_pwait2 (glibc 2.35): epoll_pwait with a timespec timeout.  Without
 * a mask it parks as epoll_wait does; with one it is the kernel's call,
 * bracketed, as epoll_pwait's. */
static long epoll_pwait2_call(int ep, struct epoll_event *ev, int max, const struct timespec *ts,
			      const sigset_t *m)
{
	if (real.epoll_pwait2)
		return real.epoll_pwait2(ep, ev, max, ts, m);
	return fail(wt_syscall6_sigok(SYS_epoll_pwait2, ep, (long)ev, max, (long)ts, (long)m, 8));
}

WT_EXPORT int epoll_pwait2(int ep, struct epoll_event *ev, int max, const struct timespec *ts,
			   const sigset_t *m)
{
	wt_real_init();
	sigset_t kb;
	m = wt_wait_mask(m, &kb);
	bool zero = ts && ts->tv_sec == 0 && ts->tv_nsec == 0;
	if (!wt_cur() || zero || (ts && !wt_ts_valid(ts)))
		return (int)epoll_pwait2_call(ep, ev, max, ts, m);
	wt_testcancel();
	int64_t dl = deadline_ts(ts);
	struct timespec left;
	if (m)
		return (int)CANCELABLE_RETRY(epoll_pwait2_call(ep, ev, max, ts_left(dl, &left), m));
	struct epset s = { ep, ev, max };
	long r = look_epoll(&s);
	if (r != 0)
		return (int)fail(r);
	r = wait_on(ep, look_epoll, &s, dl);
	if (r == -ECANCELED)
		wt_cancel_act();
	if (r == -EPERM)
		return (int)CANCELABLE_RETRY(epoll_pwait2_call(ep, ev, max, ts_left(dl, &left), NULL));
	return (int)fail(r);
}
