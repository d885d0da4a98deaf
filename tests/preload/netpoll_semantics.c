/* Blocking semantics of the calls weft parks on the poller, each compared
 * with the native run: partial pipe writes finished, PIPE_BUF atomicity,
 * EAGAIN for descriptors the program made non-blocking, SO_RCVTIMEO,
 * poll/select/epoll_wait timeouts and wake-ups, recv MSG_WAITALL, sendmsg
 * of a large iovec, accept on a blocking listener, and pthread_cancel of a
 * thread parked in read(2). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include "weft_check.h"

#define BIG (1 << 20)

static int p[2];
static unsigned char *src, *dst;

static void *slow_reader(void *arg)
{
	(void)arg;
	size_t got = 0;
	while (got < BIG) {
		/* Never asks past dst's end: qemu-user checks the whole buffer. */
		ssize_t r = read(p[0], dst + got, BIG - got < 7777 ? BIG - got : 7777);
		if (r <= 0)
			return (void *)-1L;
		got += r;
	}
	return NULL;
}

static void big_write(void)
{
	src = malloc(BIG);
	dst = malloc(BIG);
	for (int i = 0; i < BIG; i++)
		src[i] = (unsigned char)(i * 7 + i / 4096);
	pipe(p);
	pthread_t t;
	pthread_create(&t, NULL, slow_reader, NULL);
	ssize_t w = write(p[1], src, BIG);
	void *r;
	pthread_join(t, &r);
	printf("pipe write of 1 MiB: returned %zd, reader %s, data %s\n", w, r ? "failed" : "ok",
	       memcmp(src, dst, BIG) ? "differs" : "equal");
	close(p[0]);
	close(p[1]);
}

/* Writers of PIPE_BUF-sized records: no record is ever split. */
#define REC 4096
#define NREC 200
static void *rec_writer(void *arg)
{
	unsigned char rec[REC];
	memset(rec, (int)(long)arg, REC);
	for (int i = 0; i < NREC; i++)
		if (write(p[1], rec, REC) != REC)
			return (void *)-1L;
	return NULL;
}

static void atomic_records(void)
{
	pipe(p);
	pthread_t a, b;
	pthread_create(&a, NULL, rec_writer, (void *)'a');
	pthread_create(&b, NULL, rec_writer, (void *)'b');
	int split = 0, n = 0;
	unsigned char rec[REC];
	for (; n < 2 * NREC; n++) {
		size_t got = 0;
		while (got < REC) {
			ssize_t r = read(p[0], rec + got, REC - got);
			if (r <= 0)
				break;
			got += r;
		}
		for (int i = 1; i < REC; i++)
			if (rec[i] != rec[0]) {
				split++;
				break;
			}
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("PIPE_BUF records: %d read, %d split\n", n, split);
	close(p[0]);
	close(p[1]);
}

static void nonblocking(void)
{
	pipe(p);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	char c;
	errno = 0;
	ssize_t r = read(p[0], &c, 1);
	printf("read on an empty O_NONBLOCK pipe: %zd %s\n", r, errno == EAGAIN ? "EAGAIN" : "?");
	int s[2];
	socketpair(AF_UNIX, SOCK_STREAM, 0, s);
	errno = 0;
	r = recv(s[0], &c, 1, MSG_DONTWAIT);
	printf("recv MSG_DONTWAIT on an empty socket: %zd %s\n", r, errno == EAGAIN ? "EAGAIN" : "?");
	struct timeval tv = { 0, 50000 };
	setsockopt(s[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	errno = 0;
	r = recv(s[0], &c, 1, 0);
	printf("recv with SO_RCVTIMEO 50 ms: %zd %s\n", r, errno == EAGAIN ? "EAGAIN" : "?");
	errno = 0;
	r = read(s[0], &c, 1);
	printf("read with SO_RCVTIMEO 50 ms: %zd %s\n", r, errno == EAGAIN ? "EAGAIN" : "?");
	close(s[0]);
	close(s[1]);
	close(p[0]);
	close(p[1]);
}

static int late_fd;
static void *late_writer(void *arg)
{
	usleep(30000);
	write(late_fd, arg, strlen(arg));
	return NULL;
}

static void waits(void)
{
	pipe(p);
	struct pollfd f = { p[0], POLLIN, 0 };
	int r = poll(&f, 1, 40);
	printf("poll timeout: %d\n", r);
	late_fd = p[1];
	pthread_t t;
	pthread_create(&t, NULL, late_writer, "x");
	r = poll(&f, 1, -1);
	printf("poll wake: %d revents=%s\n", r, f.revents & POLLIN ? "POLLIN" : "?");
	pthread_join(t, NULL);
	char c;
	read(p[0], &c, 1);

	fd_set rs;
	FD_ZERO(&rs);
	FD_SET(p[0], &rs);
	struct timeval tv = { 0, 40000 };
	r = select(p[0] + 1, &rs, NULL, NULL, &tv);
	printf("select timeout: %d set=%d\n", r, FD_ISSET(p[0], &rs));
	pthread_create(&t, NULL, late_writer, "y");
	FD_ZERO(&rs);
	FD_SET(p[0], &rs);
	r = select(p[0] + 1, &rs, NULL, NULL, NULL);
	printf("select wake: %d set=%d\n", r, FD_ISSET(p[0], &rs));
	pthread_join(t, NULL);
	read(p[0], &c, 1);

	FD_ZERO(&rs);
	FD_SET(p[0], &rs);
	struct timespec pts = { 0, 40000000 };
	r = pselect(p[0] + 1, &rs, NULL, NULL, &pts, NULL);
	printf("pselect timeout: %d set=%d\n", r, FD_ISSET(p[0], &rs));
	pthread_create(&t, NULL, late_writer, "v");
	FD_ZERO(&rs);
	FD_SET(p[0], &rs);
	r = pselect(p[0] + 1, &rs, NULL, NULL, NULL, NULL);
	printf("pselect wake: %d set=%d\n", r, FD_ISSET(p[0], &rs));
	pthread_join(t, NULL);
	read(p[0], &c, 1);

	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 42 };
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
	r = epoll_wait(ep, &ev, 1, 40);
	printf("epoll_wait timeout: %d\n", r);
	pthread_create(&t, NULL, late_writer, "z");
	r = epoll_wait(ep, &ev, 1, -1);
	printf("epoll_wait wake: %d data=%llu\n", r, (unsigned long long)ev.data.u64);
	pthread_join(t, NULL);
	close(ep);
	r = poll(NULL, 0, 20);
	printf("poll with no descriptors (a sleep): %d\n", r);
	close(p[0]);
	close(p[1]);
}

static int sv[2];
static void *chunk_sender(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++) {
		usleep(2000);
		send(sv[1], "0123456789", 10, 0);
	}
	return NULL;
}

static void sockets(void)
{
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	pthread_t t;
	pthread_create(&t, NULL, chunk_sender, NULL);
	char buf[101] = { 0 };
	ssize_t r = recv(sv[0], buf, 100, MSG_WAITALL);
	printf("recv MSG_WAITALL: %zd\n", r);
	pthread_join(t, NULL);

	/* A 1 MiB sendmsg over 4 iovecs, read back on another thread. */
	src = src ? src : malloc(BIG);
	struct iovec iov[4];
	for (int i = 0; i < 4; i++)
		iov[i] = (struct iovec){ src + i * (BIG / 4), BIG / 4 };
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = 4 };
	p[0] = sv[0];
	pthread_create(&t, NULL, slow_reader, NULL);
	r = sendmsg(sv[1], &m, 0);
	void *rr;
	pthread_join(t, &rr);
	printf("sendmsg of 1 MiB: %zd, reader %s, data %s\n", r, rr ? "failed" : "ok",
	       memcmp(src, dst, BIG) ? "differs" : "equal");
	close(sv[0]);
	close(sv[1]);
}

static int lfd;
static void *client(void *arg)
{
	(void)arg;
	usleep(20000);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	getsockname(lfd, (struct sockaddr *)&a, &len);
	int c = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(c, (struct sockaddr *)&a, sizeof a))
		return (void *)-1L;
	send(c, "hello", 5, 0);
	char b[8];
	ssize_t r = recv(c, b, sizeof b, 0);
	close(c);
	return (void *)r;
}

static void accepting(void)
{
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	bind(lfd, (struct sockaddr *)&a, sizeof a);
	listen(lfd, 8);
	pthread_t t;
	pthread_create(&t, NULL, client, NULL);
	int c = accept(lfd, NULL, NULL);
	char b[8] = { 0 };
	ssize_t r = read(c, b, 5);
	write(c, b, r);
	void *cr;
	pthread_join(t, &cr);
	printf("accept: %s, read %zd '%s', client got %ld back\n", c >= 0 ? "ok" : "failed", r, b,
	       (long)cr);
	close(c);
	close(lfd);
}

static void *blocked_reader(void *arg)
{
	char c;
	read(*(int *)arg, &c, 1);
	return (void *)1L;
}

static void cancel(void)
{
	pipe(p);
	pthread_t t;
	pthread_create(&t, NULL, blocked_reader, &p[0]);
	usleep(20000);
	pthread_cancel(t);
	void *r;
	pthread_join(t, &r);
	printf("cancel of a thread in read: %s\n", r == PTHREAD_CANCELED ? "canceled" : "not canceled");
	close(p[0]);
	close(p[1]);
}

/* closefrom(3) (as daemons do) closes the program's descriptors, not
 * weft's poller: waits after it still park and wake. */
static void after_closefrom(void)
{
	int keep[2];
	pipe(keep);
	closefrom(3);
	pipe(p);
	late_fd = p[1];
	pthread_t t;
	pthread_create(&t, NULL, late_writer, "w");
	char c = 0;
	ssize_t r = read(p[0], &c, 1);
	pthread_join(t, NULL);
	printf("after closefrom(3): pipe fd %d, read %zd '%c'\n", p[0], r, c);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	weft_check_loaded();
	big_write();
	atomic_records();
	nonblocking();
	waits();
	sockets();
	accepting();
	cancel();
	after_closefrom();
	return 0;
}
