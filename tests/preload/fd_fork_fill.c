/* A fork child that dup2s a socket onto every free number below 256, then
 * waits in a read on it, gets the byte its parent sends: nothing else in
 * the child may take it, however it fills its table: meanwhile a thread of
 * the child sleeps in a raw blocking read again and again (which the
 * runtime may look at from outside), woken by another that always runs.  Half
 * the children read with a raw system call (syscall(SYS_read)), which the
 * runtime may look at from outside while it waits.  FD_FORK_ROUNDS rounds
 * (default 200); a child that has not answered in 3 s counts as hung. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"

static volatile int stop;
static int bp[2]; /* the child's blocked thread's pipe */

/* Always runnable, and wakes the blocked thread again and again: the
 * child's runtime keeps looking at that thread from outside. */
static void *spinner(void *arg)
{
	(void)arg;
	struct timespec last, now;
	clock_gettime(CLOCK_MONOTONIC, &last);
	while (!stop) {
		for (volatile int i = 0; i < 20000; i++)
			;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - last.tv_sec) * 1000000000L + now.tv_nsec - last.tv_nsec > 3000000) {
			last = now;
			if (write(bp[1], "x", 1) != 1)
				break;
		}
		sched_yield();
	}
	return NULL;
}

/* Sleeps in a raw blocking read, woken by the spinner. */
static void *blocker(void *arg)
{
	(void)arg;
	char c;
	while (!stop) {
		sched_yield();
		if (syscall(SYS_read, bp[0], &c, 1) <= 0)
			break;
	}
	return NULL;
}

static int child(int s, int raw)
{
	pthread_t sp, bl;
	if (pipe(bp) != 0 || pthread_create(&bl, NULL, blocker, NULL) != 0 ||
	    pthread_create(&sp, NULL, spinner, NULL) != 0)
		return 6;
	struct timespec pause = { 0, 10000000 };
	nanosleep(&pause, NULL); /* both at work */
	for (int fd = 3; fd < 256; fd++) {
		if (fd == s || fcntl(fd, F_GETFD) == 0 || errno != EBADF)
			continue;
		if (dup2(s, fd) != fd)
			return 3;
	}
	/* Ready: the parent sends only now. */
	stop = 1;
	pthread_join(sp, NULL);
	if (write(bp[1], "x", 1) != 1)
		return 7;
	pthread_join(bl, NULL);
	if (write(s, "r", 1) != 1)
		return 4;
	char c = 0;
	long n = raw ? syscall(SYS_read, s, &c, 1) : read(s, &c, 1);
	return n == 1 && c == 'x' ? 0 : 5;
}

int main(void)
{
	weft_check_loaded();
	const char *e = getenv("FD_FORK_ROUNDS");
	int rounds = e ? atoi(e) : 200;
	int ok = 0, hung = 0, bad = 0;
	for (int i = 0; i < rounds; i++) {
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
			return 1;
		fflush(stdout);
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			close(sv[0]);
			_exit(child(sv[1], i & 1));
		}
		close(sv[1]);
		char c;
		struct pollfd pf = { sv[0], POLLIN, 0 };
		int got = poll(&pf, 1, 5000) == 1 && read(sv[0], &c, 1) == 1 && c == 'r';
		if (got && write(sv[0], "x", 1) != 1)
			got = 0;
		int st = 0;
		for (int w = 0; w < 300 && waitpid(pid, &st, WNOHANG) == 0; w++)
			usleep(10000);
		if (waitpid(pid, &st, WNOHANG) == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			hung++;
		} else if (got && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			ok++;
		} else {
			if (getenv("FD_FORK_VERBOSE"))
				fprintf(stderr, "round %d: status %d\n", i, st);
			bad++;
		}
		close(sv[0]);
	}
	printf("children answered: %d of %d, hung %d, failed %d\n", ok, rounds, hung, bad);
	return 0;
}
