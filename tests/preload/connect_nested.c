/*
 * connect_nested — a library the program links interposes connect: its
 * connect sleeps (usleep), then calls the next one (lib/slow_connect.c, as
 * GLib's slow-connect-preload.so does for gsocketclient-slow).  Under weft
 * the program's connect is weft's, which calls that library's as libc's,
 * inside its system-call bracket, so the usleep waits inside the bracket:
 * while two threads spin, sysmon hands the proc to another worker
 * meanwhile.  Once, the sleep parked the task there anyway and the task
 * never ran again (gsocketclient-slow hung 7 times in 10).  Here: five
 * non-blocking connects, each followed by poll, SO_ERROR and accept; then
 * the same with a handler's signal sent during the sleep.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "weft_check.h"

static atomic_int stop;
static volatile sig_atomic_t handled;

static void on_usr1(int s)
{
	(void)s;
	handled = 1;
}

static void *spinner(void *arg)
{
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		;
	return arg;
}

static void *kicker(void *arg)
{
	usleep(20000); /* into the 50 ms sleep of the connect */
	pthread_kill(*(pthread_t *)arg, SIGUSR1);
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	struct sigaction sa = { 0 };
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof a;
	if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 16) ||
	    getsockname(l, (struct sockaddr *)&a, &al))
		return 1;
	pthread_t s[2], self = pthread_self();
	for (int i = 0; i < 2; i++)
		pthread_create(&s[i], NULL, spinner, NULL);
	for (int i = 0; i < 6; i++) {
		pthread_t k;
		if (i == 5)
			pthread_create(&k, NULL, kicker, &self);
		int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		int r = connect(c, (struct sockaddr *)&a, sizeof a);
		int e = errno;
		struct pollfd p = { c, POLLOUT, 0 };
		int k_ = poll(&p, 1, 5000);
		int err = -1;
		socklen_t el = sizeof err;
		getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &el);
		int s2 = accept(l, NULL, NULL);
		printf("connect %d%s: %s, poll %d, SO_ERROR %d, accept %s\n", i,
		       i == 5 ? " (signalled)" : "",
		       r == 0 || e == EINPROGRESS ? "started" : "failed", k_, err,
		       s2 >= 0 ? "ok" : "failed");
		close(c);
		close(s2);
		if (i == 5) {
			pthread_join(k, NULL);
			printf("handler ran: %d\n", (int)handled);
		}
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(s[i], NULL);
	return 0;
}
