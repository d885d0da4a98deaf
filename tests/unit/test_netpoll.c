/*
 * test_netpoll.c — waiting on descriptors (sched/io/netpoll.c) with real pipes
 * and socketpairs and the real epoll instance.
 *
 * A "task" waiter is a thread with wt_cur_tls set to a fake task: its park
 * blocks in the stub wt_park_commit until something readies it, so a test
 * sees exactly which tasks an epoll_wait collected (wt_netpoll's list)
 * before handing them to wt_inject (stub: readies them).  A "thread" waiter
 * (wt_cur NULL) sleeps on its own futex word and is woken by the unpark.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "stubs.h"

static void setup(void)
{
	stub_reset(2);
}

TestSuite(netpoll, .init = setup, .timeout = 20);

struct waiter {
	int fd, mode;
	uint32_t seq;
	int64_t deadline;
	struct wt_task *task;     /* NULL: an OS-thread waiter */
	int result;
	_Atomic int done;
	pthread_t th;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	wt_cur_tls = w->task;
	w->result = wt_netpoll_wait(w->fd, w->mode, w->seq, &w->deadline);
	atomic_store(&w->done, 1);
	return NULL;
}

/* Starts a waiter on fd for mode, with the counter read now. */
static void start(struct waiter *w, struct wt_task *t, int fd, int mode)
{
	memset(w, 0, sizeof *w);
	w->fd = fd;
	w->mode = mode;
	w->task = t;
	w->seq = wt_netpoll_seq(fd, mode);
	w->deadline = -2;
	w->result = 1;
	cr_assert_eq(pthread_create(&w->th, NULL, waiter_main, w), 0);
}

static int finish(struct waiter *w)
{
	pthread_join(w->th, NULL);
	cr_assert(atomic_load(&w->done));
	return w->result;
}

static bool c_commits(void *n) { return atomic_load(&stub_commits) >= *(int *)n; }
static bool c_waiters(void *n) { return atomic_load(&wt_netpoll_waiters) >= *(long *)n; }

/* Until n task waiters have switched out (queued on their counters). */
static void wait_parked(int n)
{
	cr_assert(stub_wait_until(c_commits, &n), "only %d of %d tasks parked",
		  atomic_load(&stub_commits), n);
}

/* Until n waiters are inside wt_netpoll_wait, past its closegen read. */
static void wait_waiters(long n)
{
	cr_assert(stub_wait_until(c_waiters, &n), "only %ld of %ld waiters",
		  atomic_load(&wt_netpoll_waiters), n);
}

/* Polls (zero timeout) until the epoll instance reports something. */
static struct wt_task *poll_some(void)
{
	for (int i = 0; i < 100000; i++) {
		struct wt_task *l = wt_netpoll(0);
		if (l)
			return l;
		sched_yield();
	}
	return NULL;
}

static int list_len(struct wt_task *l)
{
	int n = 0;
	for (; l; l = l->schedlink)
		n++;
	return n;
}

static void task_init(struct wt_task *t, uint64_t id)
{
	stub_task_init(t, id);
}

Test(netpoll, register_pollable_and_refused)
{
	cr_assert_eq(wt_netpoll_fd(), -1, "no epoll instance before the first use");
	int p[2];
	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(wt_fd_kind(p[0]), WT_FD_UNKNOWN);
	cr_assert_eq(wt_netpoll_register(p[0]), 0);
	cr_assert_eq(wt_fd_kind(p[0]), WT_FD_POLLABLE);
	cr_assert_eq(wt_netpoll_register(p[0]), 0, "registered again: EEXIST is fine");
	cr_assert_geq(wt_netpoll_fd(), 100, "the epoll fd is kept out of the low numbers");
	char path[] = "/tmp/weft-unit-XXXXXX";
	int f = mkstemp(path);
	cr_assert_geq(f, 0);
	unlink(path);
	cr_assert_eq(wt_netpoll_register(f), -EPERM, "epoll refuses a regular file");
	cr_assert_eq(wt_fd_kind(f), WT_FD_FILE);
	int64_t dl = -2;
	cr_assert_eq(wt_netpoll_wait(f, WT_IO_READ, wt_netpoll_seq(f, WT_IO_READ), &dl), -EPERM,
		     "a FILE gets the blocking call");
	cr_assert_eq(wt_netpoll_register(-1), -EPERM);
	cr_assert_eq(wt_fd_kind(-1), WT_FD_UNKNOWN);
	wt_fd_set_kind(p[1], WT_FD_FILE);
	cr_assert_eq(wt_fd_kind(p[1]), WT_FD_FILE);
	wt_fd_set_kind(p[1], WT_FD_UNKNOWN);
	cr_assert_eq(wt_fd_kind(p[1]), WT_FD_UNKNOWN);
}

Test(netpoll, readable_edge_wakes_the_parked_task)
{
	int p[2];
	cr_assert_eq(pipe(p), 0);
	static struct wt_task t;
	task_init(&t, 2);
	struct waiter w;
	uint32_t wseq = wt_netpoll_seq(p[0], WT_IO_WRITE);
	start(&w, &t, p[0], WT_IO_READ);
	wait_parked(1);
	cr_assert_eq(atomic_load(&wt_netpoll_waiters), 1);
	cr_assert_str_eq(t.wait_reason, "IO wait (read)");
	cr_assert_eq(wt_fd_kind(p[0]), WT_FD_POLLABLE, "registered by the wait");
	cr_assert_null(wt_netpoll(0), "nothing to read yet");
	cr_assert_eq(atomic_load(&t.state), WT_WAITING);
	cr_assert_eq(write(p[1], "x", 1), 1);
	struct wt_task *l = poll_some();
	cr_assert_eq(l, &t, "the epoll_wait collects the waiting task");
	cr_assert_null(t.schedlink);
	cr_assert_eq(atomic_load(&t.state), WT_WAITING, "collected, not yet readied");
	cr_assert_eq(stub_ready_count(), 0);
	wt_inject(l, NULL);
	cr_assert_eq(finish(&w), 0, "try the read again");
	cr_assert_null(t.wait_reason);
	cr_assert_eq(atomic_load(&wt_netpoll_waiters), 0);
	cr_assert_eq(wt_netpoll_seq(p[0], WT_IO_READ), w.seq + 1);
	cr_assert_eq(wt_netpoll_seq(p[0], WT_IO_WRITE), wseq, "a read edge is not a write edge");
	cr_assert_eq(w.deadline, -1, "a pipe has no socket timeout");
	cr_assert_eq(stub_ready_count(), 1);
	cr_assert_eq(stub_ready_get(0).t, &t);
}

Test(netpoll, each_direction_wakes_its_own_waiters)
{
	int s[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, s), 0);
	/* Fill s[0]'s way out, so it is neither readable nor writable. */
	char buf[4096];
	memset(buf, 'y', sizeof buf);
	long sent = 0;
	while (send(s[0], buf, sizeof buf, MSG_DONTWAIT) > 0)
		sent += sizeof buf;
	cr_assert_eq(errno, EAGAIN);
	static struct wt_task tr, tw;
	task_init(&tr, 2);
	task_init(&tw, 3);
	struct waiter wr, ww;
	start(&wr, &tr, s[0], WT_IO_READ);
	wait_parked(1);
	start(&ww, &tw, s[0], WT_IO_WRITE);
	wait_parked(2);
	cr_assert_null(wt_netpoll(0));
	/* Drain the peer: s[0] becomes writable; only the writer wakes. */
	long got = 0;
	ssize_t n;
	while (got < sent && (n = recv(s[1], buf, sizeof buf, MSG_DONTWAIT)) > 0)
		got += n;
	cr_assert_eq(got, sent);
	struct wt_task *l = poll_some();
	cr_assert_eq(l, &tw);
	cr_assert_eq(list_len(l), 1);
	wt_inject(l, NULL);
	cr_assert_eq(finish(&ww), 0);
	cr_assert_str_eq(tr.wait_reason, "IO wait (read)", "the reader still waits");
	cr_assert_eq(atomic_load(&tr.state), WT_WAITING);
	/* Data from the peer: now the reader. */
	cr_assert_eq(send(s[1], "z", 1, 0), 1);
	l = poll_some();
	cr_assert_eq(l, &tr);
	cr_assert_eq(list_len(l), 1);
	wt_inject(l, NULL);
	cr_assert_eq(finish(&wr), 0);
}

Test(netpoll, one_edge_wakes_every_waiter_on_the_counter)
{
	int p[2];
	cr_assert_eq(pipe(p), 0);
	enum { K = 4 };
	static struct wt_task t[K];
	struct waiter w[K];
	for (int i = 0; i < K; i++) {
		task_init(&t[i], (uint64_t)i + 2);
		start(&w[i], &t[i], p[0], WT_IO_READ);
		wait_parked(i + 1);
	}
	cr_assert_eq(write(p[1], "x", 1), 1);
	struct wt_task *l = poll_some();
	cr_assert_eq(list_len(l), K);
	/* In the order they queued (FIFO bucket). */
	struct wt_task *u = l;
	for (int i = 0; i < K; i++, u = u->schedlink)
		cr_assert_eq(u, &t[i], "list[%d]", i);
	wt_inject(l, NULL);
	for (int i = 0; i < K; i++)
		cr_assert_eq(finish(&w[i]), 0);
}

Test(netpoll, an_edge_before_the_wait_is_not_lost)
{
	int p[2];
	cr_assert_eq(pipe(p), 0);
	/* Registered, counter read, then the edge is polled before the wait:
	 * the wait sees the counter moved and returns at once (a lost
	 * wake-up would block this thread for good: the test times out). */
	cr_assert_eq(wt_netpoll_register(p[0]), 0);
	uint32_t s = wt_netpoll_seq(p[0], WT_IO_READ);
	cr_assert_eq(write(p[1], "x", 1), 1);
	cr_assert_null(poll_some(), "no waiter to collect");
	cr_assert_eq(wt_netpoll_seq(p[0], WT_IO_READ), s + 1);
	int64_t dl = -2;
	cr_assert_eq(wt_netpoll_wait(p[0], WT_IO_READ, s, &dl), 0);
	cr_assert_eq(atomic_load(&wt_netpoll_waiters), 0);
}

Test(netpoll, registering_a_ready_fd_late_loses_nothing)
{
	int p[2];
	cr_assert_eq(pipe(p), 0);
	/* The data arrives before weft ever saw the fd: the EPOLL_CTL_ADD
	 * inside the wait reports it at once. */
	cr_assert_eq(write(p[1], "x", 1), 1);
	static struct wt_task t;
	task_init(&t, 2);
	struct waiter w;
	start(&w, &t, p[0], WT_IO_READ);
	wait_parked(1);
	struct wt_task *l = poll_some();
	cr_assert_eq(l, &t);
	wt_inject(l, NULL);
	cr_assert_eq(finish(&w), 0);
}

Test(netpoll, close_fails_waiters_and_forgets_the_number)
{
	int p[2];
	cr_assert_eq(pipe(p), 0);
	int fd = p[0];
	/* An OS-thread waiter and a task waiter on the same number. */
	static struct wt_task t;
	task_init(&t, 2);
	struct waiter wt, wth;
	start(&wt, &t, fd, WT_IO_READ);
	wait_parked(1);
	start(&wth, NULL, fd, WT_IO_READ);
	wait_waiters(2);
	wt_netpoll_close(fd);
	cr_assert_eq(finish(&wth), -EBADF);
	cr_assert_eq(finish(&wt), -EBADF);
	cr_assert_eq(stub_ready_count(), 1, "the task is readied by the close itself");
	cr_assert_eq(stub_ready_get(0).t, &t);
	cr_assert_eq(wt_fd_kind(fd), WT_FD_UNKNOWN);
	/* The number comes back as another file: weft registers that one (a
	 * registration kept from the old file would never report it). */
	close(p[0]);
	close(p[1]);
	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(p[0], fd, "the kernel reuses the lowest number");
	cr_assert_eq(wt_fd_kind(fd), WT_FD_UNKNOWN);
	struct waiter w2;
	task_init(&t, 2);
	start(&w2, &t, fd, WT_IO_READ);
	wait_parked(2);
	cr_assert_eq(wt_fd_kind(fd), WT_FD_POLLABLE);
	cr_assert_eq(write(p[1], "x", 1), 1);
	struct wt_task *l = poll_some();
	cr_assert_eq(l, &t, "the new file's edge is seen");
	wt_inject(l, NULL);
	cr_assert_eq(finish(&w2), 0);
}

Test(netpoll, nonblocking_descriptor_gets_eagain_until_flags_change)
{
	int p[2];
	cr_assert_eq(pipe2(p, O_NONBLOCK), 0);
	int64_t dl = -2;
	uint32_t s = wt_netpoll_seq(p[0], WT_IO_READ);
	cr_assert_eq(wt_netpoll_wait(p[0], WT_IO_READ, s, &dl), -EAGAIN);
	cr_assert_eq(wt_fd_kind(p[0]), WT_FD_POLLABLE);
	/* O_NONBLOCK cleared behind weft's back: the cached flag still says
	 * non-blocking... */
	cr_assert_eq(fcntl(p[0], F_SETFL, 0), 0);
	cr_assert_eq(wt_netpoll_wait(p[0], WT_IO_READ, s, &dl), -EAGAIN);
	/* ...until the program's fcntl is reported: then the wait parks. */
	wt_fd_flags_changed(p[0]);
	static struct wt_task t;
	task_init(&t, 2);
	struct waiter w;
	start(&w, &t, p[0], WT_IO_READ);
	wait_parked(1);
	cr_assert_eq(write(p[1], "x", 1), 1);
	struct wt_task *l = poll_some();
	cr_assert_eq(l, &t);
	wt_inject(l, NULL);
	cr_assert_eq(finish(&w), 0);
	/* A non-blocking regular file: epoll refuses it, the call blocks. */
	char path[] = "/tmp/weft-unit-XXXXXX";
	int f = mkstemp(path);
	cr_assert_geq(f, 0);
	unlink(path);
	cr_assert_eq(fcntl(f, F_SETFL, O_NONBLOCK), 0);
	cr_assert_eq(wt_netpoll_wait(f, WT_IO_READ, 0, &dl), -EPERM);
	cr_assert_eq(wt_fd_kind(f), WT_FD_FILE);
	cr_assert_eq(wt_netpoll_wait(-1, WT_IO_READ, 0, &dl), -EPERM);
}

Test(netpoll, close_range_forgets_what_it_covers)
{
	int a[2], b[2], c[2];
	cr_assert_eq(pipe(a), 0);
	cr_assert_eq(pipe2(b, O_NONBLOCK), 0);
	cr_assert_eq(pipe(c), 0);
	cr_assert(a[0] < b[0] && b[0] < c[0]);
	cr_assert_eq(wt_netpoll_register(a[0]), 0);
	cr_assert_eq(wt_netpoll_register(c[0]), 0);
	int64_t dl = -2;
	cr_assert_eq(wt_netpoll_wait(b[0], WT_IO_READ, wt_netpoll_seq(b[0], WT_IO_READ), &dl),
		     -EAGAIN);
	cr_assert_eq(fcntl(b[0], F_SETFL, 0), 0); /* not reported: cached */
	struct waiter w;
	start(&w, NULL, a[0], WT_IO_READ);
	wait_waiters(1);
	int ep = wt_netpoll_fd();
	cr_assert_geq(ep, 0);
	wt_fd_set_kind(ep, WT_FD_FILE); /* something known about the epoll fd */
	/* [a[0], b[1]]: a and b forgotten, c kept, the epoll fd never. */
	wt_netpoll_close_range((unsigned)a[0], (unsigned)b[1]);
	cr_assert_eq(finish(&w), -EBADF);
	cr_assert_eq(wt_fd_kind(a[0]), WT_FD_UNKNOWN);
	cr_assert_eq(wt_fd_kind(b[0]), WT_FD_UNKNOWN);
	cr_assert_eq(wt_fd_kind(c[0]), WT_FD_POLLABLE);
	cr_assert_eq(wt_fd_kind(ep), WT_FD_FILE);
	/* b's cached O_NONBLOCK went too: a wait on it now parks. */
	static struct wt_task t;
	task_init(&t, 2);
	struct waiter wb;
	start(&wb, &t, b[0], WT_IO_READ);
	wait_parked(1);
	cr_assert_eq(write(b[1], "x", 1), 1);
	struct wt_task *l = poll_some();
	cr_assert_eq(l, &t);
	wt_inject(l, NULL);
	cr_assert_eq(finish(&wb), 0);
	/* Everything, the epoll fd included in the range. */
	wt_netpoll_close_range(0, ~0u);
	cr_assert_eq(wt_fd_kind(c[0]), WT_FD_UNKNOWN);
	cr_assert_eq(wt_fd_kind(b[0]), WT_FD_UNKNOWN);
	cr_assert_eq(wt_fd_kind(ep), WT_FD_FILE, "weft's own epoll fd is not the program's");
}

Test(netpoll, socket_timeouts_become_the_deadline)
{
	int s[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, s), 0);
	struct timeval tv = { 0, 30000 };
	cr_assert_eq(setsockopt(s[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv), 0);
	int64_t dl = -2, t0 = wt_nanotime();
	uint32_t q = wt_netpoll_seq(s[0], WT_IO_READ);
	cr_assert_eq(wt_netpoll_wait(s[0], WT_IO_READ, q, &dl), -ETIMEDOUT);
	cr_assert_geq(dl, t0 + 30000000, "SO_RCVTIMEO read once into the deadline");
	cr_assert_leq(dl, wt_nanotime());
	cr_assert_eq(atomic_load(&wt_netpoll_waiters), 0);
	/* An explicit deadline is used as is (no lookup). */
	int64_t past = wt_nanotime() - 1;
	dl = past;
	cr_assert_eq(wt_netpoll_wait(s[0], WT_IO_READ, q, &dl), -ETIMEDOUT);
	cr_assert_eq(dl, past);
	/* Writing uses SO_SNDTIMEO, unset here: no deadline, parks until
	 * the edge. */
	static struct wt_task t;
	task_init(&t, 2);
	struct waiter w;
	char buf[4096] = { 0 };
	while (send(s[0], buf, sizeof buf, MSG_DONTWAIT) > 0)
		;
	start(&w, &t, s[0], WT_IO_WRITE);
	wait_parked(1);
	cr_assert_eq(w.deadline, -1);
	while (recv(s[1], buf, sizeof buf, MSG_DONTWAIT) > 0)
		;
	struct wt_task *l = poll_some();
	cr_assert_eq(l, &t);
	wt_inject(l, NULL);
	cr_assert_eq(finish(&w), 0);
}

static struct wt_m bm;
static _Atomic int bdone;
static bool bres;

static void *blocker_main(void *arg)
{
	bres = wt_netpoll_block(&bm);
	atomic_store(&bdone, 1);
	return NULL;
}

Test(netpoll, last_idle_worker_sleeps_in_epoll_and_takes_an_idle_proc)
{
	cr_assert_not(wt_netpoll_block(&bm), "no waiters: sleep as usual");
	int p[2];
	cr_assert_eq(pipe(p), 0);
	static struct wt_task t;
	task_init(&t, 2);
	struct waiter w;
	start(&w, &t, p[0], WT_IO_READ);
	wait_parked(1);
	stub_pidle = &stub_procs[1];
	pthread_t b;
	cr_assert_eq(pthread_create(&b, NULL, blocker_main, NULL), 0);
	cr_assert_eq(write(p[1], "x", 1), 1);
	pthread_join(b, NULL);
	cr_assert(bres, "woke holding a proc");
	cr_assert_eq(bm.p, &stub_procs[1]);
	cr_assert_eq(stub_procs[1].m, &bm);
	cr_assert_eq(atomic_load(&stub_injects), 1);
	cr_assert_eq(stub_inject_p, &stub_procs[1], "the woken task queued on that proc");
	cr_assert_eq(finish(&w), 0);
	/* No idle proc: the woken tasks go to the global queue, and the
	 * worker sleeps as usual. */
	bm.p = NULL;
	task_init(&t, 2);
	start(&w, &t, p[0], WT_IO_READ);
	wait_parked(2);
	cr_assert_eq(pthread_create(&b, NULL, blocker_main, NULL), 0);
	cr_assert_eq(write(p[1], "x", 1), 1);
	pthread_join(b, NULL);
	cr_assert_not(bres);
	cr_assert_null(bm.p);
	cr_assert_eq(atomic_load(&stub_injects), 2);
	cr_assert_null(stub_inject_p);
	cr_assert_eq(finish(&w), 0);
}

Test(netpoll, sysmon_polls_when_no_worker_did_for_a_millisecond)
{
	int p[2];
	cr_assert_eq(pipe(p), 0);
	static struct wt_task t;
	task_init(&t, 2);
	struct waiter w;
	start(&w, &t, p[0], WT_IO_READ);
	wait_parked(1);
	int64_t before = wt_nanotime();
	cr_assert_null(wt_netpoll(0));
	cr_assert_eq(write(p[1], "x", 1), 1);
	/* A poll less than 1 ms ago (by sysmon's clock): sysmon leaves it. */
	wt_netpoll_sysmon(before);
	cr_assert_eq(atomic_load(&stub_injects), 0);
	cr_assert_eq(atomic_load(&t.state), WT_WAITING);
	/* Long after: sysmon polls, and the woken go to the global queue. */
	for (int i = 0; i < 100000 && !atomic_load(&stub_injects); i++) {
		wt_netpoll_sysmon(wt_nanotime() + 1000000000ll);
		sched_yield();
	}
	cr_assert_eq(atomic_load(&stub_injects), 1);
	cr_assert_null(stub_inject_p);
	cr_assert_eq(finish(&w), 0);
}
