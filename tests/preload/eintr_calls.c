/*
 * eintr_calls — every interposed call that can wait, interrupted by a
 * handled signal, gives what it gives natively: EINTR, a restart (with
 * SA_RESTART, for the calls signal(7) lists as restarted), or a wait that
 * goes on (pthread_cond_wait, pthread_mutex_lock, pthread_join, sigwait),
 * with the time left (nanosleep's rem, select's timeval, sleep's value)
 * about right.  And a signal that a thread takes while it runs does not
 * end the wait it starts afterwards.
 *
 * Each case runs in its own thread, the parked ones at once, then the
 * running ones: SIGUSR1's handler has SA_RESTART, SIGUSR2's has not.
 * Parked: the thread announces its call, and a driver sends it the signal
 * every 20 ms until the call returns or 300 ms have passed since the
 * first; 50 ms later the driver ends the wait (writes, posts, unlocks...).
 * A timed call waits 3 s, so an interrupted one is told from a timed-out
 * one by its result alone.  Running: the driver sends the thread one
 * signal while it spins (yielding) until the handler has run on it, then makes the call with a 60 ms timeout, or the
 * driver ends it 300 ms later.  Outcomes are coarse classes; a "timeout"
 * must have lasted its whole timeout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"

#define LONG_MS 3000   /* a parked timed call's timeout: never reached */
#define SHORT_MS 60    /* a running case's timeout */
#define END_PARKED 400 /* ms after the call's start the driver ends it */
#define END_RUNNING 300

static __thread volatile sig_atomic_t handled; /* handler runs on this thread */

static void on_sig(int s)
{
	(void)s;
	handled++;
}

static int64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

struct cs;
struct def {
	const char *name;
	void (*setup)(struct cs *);
	void (*call)(struct cs *, int ms);
	void (*end)(struct cs *);
	int untimed_running; /* no running case (a wait only a signal ends) */
};

struct cs {
	const struct def *d;
	int sig;      /* SIGUSR1 (SA_RESTART) or SIGUSR2 */
	int running;  /* the signal comes before the call */
	pthread_t th;
	_Atomic int64_t in_call; /* ms when the call started, 0 before */
	atomic_int spinning, done, ended;
	int64_t last_sent, first_sent, quiet_at; /* [driver] */
	int fd[4];
	sem_t sem, sem2;
	pthread_mutex_t m;
	pthread_cond_t cv;
	int flag;
	pthread_t other;
	int futex;
	pid_t child;
	int ipc;
	char out[160];
};

/* ---- helpers the calls use ---- */

static void enter(struct cs *c)
{
	atomic_store(&c->in_call, now_ms());
}

static const char *ename(int e)
{
	switch (e) {
	case EINTR: return "EINTR";
	case EAGAIN: return "EAGAIN";
	case ETIMEDOUT: return "ETIMEDOUT";
	case 0: return "0";
	default: {
		static __thread char b[16];
		snprintf(b, sizeof b, "errno%d", e);
		return b;
	}
	}
}

/* A call that returns -1/errno, a count, or 0 on timeout. */
static void timed(struct cs *c, long r, int e, int ms)
{
	int64_t took = now_ms() - c->in_call;
	if (r < 0)
		snprintf(c->out, sizeof c->out, "%s", ename(e));
	else if (r == 0)
		snprintf(c->out, sizeof c->out, "timeout%s", took >= ms - 1 ? "" : " SHORT");
	else
		snprintf(c->out, sizeof c->out, "ready %ld", r);
}

/* A call that returns -1/errno or a value the end gives. */
static void plain(struct cs *c, long r, int e)
{
	if (r < 0)
		snprintf(c->out, sizeof c->out, "%s", ename(e));
	else
		snprintf(c->out, sizeof c->out, "ok %ld", r);
}

/* Time left as reported, against the time left by the clock. */
static const char *left_class(struct cs *c, int ms, int64_t left_ms)
{
	int64_t took = now_ms() - c->in_call;
	int64_t want = ms - took;
	if (want < 0)
		want = 0;
	if (left_ms > ms || left_ms < want - 300 || left_ms > want + 300)
		return " left-WRONG";
	return " left-ok";
}

static void ts_ms(struct timespec *ts, int ms)
{
	ts->tv_sec = ms / 1000;
	ts->tv_nsec = (ms % 1000) * 1000000L;
}

static void abs_ms(struct timespec *ts, clockid_t clk, int ms)
{
	clock_gettime(clk, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void setup_pipe(struct cs *c)
{
	if (pipe(c->fd) != 0)
		abort();
}

static void end_write(struct cs *c)
{
	if (write(c->fd[1], "x", 1) != 1)
		abort();
}

static void setup_pair(struct cs *c)
{
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, c->fd) != 0)
		abort();
}

static void setup_timeo(struct cs *c)
{
	setup_pair(c);
	struct timeval tv = { c->running ? 0 : LONG_MS / 1000,
			      c->running ? SHORT_MS * 1000 : 0 };
	setsockopt(c->fd[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

static void setup_ep(struct cs *c)
{
	setup_pipe(c);
	c->fd[2] = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN };
	epoll_ctl(c->fd[2], EPOLL_CTL_ADD, c->fd[0], &ev);
}

static void setup_sem(struct cs *c)
{
	sem_init(&c->sem, 0, 0);
}

static void end_post(struct cs *c)
{
	sem_post(&c->sem);
}

static void end_rtmin(struct cs *c)
{
	pthread_kill(c->th, SIGRTMIN);
}

static void end_sig(struct cs *c)
{
	pthread_kill(c->th, c->sig);
}

/* ---- the poll family: always EINTR ---- */

static void c_poll0(struct cs *c, int ms)
{
	enter(c);
	int r = poll(NULL, 0, ms);
	timed(c, r, errno, ms);
}

static void c_poll_inf(struct cs *c, int ms)
{
	(void)ms;
	enter(c);
	int r = poll(NULL, 0, -1);
	plain(c, r, errno);
}

static void c_poll1(struct cs *c, int ms)
{
	struct pollfd p = { c->fd[0], POLLIN, 0 };
	enter(c);
	int r = poll(&p, 1, ms);
	timed(c, r, errno, ms);
}

static void c_poll2(struct cs *c, int ms)
{
	struct pollfd p[2] = { { c->fd[0], POLLIN, 0 }, { c->fd[0], POLLPRI, 0 } };
	enter(c);
	int r = poll(p, 2, ms);
	timed(c, r, errno, ms);
}

static void c_ppoll0(struct cs *c, int ms)
{
	struct timespec ts;
	ts_ms(&ts, ms);
	enter(c);
	int r = ppoll(NULL, 0, &ts, NULL);
	timed(c, r, errno, ms);
}

static void c_ppoll1m(struct cs *c, int ms)
{
	struct timespec ts;
	sigset_t none;
	sigemptyset(&none);
	ts_ms(&ts, ms);
	struct pollfd p = { c->fd[0], POLLIN, 0 };
	enter(c);
	int r = ppoll(&p, 1, &ts, &none);
	timed(c, r, errno, ms);
}

static void c_select0(struct cs *c, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	enter(c);
	int r = select(0, NULL, NULL, NULL, &tv);
	int e = errno;
	timed(c, r, e, ms);
	strcat(c->out, left_class(c, ms, tv.tv_sec * 1000 + tv.tv_usec / 1000));
}

static void c_select1(struct cs *c, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	fd_set r;
	FD_ZERO(&r);
	FD_SET(c->fd[0], &r);
	enter(c);
	int k = select(c->fd[0] + 1, &r, NULL, NULL, &tv);
	int e = errno;
	timed(c, k, e, ms);
	strcat(c->out, left_class(c, ms, tv.tv_sec * 1000 + tv.tv_usec / 1000));
}

static void c_pselect0(struct cs *c, int ms)
{
	struct timespec ts;
	ts_ms(&ts, ms);
	enter(c);
	int r = pselect(0, NULL, NULL, NULL, &ts, NULL);
	timed(c, r, errno, ms);
}

static void c_pselect1m(struct cs *c, int ms)
{
	struct timespec ts;
	sigset_t none;
	sigemptyset(&none);
	ts_ms(&ts, ms);
	fd_set r;
	FD_ZERO(&r);
	FD_SET(c->fd[0], &r);
	enter(c);
	int k = pselect(c->fd[0] + 1, &r, NULL, NULL, &ts, &none);
	timed(c, k, errno, ms);
}

static void c_epoll(struct cs *c, int ms)
{
	struct epoll_event ev;
	enter(c);
	int r = epoll_wait(c->fd[2], &ev, 1, ms);
	timed(c, r, errno, ms);
}

static void c_epoll_m(struct cs *c, int ms)
{
	struct epoll_event ev;
	sigset_t none;
	sigemptyset(&none);
	enter(c);
	int r = epoll_pwait(c->fd[2], &ev, 1, ms, &none);
	timed(c, r, errno, ms);
}

static void c_epoll2(struct cs *c, int ms)
{
	struct epoll_event ev;
	struct timespec ts;
	ts_ms(&ts, ms);
	enter(c);
	int r = epoll_pwait2(c->fd[2], &ev, 1, &ts, NULL);
	timed(c, r, errno, ms);
}

/* ---- the sleep family: always EINTR, rem the time left ---- */

static void c_nanosleep(struct cs *c, int ms)
{
	struct timespec ts, rem = { -1, -1 };
	ts_ms(&ts, ms);
	enter(c);
	int r = nanosleep(&ts, &rem);
	int e = errno;
	timed(c, r, e, ms);
	if (r < 0)
		strcat(c->out, left_class(c, ms, rem.tv_sec * 1000 + rem.tv_nsec / 1000000));
}

static void c_cns_rel(struct cs *c, int ms)
{
	struct timespec ts, rem = { -1, -1 };
	ts_ms(&ts, ms);
	enter(c);
	int r = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &rem);
	timed(c, r ? -1 : 0, r, ms);
	if (r)
		strcat(c->out, left_class(c, ms, rem.tv_sec * 1000 + rem.tv_nsec / 1000000));
}

static void c_cns_real(struct cs *c, int ms)
{
	struct timespec ts, rem = { -1, -1 };
	ts_ms(&ts, ms);
	enter(c);
	int r = clock_nanosleep(CLOCK_REALTIME, 0, &ts, &rem);
	timed(c, r ? -1 : 0, r, ms);
	if (r)
		strcat(c->out, left_class(c, ms, rem.tv_sec * 1000 + rem.tv_nsec / 1000000));
}

static void c_cns_abs(struct cs *c, int ms)
{
	struct timespec ts, rem = { -1, -1 };
	enter(c);
	abs_ms(&ts, CLOCK_MONOTONIC, ms);
	int r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, &rem);
	timed(c, r ? -1 : 0, r, ms);
	if (rem.tv_sec != -1 || rem.tv_nsec != -1)
		strcat(c->out, " rem-WRITTEN");
}

static void c_usleep(struct cs *c, int ms)
{
	enter(c);
	int r = usleep(ms * 1000);
	timed(c, r, errno, ms);
}

static void c_sleep(struct cs *c, int ms)
{
	unsigned s = ms >= 1000 ? 3 : 1;
	enter(c);
	unsigned r = sleep(s);
	int64_t took = now_ms() - c->in_call;
	snprintf(c->out, sizeof c->out, "sleep(%u)=%u%s", s, r,
		 r == 0 && took < (int64_t)s * 1000 - 1 ? " SHORT" : "");
}

/* ---- waits for signals ---- */

static void c_sigtimedwait(struct cs *c, int ms)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	struct timespec ts;
	ts_ms(&ts, ms);
	enter(c);
	int r = sigtimedwait(&set, NULL, &ts);
	int e = errno;
	if (r < 0 && e == EAGAIN)
		timed(c, 0, 0, ms);
	else
		plain(c, r < 0 ? r : r - SIGRTMIN, e);
}

static void c_sigwaitinfo(struct cs *c, int ms)
{
	(void)ms;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	enter(c);
	int r = sigwaitinfo(&set, NULL);
	plain(c, r < 0 ? r : r - SIGRTMIN, errno);
}

static void c_sigwait(struct cs *c, int ms)
{
	(void)ms;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	int sig = -1;
	enter(c);
	int r = sigwait(&set, &sig);
	snprintf(c->out, sizeof c->out, "%s sig=RTMIN%+d", r ? ename(r) : "ok", sig - SIGRTMIN);
}

static void c_sigsuspend(struct cs *c, int ms)
{
	(void)ms;
	sigset_t none;
	sigemptyset(&none);
	enter(c);
	int r = sigsuspend(&none);
	plain(c, r, errno);
}

static void c_pause(struct cs *c, int ms)
{
	(void)ms;
	enter(c);
	int r = pause();
	plain(c, r, errno);
}

/* ---- descriptors: restarted with SA_RESTART, else EINTR ---- */

static void c_read(struct cs *c, int ms)
{
	(void)ms;
	char b[8];
	enter(c);
	long r = read(c->fd[0], b, sizeof b);
	plain(c, r, errno);
}

/* stdio's read inside libc, which weft does not intercept: the worker
 * blocks in a system call it was not told of. */
static void c_getc(struct cs *c, int ms)
{
	(void)ms;
	FILE *f = fdopen(dup(c->fd[0]), "r");
	if (!f)
		abort();
	enter(c);
	int r = getc(f);
	int e = errno;
	plain(c, r == EOF ? -1 : 1, ferror(f) ? e : 0);
	fclose(f);
}

static void c_readv(struct cs *c, int ms)
{
	(void)ms;
	char b[8];
	struct iovec v = { b, sizeof b };
	enter(c);
	long r = readv(c->fd[0], &v, 1);
	plain(c, r, errno);
}

static void c_recv(struct cs *c, int ms)
{
	(void)ms;
	char b[8];
	enter(c);
	long r = recv(c->fd[0], b, sizeof b, 0);
	plain(c, r, errno);
}

static void end_send(struct cs *c)
{
	if (send(c->fd[1], "x", 1, 0) != 1)
		abort();
}

static void c_recv_timeo(struct cs *c, int ms)
{
	char b[8];
	enter(c);
	long r = recv(c->fd[0], b, sizeof b, 0);
	int e = errno;
	if (r < 0 && e == EAGAIN)
		timed(c, 0, 0, ms);
	else
		plain(c, r, e);
}

static void c_read_timeo(struct cs *c, int ms)
{
	char b[8];
	enter(c);
	long r = read(c->fd[0], b, sizeof b);
	int e = errno;
	if (r < 0 && e == EAGAIN)
		timed(c, 0, 0, ms);
	else
		plain(c, r, e);
}

static void fill(int fd)
{
	static char junk[4096];
	int fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	while (write(fd, junk, sizeof junk) > 0)
		;
	while (write(fd, junk, 1) > 0)
		;
	fcntl(fd, F_SETFL, fl);
}

static void drain(int fd)
{
	static char junk[65536];
	int fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	while (read(fd, junk, sizeof junk) > 0)
		;
	fcntl(fd, F_SETFL, fl);
}

static void setup_fullpipe(struct cs *c)
{
	setup_pipe(c);
	fill(c->fd[1]);
}

static void end_drain(struct cs *c)
{
	drain(c->fd[0]);
}

static void c_write(struct cs *c, int ms)
{
	(void)ms;
	enter(c);
	long r = write(c->fd[1], "y", 1);
	plain(c, r, errno);
}

static void setup_fullpair(struct cs *c)
{
	setup_pair(c);
	int sz = 4096;
	setsockopt(c->fd[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
	fill(c->fd[1]);
}

static void c_send(struct cs *c, int ms)
{
	(void)ms;
	enter(c);
	long r = send(c->fd[1], "y", 1, 0);
	plain(c, r, errno);
}

static void setup_listen(struct cs *c)
{
	c->fd[0] = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (bind(c->fd[0], (struct sockaddr *)&a, sizeof a) || listen(c->fd[0], 4))
		abort();
	c->fd[1] = -1;
}

static void end_connect(struct cs *c)
{
	struct sockaddr_in a;
	socklen_t al = sizeof a;
	getsockname(c->fd[0], (struct sockaddr *)&a, &al);
	c->fd[1] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	connect(c->fd[1], (struct sockaddr *)&a, sizeof a);
}

static void c_accept(struct cs *c, int ms)
{
	(void)ms;
	enter(c);
	int r = accept(c->fd[0], NULL, NULL);
	plain(c, r < 0 ? r : 0, errno);
}

/* A unix listener with a full backlog: connect waits for an accept. */
static void setup_unix_full(struct cs *c)
{
	c->fd[0] = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (bind(c->fd[0], (struct sockaddr *)&a, sizeof(sa_family_t)) || listen(c->fd[0], 0))
		abort();
	for (int i = 0; i < 8; i++) {
		struct sockaddr_un b;
		socklen_t bl = sizeof b;
		getsockname(c->fd[0], (struct sockaddr *)&b, &bl);
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (connect(s, (struct sockaddr *)&b, bl) < 0)
			break;
	}
}

static void end_accept(struct cs *c)
{
	accept(c->fd[0], NULL, NULL);
}

static void c_connect(struct cs *c, int ms)
{
	(void)ms;
	struct sockaddr_un b;
	socklen_t bl = sizeof b;
	getsockname(c->fd[0], (struct sockaddr *)&b, &bl);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	enter(c);
	int r = connect(s, (struct sockaddr *)&b, bl);
	plain(c, r, errno);
}

/* ---- semaphores, condition variables, mutexes, joins, futexes ---- */

static void c_sem_wait(struct cs *c, int ms)
{
	(void)ms;
	enter(c);
	int r = sem_wait(&c->sem);
	plain(c, r, errno);
}

static void c_sem_timedwait(struct cs *c, int ms)
{
	struct timespec ts;
	enter(c);
	abs_ms(&ts, CLOCK_REALTIME, ms);
	int r = sem_timedwait(&c->sem, &ts);
	int e = errno;
	if (r < 0 && e == ETIMEDOUT)
		timed(c, 0, 0, ms);
	else
		plain(c, r, e);
}

static void c_sem_clockwait(struct cs *c, int ms)
{
	struct timespec ts;
	enter(c);
	abs_ms(&ts, CLOCK_MONOTONIC, ms);
	int r = sem_clockwait(&c->sem, CLOCK_MONOTONIC, &ts);
	int e = errno;
	if (r < 0 && e == ETIMEDOUT)
		timed(c, 0, 0, ms);
	else
		plain(c, r, e);
}

static void setup_cond(struct cs *c)
{
	pthread_mutex_init(&c->m, NULL);
	pthread_cond_init(&c->cv, NULL);
}

static void end_cond(struct cs *c)
{
	pthread_mutex_lock(&c->m);
	c->flag = 1;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->m);
}

static void c_cond_wait(struct cs *c, int ms)
{
	(void)ms;
	int r = 0;
	pthread_mutex_lock(&c->m);
	enter(c);
	while (!c->flag && r == 0)
		r = pthread_cond_wait(&c->cv, &c->m);
	pthread_mutex_unlock(&c->m);
	snprintf(c->out, sizeof c->out, "%s flag=%d", r ? ename(r) : "ok", c->flag);
}

static void c_cond_timedwait(struct cs *c, int ms)
{
	int r = 0;
	struct timespec ts;
	pthread_mutex_lock(&c->m);
	enter(c);
	abs_ms(&ts, CLOCK_REALTIME, ms); /* after enter: a timeout's length is measured from it */
	while (!c->flag && r == 0)
		r = pthread_cond_timedwait(&c->cv, &c->m, &ts);
	pthread_mutex_unlock(&c->m);
	if (r == ETIMEDOUT)
		timed(c, 0, 0, ms);
	else
		snprintf(c->out, sizeof c->out, "%s flag=%d", r ? ename(r) : "ok", c->flag);
}

static void *holder(void *arg)
{
	struct cs *c = arg;
	pthread_mutex_lock(&c->m);
	sem_post(&c->sem);
	int r;
	do
		r = sem_wait(&c->sem2);
	while (r < 0);
	pthread_mutex_unlock(&c->m);
	return NULL;
}

static void setup_held(struct cs *c)
{
	pthread_mutex_init(&c->m, NULL);
	sem_init(&c->sem, 0, 0);
	sem_init(&c->sem2, 0, 0);
	pthread_create(&c->other, NULL, holder, c);
	while (sem_wait(&c->sem) < 0)
		;
}

static void end_held(struct cs *c)
{
	sem_post(&c->sem2);
}

static void c_mutex_lock(struct cs *c, int ms)
{
	(void)ms;
	enter(c);
	int r = pthread_mutex_lock(&c->m);
	if (r == 0)
		pthread_mutex_unlock(&c->m);
	snprintf(c->out, sizeof c->out, "%s", r ? ename(r) : "ok");
	pthread_join(c->other, NULL);
}

static void c_mutex_timedlock(struct cs *c, int ms)
{
	struct timespec ts;
	enter(c);
	abs_ms(&ts, CLOCK_REALTIME, ms);
	int r = pthread_mutex_timedlock(&c->m, &ts);
	if (r == 0)
		pthread_mutex_unlock(&c->m);
	if (r == ETIMEDOUT)
		timed(c, 0, 0, ms);
	else
		snprintf(c->out, sizeof c->out, "%s", r ? ename(r) : "ok");
	pthread_join(c->other, NULL);
}

static void *joinee(void *arg)
{
	struct cs *c = arg;
	while (sem_wait(&c->sem2) < 0)
		;
	return (void *)7L;
}

static void setup_join(struct cs *c)
{
	sem_init(&c->sem2, 0, 0);
	pthread_create(&c->other, NULL, joinee, c);
}

static void c_join(struct cs *c, int ms)
{
	(void)ms;
	void *v = NULL;
	enter(c);
	int r = pthread_join(c->other, &v);
	snprintf(c->out, sizeof c->out, "%s %ld", r ? ename(r) : "ok", (long)v);
}

static void end_futex(struct cs *c)
{
	atomic_store((_Atomic int *)&c->futex, 1);
	syscall(SYS_futex, &c->futex, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	syscall(SYS_futex, &c->futex, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* A futex wait as a program writes it: again while the word is 0. */
static void futex_case(struct cs *c, int op, int ms)
{
	struct timespec ts, *tp = NULL;
	if (ms >= 0) {
		ts_ms(&ts, ms);
		tp = &ts;
	}
	enter(c);
	long r = syscall(SYS_futex, &c->futex, op, 0, tp, NULL, 0);
	int e = errno;
	if (r < 0 && e == ETIMEDOUT)
		timed(c, 0, 0, ms);
	else
		snprintf(c->out, sizeof c->out, "%s word=%d", r < 0 ? ename(e) : "ok",
			 atomic_load((_Atomic int *)&c->futex));
}

static void c_futex(struct cs *c, int ms)
{
	(void)ms;
	futex_case(c, FUTEX_WAIT_PRIVATE, -1);
}

static void c_futex_t(struct cs *c, int ms)
{
	futex_case(c, FUTEX_WAIT_PRIVATE, ms);
}

static void c_futex_shared(struct cs *c, int ms)
{
	(void)ms;
	futex_case(c, FUTEX_WAIT, -1);
}

/* ---- children and System V IPC ---- */

static void setup_child(struct cs *c)
{
	c->child = fork();
	if (c->child == 0) {
		alarm(20); /* gone even if the test is killed first */
		for (;;)
			pause();
	}
}

static void end_child(struct cs *c)
{
	kill(c->child, SIGKILL);
}

static void c_waitpid(struct cs *c, int ms)
{
	(void)ms;
	int st;
	enter(c);
	pid_t r = waitpid(c->child, &st, 0);
	int e = errno;
	plain(c, r < 0 ? r : (r == c->child), e);
	if (r < 0) {
		kill(c->child, SIGKILL);
		waitpid(c->child, &st, 0);
	}
}

static void setup_msg(struct cs *c)
{
	c->ipc = msgget(IPC_PRIVATE, 0600);
}

static void end_msg(struct cs *c)
{
	struct {
		long type;
		char b[1];
	} m = { 1, { 'x' } };
	msgsnd(c->ipc, &m, 1, 0);
}

static void c_msgrcv(struct cs *c, int ms)
{
	(void)ms;
	struct {
		long type;
		char b[8];
	} m;
	enter(c);
	long r = msgrcv(c->ipc, &m, sizeof m.b, 0, 0);
	plain(c, r, errno);
	msgctl(c->ipc, IPC_RMID, NULL);
}

static void setup_semop(struct cs *c)
{
	c->ipc = semget(IPC_PRIVATE, 1, 0600);
}

static void end_semop(struct cs *c)
{
	struct sembuf op = { 0, 1, 0 };
	semop(c->ipc, &op, 1);
}

static void c_semop(struct cs *c, int ms)
{
	(void)ms;
	struct sembuf op = { 0, -1, 0 };
	enter(c);
	int r = semop(c->ipc, &op, 1);
	plain(c, r, errno);
	semctl(c->ipc, 0, IPC_RMID);
}

static const struct def defs[] = {
	{ "poll(NULL,0,t)", NULL, c_poll0, NULL, 0 },
	{ "poll(NULL,0,-1)", NULL, c_poll_inf, end_sig, 0 },
	{ "poll(1 fd)", setup_pipe, c_poll1, NULL, 0 },
	{ "poll(2 fds)", setup_pipe, c_poll2, NULL, 0 },
	{ "ppoll(NULL,0,t)", NULL, c_ppoll0, NULL, 0 },
	{ "ppoll(1 fd, mask)", setup_pipe, c_ppoll1m, NULL, 0 },
	{ "select(0,t)", NULL, c_select0, NULL, 0 },
	{ "select(1 fd)", setup_pipe, c_select1, NULL, 0 },
	{ "pselect(0,t)", NULL, c_pselect0, NULL, 0 },
	{ "pselect(1 fd, mask)", setup_pipe, c_pselect1m, NULL, 0 },
	{ "epoll_wait", setup_ep, c_epoll, NULL, 0 },
	{ "epoll_pwait(mask)", setup_ep, c_epoll_m, NULL, 0 },
	{ "epoll_pwait2", setup_ep, c_epoll2, NULL, 0 },
	{ "nanosleep", NULL, c_nanosleep, NULL, 0 },
	{ "clock_nanosleep(mono)", NULL, c_cns_rel, NULL, 0 },
	{ "clock_nanosleep(real)", NULL, c_cns_real, NULL, 0 },
	{ "clock_nanosleep(abs)", NULL, c_cns_abs, NULL, 0 },
	{ "usleep", NULL, c_usleep, NULL, 0 },
	{ "sleep", NULL, c_sleep, NULL, 0 },
	{ "sigtimedwait", NULL, c_sigtimedwait, NULL, 0 },
	{ "sigwaitinfo", NULL, c_sigwaitinfo, end_rtmin, 0 },
	{ "sigwait", NULL, c_sigwait, end_rtmin, 0 },
	{ "sigsuspend", NULL, c_sigsuspend, end_rtmin, 0 },
	{ "pause", NULL, c_pause, end_sig, 0 },
	{ "read(pipe)", setup_pipe, c_read, end_write, 0 },
	{ "readv(pipe)", setup_pipe, c_readv, end_write, 0 },
	{ "getc(pipe, stdio)", setup_pipe, c_getc, end_write, 0 },
	{ "recv", setup_pair, c_recv, end_send, 0 },
	{ "read(socket)", setup_pair, c_read, end_send, 0 },
	{ "recv(SO_RCVTIMEO)", setup_timeo, c_recv_timeo, NULL, 0 },
	{ "read(SO_RCVTIMEO)", setup_timeo, c_read_timeo, NULL, 0 },
	{ "write(full pipe)", setup_fullpipe, c_write, end_drain, 0 },
	{ "send(full socket)", setup_fullpair, c_send, end_drain, 0 },
	{ "accept", setup_listen, c_accept, end_connect, 0 },
	{ "connect(unix)", setup_unix_full, c_connect, end_accept, 0 },
	{ "sem_wait", setup_sem, c_sem_wait, end_post, 0 },
	{ "sem_timedwait", setup_sem, c_sem_timedwait, NULL, 0 },
	{ "sem_clockwait", setup_sem, c_sem_clockwait, NULL, 0 },
	{ "pthread_cond_wait", setup_cond, c_cond_wait, end_cond, 0 },
	{ "pthread_cond_timedwait", setup_cond, c_cond_timedwait, end_cond, 0 },
	{ "pthread_mutex_lock", setup_held, c_mutex_lock, end_held, 0 },
	{ "pthread_mutex_timedlock", setup_held, c_mutex_timedlock, end_held, 0 },
	{ "pthread_join", setup_join, c_join, end_held, 0 },
	{ "futex(private)", NULL, c_futex, end_futex, 0 },
	{ "futex(private, timeout)", NULL, c_futex_t, NULL, 0 },
	{ "futex(shared)", NULL, c_futex_shared, end_futex, 0 },
	{ "waitpid", setup_child, c_waitpid, end_child, 0 },
	{ "msgrcv", setup_msg, c_msgrcv, end_msg, 0 },
	{ "semop", setup_semop, c_semop, end_semop, 0 },
};
#define NDEFS (sizeof defs / sizeof defs[0])
#define NCASES (NDEFS * 4)

static struct cs cases[NCASES];

static void *runner(void *arg)
{
	struct cs *c = arg;
	if (c->running) {
		atomic_store(&c->spinning, 1);
		int64_t give_up = now_ms() + 5000;
		while (!handled && now_ms() < give_up)
			sched_yield(); /* the driver runs, even on one CPU */
		if (!handled) {
			snprintf(c->out, sizeof c->out, "handler never ran");
			atomic_store(&c->done, 1);
			return NULL;
		}
	}
	c->d->call(c, c->running ? SHORT_MS : LONG_MS);
	if (!handled)
		strcat(c->out, " (no handler)");
	atomic_store(&c->done, 1);
	return NULL;
}

/* Runs the parked (0) or running (1) cases at once, signalling and ending
 * their waits, until all have returned (or 10 s have passed: a hang). */
static void drive(int running)
{
	for (size_t i = 0; i < NCASES; i++)
		if (!cases[i].done && cases[i].running == running &&
		    pthread_create(&cases[i].th, NULL, runner, &cases[i]) != 0)
			abort();
	int64_t give_up = now_ms() + 10000;
	for (;;) {
		int left = 0;
		int64_t now = now_ms();
		for (size_t i = 0; i < NCASES; i++) {
			struct cs *c = &cases[i];
			if (c->running != running || atomic_load(&c->done))
				continue;
			left++;
			int64_t in = atomic_load(&c->in_call);
			int send;
			/* Running: one signal, before the call.  A second one,
			 * sent while a loaded machine had not yet run the first
			 * one's handler, would land in the call itself. */
			if (c->running)
				send = atomic_load(&c->spinning) && !in && !c->last_sent;
			else
				send = in && !c->quiet_at;
			if (send && now - c->last_sent >= 20) {
				pthread_kill(c->th, c->sig);
				c->last_sent = now;
				if (in && !c->first_sent)
					c->first_sent = now;
			}
			/* Parked: signals stop 300 ms after the first one that
			 * came during the call, and the wait ends 50 ms later,
			 * once the last handler has run. */
			if (!c->running && in && now >= in + END_PARKED && !c->quiet_at &&
			    c->first_sent && now >= c->first_sent + 300)
				c->quiet_at = now;
			int end_at = c->running ? in + END_RUNNING : c->quiet_at + 50;
			if (in && (c->running || c->quiet_at) && now >= end_at && !c->ended && c->d->end) {
				c->ended = 1;
				c->d->end(c);
			}
		}
		if (!left || now > give_up)
			return;
		usleep(5000);
	}
}

int main(void)
{
	weft_check_loaded();
	struct sigaction sa = { 0 };
	sa.sa_handler = on_sig;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_flags = 0;
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGRTMIN, &sa, NULL);
	sigset_t rt;
	sigemptyset(&rt);
	sigaddset(&rt, SIGRTMIN);
	pthread_sigmask(SIG_BLOCK, &rt, NULL);

	for (size_t i = 0; i < NCASES; i++) {
		struct cs *c = &cases[i];
		c->d = &defs[i / 4];
		c->sig = i & 1 ? SIGUSR2 : SIGUSR1;
		c->running = (i & 2) != 0;
		/* ONLY=text runs the cases whose name has it (debugging). */
		if (getenv("ONLY") && !strstr(c->d->name, getenv("ONLY"))) {
			c->done = 1;
			continue;
		}
		if (c->d->setup)
			c->d->setup(c);
	}
	for (int phase = 0; phase < 2; phase++)
		drive(phase);
	for (size_t i = 0; i < NCASES; i++) {
		struct cs *c = &cases[i];
		printf("%-24s %-7s %-7s %s\n", c->d->name, c->sig == SIGUSR1 ? "RESTART" : "plain",
		       c->running ? "running" : "parked", c->done ? c->out : "HANG");
	}
	fflush(stdout);
	_exit(0);
}
