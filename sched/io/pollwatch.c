/*
 * pollwatch.c — a task's poll or select on many descriptors waits on a
 * private epoll instance (shim/poll.c), kept for its next wait on the
 * same set.
 *
 * A poll that must wait on more than one descriptor parks on an epoll
 * instance watching the set (level-triggered).  Made and closed for each
 * wait, it cost the fd gate, epoll_create1 (with the move to 100 or above,
 * privfd.h), one epoll_ctl per descriptor and a close: a loop polling 64
 * pipes made about 70 system calls per wait where poll natively makes one
 * (strace of bench/poll_many: 63 epoll_ctl, 1 epoll_create1, 1 close, 2
 * ppoll looks per round).  Programs poll the same set again and again (an
 * event loop over its connections), so each task keeps the instance of
 * its last wait, with the set it watches, and the next wait on the same
 * set (same descriptors, same events, in the same order) parks on it at
 * once: two looks and the park.  bench/poll_many (64 pipes, 20,000
 * rounds, a machine at load ~70): natively 15-51 us a round; made per
 * wait 127-195 us (2.1-2.6 s of CPU); kept 42-99 us (0.8-0.9 s of CPU);
 * at GOMAXPROCS=1 503 -> 51 us.  What is left is the park and wake-up
 * of the two tasks.
 *
 * Trust.  A registration belongs to the file a number named when it was
 * added: a number closed and opened again names another file, which the
 * kept instance does not watch.  weft counts every close it sees of a
 * number (netpoll.c: closegen, bumped by close, dup2, dup3, close_range,
 * fclose, pclose, syscall(SYS_close)); a set is reused only while the
 * count of each of its numbers, and of the instance's own, is the one
 * read before it was registered.  A close weft does not see (an inline
 * system call) would leave the wait deaf to that number: a wait on a kept
 * instance is bounded (1 s, shim/poll.c), after which the instance is made
 * afresh, so such a close costs at most that delay, never a hang.  The
 * instance's own number, if the program closed it (seen), is forgotten,
 * never closed by weft: it may be the program's file by now.
 *
 * Cost in descriptors.  A kept instance holds a number in the program's
 * table while its task does not wait (natively poll holds none): at most
 * KEEP_MAX tasks keep one at a time (a count), the others make and close
 * theirs per wait as before.  A task keeps its instance until it waits on
 * another set or exits (wt_pollwatch_exit, core/task.c).  A fork child's
 * instance is its parent's (an epoll instance is shared across fork): the
 * child's first wait closes its copy of the number and makes its own.
 *
 * Rejected: one instance per worker, which bounds the descriptors by the
 * workers but moves with nobody: a task parked on it resumes on another
 * worker, whose instance watches another set.
 */
#include <sys/syscall.h>

#include "core/runtime.h"
#include "netpoll.h"
#include "pollwatch.h"
#include "signal/sigtask.h"
#include "base/slab.h"
#include "process/vfork.h"

#define WATCH_MAX 256 /* the longest set kept: its record fits a page or so */
#define KEEP_MAX 16   /* tasks keeping an instance at a time */

struct wt_pollwatch {
	int ep;            /* the kept instance, -1 = none */
	int pid;           /* wt_pid when it was made */
	uint32_t epgen;    /* the instance number's closegen when it was made */
	bool busy;         /* a wait of t's is on it now (a handler's poll makes its own) */
	nfds_t n;
	struct {
		int fd;
		short events;
		uint32_t gen;  /* closegen before it was registered */
	} e[WATCH_MAX];
};

static _Atomic int kept; /* [atomic] tasks keeping an instance */

/* Forgets w's instance: closed when it is still weft's own.  Context: its
 * task. */
static void forget(struct wt_pollwatch *w)
{
	if (w->ep < 0)
		return;
	/* In a fork child, the child's copy of the number (wt_pid differs). */
	if (wt_netpoll_closegen(w->ep) == w->epgen) {
		wt_syscall6(SYS_close, w->ep, 0, 0, 0, 0, 0);
		wt_fd_set_kind(w->ep, WT_FD_UNKNOWN);
	}
	w->ep = -1;
	atomic_fetch_sub_explicit(&kept, 1, memory_order_relaxed);
}

static bool same(const struct wt_pollwatch *w, const struct pollfd *fds, nfds_t n)
{
	if (w->n != n)
		return false;
	for (nfds_t i = 0; i < n; i++)
		if (w->e[i].fd != fds[i].fd || w->e[i].events != fds[i].events ||
		    (fds[i].fd >= 0 && wt_netpoll_closegen(fds[i].fd) != w->e[i].gen))
			return false;
	return true;
}

int wt_pollwatch_get(struct wt_task *t, const struct pollfd *fds, nfds_t n,
		     int (*make)(const struct pollfd *, nfds_t), bool *own, bool *kept_before)
{
	struct wt_pollwatch *w = t->pollwatch;
	*own = true;
	*kept_before = false;
	if (wt_vfork_child() || (w && w->busy) || n > WATCH_MAX)
		return make(fds, n);
	if (w && w->ep >= 0) {
		if (w->pid == wt_pid && wt_netpoll_closegen(w->ep) == w->epgen && same(w, fds, n)) {
			w->busy = true;
			*own = false;
			*kept_before = true;
			return w->ep;
		}
		forget(w);
	}
	if (atomic_fetch_add_explicit(&kept, 1, memory_order_relaxed) >= KEEP_MAX) {
		atomic_fetch_sub_explicit(&kept, 1, memory_order_relaxed);
		return make(fds, n);
	}
	if (!w) {
		w = wt_mmap_anon(sizeof *w);
		if (!w) {
			atomic_fetch_sub_explicit(&kept, 1, memory_order_relaxed);
			return make(fds, n);
		}
		t->pollwatch = w;
	}
	/* The counts before the registrations: a close after them shows. */
	for (nfds_t i = 0; i < n; i++) {
		w->e[i].fd = fds[i].fd;
		w->e[i].events = fds[i].events;
		w->e[i].gen = fds[i].fd >= 0 ? wt_netpoll_closegen(fds[i].fd) : 0;
	}
	w->n = n;
	int ep = make(fds, n);
	if (ep < 0) {
		atomic_fetch_sub_explicit(&kept, 1, memory_order_relaxed);
		return ep;
	}
	w->ep = ep;
	w->epgen = wt_netpoll_closegen(ep);
	w->pid = wt_pid;
	w->busy = true;
	*own = false;
	return ep;
}

void wt_pollwatch_put(struct wt_task *t, int ep, bool own)
{
	if (own) {
		wt_syscall6(SYS_close, ep, 0, 0, 0, 0, 0);
		wt_fd_set_kind(ep, WT_FD_UNKNOWN);
		return;
	}
	t->pollwatch->busy = false;
}

void wt_pollwatch_drop(struct wt_task *t)
{
	if (t->pollwatch)
		forget(t->pollwatch);
}

void wt_pollwatch_exit(struct wt_task *t)
{
	struct wt_pollwatch *w = t->pollwatch;
	if (!w)
		return;
	forget(w);
	t->pollwatch = NULL;
	wt_syscall6(SYS_munmap, (long)w, sizeof *w, 0, 0, 0, 0);
}
