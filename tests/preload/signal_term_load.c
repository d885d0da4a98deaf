/*
 * SIGTERM stops a loaded server, as a daemon's shutdown does.  Every
 * thread blocks SIGTERM but the one meant to take it; load threads keep
 * busy meanwhile: pairs ping-ponging bytes over socketpairs, one side in
 * poll, the other in epoll_wait, and pairs ping-ponging a condition
 * variable.  The signal comes from outside weft's view (the kill system
 * call made directly, as another process sends it), while the load runs.
 *   sigwait:         a thread waits in sigwait for SIGTERM (no handler);
 *   sigwait+handler: the same, with a handler installed for SIGTERM (an
 *                    idle worker takes handled signals: it must pass this
 *                    one on to the waiting thread);
 *   poll+flag:       a thread with SIGTERM unblocked waits in poll on a
 *                    pipe nobody writes; the handler sets a flag the loop
 *                    checks once poll fails with EINTR.
 * Each mode twice: with the signal sent under load, and after the load has
 * gone quiet (its threads parked, every worker maybe idle: natively the
 * kernel still gives the signal to the one thread that takes it).  In
 * every round the taker returns, the load stops, and everything is
 * joined.  A watchdog thread ends a run still going after 60 s.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "test_util.h"
#include "signal_util.h"
#include "weft_check.h"

#define PAIRS 2
#define LOAD 20000

static atomic_int stop, paused, after;
static atomic_long exchanges;
static volatile sig_atomic_t flag;
static int mode;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long turn;

static void on_term(int sig)
{
	(void)sig;
	flag = 1;
}

/* While the load is paused, or once it has done LOAD exchanges (so that
 * its pairs, which hand one worker back and forth, leave the sender's timer
 * its turn at GOMAXPROCS=1): wait until it stops. */
static void quiet(void)
{
	if (!atomic_load(&paused) && atomic_fetch_add(&exchanges, 1) < LOAD)
		return;
	pthread_mutex_lock(&mu);
	while (!atomic_load(&stop))
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

/* One end of a socketpair: poll (side 0) or epoll_wait (side 1) until a
 * byte comes, send one back; a zero byte ends it. */
static void *pinger(void *arg)
{
	int fd = (int)(long)arg >> 1, side = (int)(long)arg & 1;
	int ep = -1;
	if (side) {
		ep = epoll_create1(0);
		struct epoll_event ev = { .events = EPOLLIN };
		epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	} else if (write(fd, "x", 1) != 1) {
		return NULL;
	}
	for (;;) {
		if (side) {
			struct epoll_event ev;
			if (epoll_wait(ep, &ev, 1, -1) < 0)
				continue;
		} else {
			struct pollfd p = { fd, POLLIN, 0 };
			if (poll(&p, 1, -1) < 0)
				continue;
		}
		char c;
		if (read(fd, &c, 1) != 1 || c == 0)
			break;
		quiet();
		c = atomic_load(&stop) ? 0 : 'x';
		if (write(fd, &c, 1) != 1 || c == 0)
			break;
	}
	if (ep >= 0)
		close(ep);
	return NULL;
}

static void *condpong(void *arg)
{
	long me = (long)arg;
	pthread_mutex_lock(&mu);
	while (!atomic_load(&stop)) {
		while (((turn & 1) != me || atomic_load(&paused) ||
			atomic_load(&exchanges) >= LOAD) && !atomic_load(&stop))
			pthread_cond_wait(&cv, &mu);
		atomic_fetch_add(&exchanges, 1);
		turn++;
		pthread_cond_broadcast(&cv);
	}
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void *taker(void *arg)
{
	(void)arg;
	sigset_t term;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	if (mode < 2) {
		int sig = 0;
		sigwait(&term, &sig);
		return (void *)(long)(sig == SIGTERM);
	}
	int p[2];
	if (pipe(p) < 0)
		return NULL;
	pthread_sigmask(SIG_UNBLOCK, &term, NULL);
	while (!flag) {
		struct pollfd pf = { p[0], POLLIN, 0 };
		poll(&pf, 1, -1);
	}
	close(p[0]);
	close(p[1]);
	return (void *)1l;
}

static void *sender(void *arg)
{
	(void)arg;
	usleep(50000);
	if (after) {
		/* The load goes quiet first: every worker may be idle. */
		atomic_store(&paused, 1);
		usleep(50000);
	}
	syscall(SYS_kill, getpid(), SIGTERM); /* not weft's kill: as from outside */
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	static const char *names[] = { "sigwait", "sigwait+handler", "poll+flag" };
	sigset_t term;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &term, NULL);
	watchdog_start("still waiting");
	for (int k = 0; k < 6; k++) {
		mode = k % 3;
		after = k / 3;
		struct sigaction sa = { 0 };
		sa.sa_handler = mode ? on_term : SIG_DFL;
		sigaction(SIGTERM, &sa, NULL);
		int ok = 0, rounds = 5;
		for (int r = 0; r < rounds; r++) {
			atomic_store(&stop, 0);
			atomic_store(&paused, 0);
			atomic_store(&exchanges, 0);
			flag = 0;
			turn = 0;
			pthread_t tk, snd, pt[2 * PAIRS], ct[2];
			pthread_create(&tk, NULL, taker, NULL);
			for (int i = 0; i < PAIRS; i++) {
				int sv[2];
				socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
				pthread_create(&pt[2 * i], NULL, pinger, (void *)(long)(sv[0] << 1));
				pthread_create(&pt[2 * i + 1], NULL, pinger, (void *)(long)(sv[1] << 1 | 1));
			}
			for (long i = 0; i < 2; i++)
				pthread_create(&ct[i], NULL, condpong, (void *)i);
			pthread_create(&snd, NULL, sender, NULL);
			void *v;
			pthread_join(tk, &v);
			atomic_store(&stop, 1);
			pthread_mutex_lock(&mu);
			pthread_cond_broadcast(&cv);
			pthread_mutex_unlock(&mu);
			pthread_join(snd, NULL);
			for (int i = 0; i < 2 * PAIRS; i++)
				pthread_join(pt[i], NULL);
			for (int i = 0; i < 2; i++)
				pthread_join(ct[i], NULL);
			ok += v == (void *)1l;
		}
		printf("%s, %s: SIGTERM taken in %d of %d rounds\n", names[mode],
		       after ? "after the load" : "under load", ok, rounds);
	}
	return 0;
}
