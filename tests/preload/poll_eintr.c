/*
 * poll_eintr — ppoll, pselect and epoll_pwait with a signal mask block in
 * the kernel.  Without a signal of the program's they end by their
 * timeout, never with EINTR: two threads spin past a time slice, so that
 * a preemption may be on its way as they start to wait, then wait 3 ms
 * each on a pipe nothing is written to.  A handler of the program's that
 * interrupts one still ends it with EINTR, as natively (POSIX: these
 * calls are never restarted); that signal is sent every 100 ms until the
 * wait is over, so a first one that comes before the wait (a loaded
 * machine) leaves the next to end it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"

#define ROUNDS 40
#define KINDS 3

static const char *const kind_name[KINDS] = { "ppoll", "pselect", "epoll_pwait" };
static int pfd[2], ep;
static atomic_long eintr, wrong;

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* One wait on the read end of the idle pipe, with an empty mask. */
static int wait_one(int kind, int ms)
{
	sigset_t none;
	sigemptyset(&none);
	struct pollfd p = { pfd[0], POLLIN, 0 };
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	fd_set r;
	FD_ZERO(&r);
	FD_SET(pfd[0], &r);
	struct epoll_event ev;
	switch (kind) {
	case 0:
		return ppoll(&p, 1, &ts, &none);
	case 1:
		return pselect(pfd[0] + 1, &r, NULL, NULL, &ts, &none);
	default:
		return epoll_pwait(ep, &ev, 1, ms, &none);
	}
}

static void *spinner(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		double end = now_ms() + 12;
		while (now_ms() < end)
			;
		for (int k = 0; k < KINDS; k++) {
			int r = wait_one(k, 3);
			if (r < 0 && errno == EINTR)
				eintr++;
			else if (r != 0)
				wrong++;
		}
	}
	return NULL;
}

static void on_usr1(int s)
{
	(void)s;
}

static atomic_int waited;

static void *interrupted(void *arg)
{
	int kind = (int)(long)arg;
	int r = wait_one(kind, 5000);
	int v = r < 0 && errno == EINTR;
	atomic_store(&waited, 1);
	return (void *)(long)v;
}

int main(void)
{
	weft_check_loaded();
	if (pipe(pfd) || (ep = epoll_create1(0)) < 0)
		return perror("pipe/epoll_create1"), 1;
	struct epoll_event e = { EPOLLIN, { 0 } };
	epoll_ctl(ep, EPOLL_CTL_ADD, pfd[0], &e);

	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, spinner, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("waits ended by EINTR with no signal sent: %ld of %d\n", (long)eintr,
	       2 * ROUNDS * KINDS);
	printf("waits ended otherwise than by their timeout: %ld\n", (long)wrong);

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	for (long k = 0; k < KINDS; k++) {
		pthread_t w;
		void *v;
		atomic_store(&waited, 0);
		pthread_create(&w, NULL, interrupted, (void *)k);
		/* Sent until the wait is over: on a loaded machine the first
		 * may come before the thread waits (its handler runs then). */
		while (!atomic_load(&waited)) {
			usleep(100000);
			if (!atomic_load(&waited))
				pthread_kill(w, SIGUSR1);
		}
		pthread_join(w, &v);
		printf("a handled SIGUSR1 ends %s with EINTR: %s\n", kind_name[k], v ? "yes" : "no");
	}
	return 0;
}
