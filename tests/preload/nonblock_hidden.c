/*
 * nonblock_hidden — O_NONBLOCK set where no libc wrapper sees it
 * (syscall(SYS_fcntl), syscall(SYS_ioctl, FIONBIO)) after weft looked at
 * the descriptor's flags, and a number closed with syscall(SYS_close) that
 * comes back as another file: a read of an empty pipe says EAGAIN at once,
 * a TCP connect says EINPROGRESS at once, as natively.  weft once kept
 * the flags it had seen: the read waited for data (written 300 ms later),
 * the connect for the connection.  And a socket whose blocking connect was
 * refused connects again (it once said ECONNABORTED: io_uring's connect
 * left it "connecting").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include "weft_check.h"

static int wfd;

static void *late_writer(void *arg)
{
	(void)arg;
	usleep(300000);
	if (write(wfd, "x", 1) != 1)
		perror("write");
	return NULL;
}

static const char *outcome(long r, int e)
{
	static char b[32];
	if (r >= 0)
		snprintf(b, sizeof b, "%ld", r);
	else
		snprintf(b, sizeof b, "%s", strerrorname_np(e));
	return b;
}

/* A pipe read once while blocking (weft notes "blocking"), then made
 * non-blocking by how (0: syscall fcntl, 1: syscall ioctl). */
static void pipe_case(int how)
{
	int p[2];
	char c;
	if (pipe(p))
		return;
	write(p[1], "a", 1);
	read(p[0], &c, 1); /* data there: no wait; weft has looked */
	/* A read that would wait: weft looks at the flags now. */
	wfd = p[1];
	pthread_t t;
	pthread_create(&t, NULL, late_writer, NULL);
	read(p[0], &c, 1); /* waits 300 ms, blocking */
	pthread_join(t, NULL);
	int on = 1;
	if (how == 0)
		syscall(SYS_fcntl, p[0], F_SETFL, O_NONBLOCK);
	else
		syscall(SYS_ioctl, p[0], FIONBIO, &on);
	pthread_create(&t, NULL, late_writer, NULL);
	long r = read(p[0], &c, 1);
	int e = errno;
	pthread_join(t, NULL);
	printf("pipe made non-blocking by syscall(%s): read %s\n", how ? "ioctl" : "fcntl",
	       outcome(r, e));
	close(p[0]);
	close(p[1]);
}

/* A blocking TCP socket that connected once (weft looked at its flags),
 * made non-blocking by syscall(SYS_fcntl), connected again. */
static void connect_case(void)
{
	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof a;
	if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 4) ||
	    getsockname(l, (struct sockaddr *)&a, &al))
		return;
	struct sockaddr_in closed = a;
	int tmp = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in b = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t bl = sizeof b;
	bind(tmp, (struct sockaddr *)&b, sizeof b);
	getsockname(tmp, (struct sockaddr *)&b, &bl);
	closed.sin_port = b.sin_port; /* bound, never listening: refused */
	int s = socket(AF_INET, SOCK_STREAM, 0);
	long r = connect(s, (struct sockaddr *)&closed, sizeof closed);
	printf("blocking connect to a closed port: %s\n", outcome(r, errno));
	syscall(SYS_fcntl, s, F_SETFL, O_NONBLOCK);
	r = connect(s, (struct sockaddr *)&a, sizeof a);
	int e = errno;
	printf("made non-blocking by syscall(fcntl), connect: %s\n", outcome(r, e));
	close(s);
	close(tmp);
	close(l);
}

/* A number closed by syscall(SYS_close) comes back from pipe() as a
 * non-blocking read end. */
static void close_case(void)
{
	int p[2], q[2];
	char c;
	if (pipe(p))
		return;
	wfd = p[1];
	pthread_t t;
	pthread_create(&t, NULL, late_writer, NULL);
	read(p[0], &c, 1); /* waited: weft has looked at p[0] */
	pthread_join(t, NULL);
	int num = p[0];
	syscall(SYS_close, p[0]);
	syscall(SYS_close, p[1]);
	if (syscall(SYS_pipe2, q, O_NONBLOCK))
		return;
	long r = read(q[0], &c, 1);
	int e = errno;
	printf("closed by syscall(close), same number again: %s, read %s\n",
	       q[0] == num ? "yes" : "no", outcome(r, e));
	close(q[0]);
	close(q[1]);
}

int main(void)
{
	weft_check_loaded();
	setvbuf(stdout, NULL, _IONBF, 0);
	pipe_case(0);
	pipe_case(1);
	connect_case();
	close_case();
	return 0;
}
