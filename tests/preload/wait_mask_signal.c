/* Waits that take a signal mask (ppoll, pselect, epoll_pwait), given a
 * mask that blocks everything but SIGUSR1, interrupted by a storm of
 * SIGUSR1 whose handler writes errno and a thread-local variable.  The
 * waiting thread sleeps in each call, so its OS thread is switched out by
 * the kernel while the handler is due: every handler must run on the
 * waiter's own thread-local state, and every interrupted call must fail
 * with EINTR or time out, as natively. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"

#define ROUNDS 400

static __thread long mine;
static atomic_long handled, wrong;
static atomic_int done;
static int pfd[2];

static void on_usr1(int sig)
{
	(void)sig;
	int e = errno;
	errno = EAGAIN;
	mine++;
	atomic_fetch_add(&handled, 1);
	errno = e;
}

static void *waiter(void *arg)
{
	long kind = (long)arg;
	sigset_t m;
	sigfillset(&m);
	sigdelset(&m, SIGUSR1);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN };
	epoll_ctl(ep, EPOLL_CTL_ADD, pfd[0], &ev);
	long bad = 0;
	for (int i = 0; i < ROUNDS; i++) {
		struct timespec ts = { 0, 2 * 1000 * 1000 };
		int r;
		if (kind == 0) {
			struct pollfd p = { pfd[0], POLLIN, 0 };
			r = ppoll(&p, 1, &ts, &m);
		} else if (kind == 1) {
			fd_set rs;
			FD_ZERO(&rs);
			FD_SET(pfd[0], &rs);
			r = pselect(pfd[0] + 1, &rs, NULL, NULL, &ts, &m);
		} else {
			struct epoll_event out;
			r = epoll_pwait(ep, &out, 1, 2, &m);
		}
		if (!(r == 0 || (r < 0 && errno == EINTR)))
			bad++;
	}
	close(ep);
	atomic_fetch_add(&wrong, bad);
	/* No handler runs here from now on: the counts are final. */
	sigset_t u;
	sigemptyset(&u);
	sigaddset(&u, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &u, NULL);
	long same = mine == atomic_load(&handled);
	atomic_store(&done, 1);
	return (void *)same;
}

int main(void)
{
	weft_check_loaded();
	pipe(pfd);
	struct sigaction sa = { 0 };
	sa.sa_handler = on_usr1;
	sigfillset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	static const char *const names[3] = { "ppoll", "pselect", "epoll_pwait" };
	for (long k = 0; k < 3; k++) {
		atomic_store(&handled, 0);
		atomic_store(&wrong, 0);
		pthread_t th;
		pthread_create(&th, NULL, waiter, (void *)k);
		while (!atomic_load(&done)) {
			pthread_kill(th, SIGUSR1);
			struct timespec gap = { 0, 300 * 1000 };
			nanosleep(&gap, NULL);
		}
		void *own;
		pthread_join(th, &own);
		atomic_store(&done, 0);
		printf("%s with a mask, under a signal storm: results %s, handlers ran: %s, "
		       "each on the waiter's own thread-local: %s\n",
		       names[k], atomic_load(&wrong) ? "WRONG" : "ok",
		       atomic_load(&handled) > 0 ? "yes" : "no",
		       own ? "yes" : "no");
	}
	return 0;
}
