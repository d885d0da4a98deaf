/*
 * liburing.c — liburing's waits for completions, as blocking calls.
 *
 * liburing makes its io_uring_enter system calls itself, not through libc,
 * so no interposed libc call sees a task wait there: the worker slept in
 * the kernel holding its proc (with GOMAXPROCS=1 the task that was to
 * complete the wait never ran), and a SIGURG of weft's ended the wait with
 * EINTR, which liburing hands to the program.  Its entry points that wait
 * are interposed here: each is a blocking call (shim.h: BRACKETED), made
 * again after an EINTR no handler of the program's caused, with what is
 * left of its timeout.  Calls that cannot wait (wait_nr 0, no
 * IORING_ENTER_GETEVENTS) go straight to liburing.
 *
 * liburing's headers are not needed to build weft: its structures are
 * only passed through, and its calls return -errno.
 */
#include <dlfcn.h>
#include <signal.h>
#include <time.h>

#include "shim.h"

struct io_uring;
struct io_uring_cqe;
struct wt_kts {                 /* struct __kernel_timespec */
	long long tv_sec, tv_nsec;
};

#define IORING_ENTER_GETEVENTS 1u

/* liburing's function name, found after libweft on first use (the program
 * calls it, so liburing is loaded). */
#define LIBURING(type, name)                                           \
	static type name##_real(void)                                  \
	{                                                              \
		static void *f;                                        \
		void *p = __atomic_load_n(&f, __ATOMIC_ACQUIRE);       \
		if (!p) {                                              \
			p = dlsym(RTLD_NEXT, #name);                   \
			__atomic_store_n(&f, p, __ATOMIC_RELEASE);     \
		}                                                      \
		return (type)p;                                        \
	}

typedef int (*get_cqe_fn)(struct io_uring *, struct io_uring_cqe **, unsigned, unsigned,
			  sigset_t *);
typedef int (*wait_cqes_fn)(struct io_uring *, struct io_uring_cqe **, unsigned,
			    struct wt_kts *, sigset_t *);
typedef int (*wait_cqe_timeout_fn)(struct io_uring *, struct io_uring_cqe **, struct wt_kts *);
typedef int (*submit_and_wait_fn)(struct io_uring *, unsigned);
typedef int (*submit_and_wait_timeout_fn)(struct io_uring *, struct io_uring_cqe **, unsigned,
					  struct wt_kts *, sigset_t *);
typedef int (*enter_fn)(unsigned, unsigned, unsigned, unsigned, sigset_t *);
typedef int (*enter2_fn)(unsigned, unsigned, unsigned, unsigned, sigset_t *, size_t);

LIBURING(get_cqe_fn, __io_uring_get_cqe)
LIBURING(wait_cqes_fn, io_uring_wait_cqes)
LIBURING(wait_cqe_timeout_fn, io_uring_wait_cqe_timeout)
LIBURING(submit_and_wait_fn, io_uring_submit_and_wait)
LIBURING(submit_and_wait_timeout_fn, io_uring_submit_and_wait_timeout)
LIBURING(enter_fn, io_uring_enter)
LIBURING(enter2_fn, io_uring_enter2)

/* A timed wait made again: *left becomes what is left of *orig from start;
 * false once nothing is. */
static bool time_left(const struct wt_kts *orig, int64_t start, struct wt_kts *left)
{
	int64_t total = orig->tv_sec * 1000000000ll + orig->tv_nsec;
	int64_t rest = total - (wt_nanotime() - start);
	if (rest <= 0)
		return false;
	left->tv_sec = rest / 1000000000;
	left->tv_nsec = rest % 1000000000;
	return true;
}

/* WAIT(call): call (a liburing wait, -errno on failure) as a blocking call,
 * made again while it fails with -EINTR that no program handler caused.
 * call is evaluated afresh each time. */
#define WAIT(call)                                                                    \
	({                                                                            \
		int r_;                                                               \
		struct wt_task *t_ = wt_cur();                                        \
		for (;;) {                                                            \
			unsigned h_ = t_ ? wt_sig_handler_runs(t_) : 0;               \
			r_ = BRACKETED(call);                                         \
			if (!t_ || r_ != -EINTR || wt_sig_handler_runs(t_) != h_)    \
				break;                                                \
		}                                                                     \
		r_;                                                                   \
	})

/* TIMED_WAIT(ts, left, call): WAIT(call), call naming its timeout `left`:
 * NULL when ts is, else what is left of *ts each time it is made. */
#define TIMED_WAIT(ts, left, call)                                         \
	({                                                                  \
		const struct wt_kts *o_ = (ts);                             \
		struct wt_kts l_, *left = o_ ? &l_ : NULL;                  \
		int64_t s_ = wt_nanotime();                                 \
		WAIT(!o_ || time_left(o_, s_, &l_) ? (call) : -ETIME);      \
	})

WT_EXPORT int __io_uring_get_cqe(struct io_uring *ring, struct io_uring_cqe **cqe,
				 unsigned submit, unsigned wait_nr, sigset_t *mask)
{
	wt_real_init();
	get_cqe_fn f = __io_uring_get_cqe_real();
	if (!wait_nr)
		return f(ring, cqe, submit, wait_nr, mask);
	return WAIT(f(ring, cqe, submit, wait_nr, mask));
}

WT_EXPORT int io_uring_wait_cqes(struct io_uring *ring, struct io_uring_cqe **cqe,
				 unsigned wait_nr, struct wt_kts *ts, sigset_t *mask)
{
	wt_real_init();
	wait_cqes_fn f = io_uring_wait_cqes_real();
	return TIMED_WAIT(ts, left, f(ring, cqe, wait_nr, left, mask));
}

WT_EXPORT int io_uring_wait_cqe_timeout(struct io_uring *ring, struct io_uring_cqe **cqe,
					struct wt_kts *ts)
{
	wt_real_init();
	wait_cqe_timeout_fn f = io_uring_wait_cqe_timeout_real();
	return TIMED_WAIT(ts, left, f(ring, cqe, left));
}

WT_EXPORT int io_uring_submit_and_wait(struct io_uring *ring, unsigned wait_nr)
{
	wt_real_init();
	submit_and_wait_fn f = io_uring_submit_and_wait_real();
	if (!wait_nr)
		return f(ring, wait_nr);
	return WAIT(f(ring, wait_nr));
}

WT_EXPORT int io_uring_submit_and_wait_timeout(struct io_uring *ring, struct io_uring_cqe **cqe,
					       unsigned wait_nr, struct wt_kts *ts, sigset_t *mask)
{
	wt_real_init();
	submit_and_wait_timeout_fn f = io_uring_submit_and_wait_timeout_real();
	return TIMED_WAIT(ts, left, f(ring, cqe, wait_nr, left, mask));
}

WT_EXPORT int io_uring_enter(unsigned fd, unsigned submit, unsigned min, unsigned flags,
			     sigset_t *mask)
{
	wt_real_init();
	enter_fn f = io_uring_enter_real();
	if (!(flags & IORING_ENTER_GETEVENTS) || !min)
		return f(fd, submit, min, flags, mask);
	return WAIT(f(fd, submit, min, flags, mask));
}

/* io_uring_enter2's argument may carry a timeout (IORING_ENTER_EXT_ARG):
 * a wait interrupted by weft then returns -EINTR, as it would for a
 * signal, and is not made again with its whole timeout. */
WT_EXPORT int io_uring_enter2(unsigned fd, unsigned submit, unsigned min, unsigned flags,
			      sigset_t *arg, size_t sz)
{
	wt_real_init();
	enter2_fn f = io_uring_enter2_real();
	if (!(flags & IORING_ENTER_GETEVENTS) || !min)
		return f(fd, submit, min, flags, arg, sz);
	return BRACKETED(f(fd, submit, min, flags, arg, sz));
}
