/*
 * A child made by a raw fork (syscall(SYS_fork), which runs no atfork
 * handler) calls dup2 and exits, while other threads wait in poll on two
 * pipes with a short timeout, over and over.  Under weft such a poll makes
 * a private epoll instance with io/privfd.c's gate shut, and the program's
 * dup2 waits at that gate: a child forked while another thread had it
 * shut kept the parent's "shut" for ever, with nobody in the child to
 * open it, and its dup2 never returned.  Every child must exit at once.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"
#include "weft_check.h"

#define POLLERS 8
#define CHILDREN 200

static volatile int stop;

static void *poller(void *arg)
{
	(void)arg;
	int a[2], b[2];
	if (pipe(a) || pipe(b))
		exit(2);
	struct pollfd f[2] = { { a[0], POLLIN, 0 }, { b[0], POLLIN, 0 } };
	while (!stop)
		poll(f, 2, 1);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
	return NULL;
}

/* The child's exit within 10 s: 0, else 1 (killed). */
static int reap(pid_t pid)
{
	double end = now_s() + 10;
	int st;
	while (now_s() < end) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			return !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		usleep(1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return 1;
}

int main(void)
{
	weft_check_loaded();
	/* Low numbers free: the private epoll instances move to 100 or above. */
	pthread_t t[POLLERS];
	for (int i = 0; i < POLLERS; i++)
		pthread_create(&t[i], NULL, poller, NULL);
	usleep(20000);
	int stuck = 0;
	for (int i = 0; i < CHILDREN; i++) {
#ifdef SYS_fork
		long pid = syscall(SYS_fork);
#else /* aarch64: fork is clone with SIGCHLD */
		long pid = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
#endif
		if (pid == 0) {
			int r = dup2(1, 60);
			syscall(SYS_exit_group, r == 60 ? 0 : 3);
		}
		if (pid < 0) {
			printf("fork failed\n");
			return 1;
		}
		stuck += reap((pid_t)pid);
	}
	stop = 1;
	for (int i = 0; i < POLLERS; i++)
		pthread_join(t[i], NULL);
	printf("children: %d, stuck or failed: %d\n", CHILDREN, stuck);
	return stuck != 0;
}
