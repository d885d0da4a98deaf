/*
 * echo_server — a thread-per-connection echo server written the plain
 * way: blocking sockets, main accepts, one detached pthread per
 * connection reads and writes back what it read until the peer closes.
 * Listens on 127.0.0.1, an ephemeral port, and prints "port N" as its
 * first line; runs until killed.  bench/echo_load.c starts it and drives
 * it.  If pthread_create fails (the kernel's thread or pid limit) it
 * prints one line the first time, closes that connection and keeps
 * serving the others.
 */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/socket.h>

#include "bench.h"

static void *serve(void *arg)
{
	int fd = (int)(long)arg;
	char buf[4096];
	for (;;) {
		ssize_t r = read(fd, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		for (ssize_t off = 0; off < r;) {
			ssize_t w = write(fd, buf + off, r - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				goto out;
			off += w;
		}
	}
out:
	close(fd);
	return NULL;
}

int main(void)
{
	raise_nofile();
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	int one = 1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 4096) ||
	    getsockname(ls, (struct sockaddr *)&a, &al))
		return perror("listen"), 1;
	printf("port %d\n", ntohs(a.sin_port));
	fflush(stdout);

	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	long conns = 0, failed = 0;
	for (;;) {
		int fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE) {
				printf("accept failed after %ld connections: %s\n", conns,
				       strerror(errno));
				fflush(stdout);
				usleep(100000);
				continue;
			}
			return perror("accept"), 1;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		pthread_t th;
		int e = pthread_create(&th, &attr, serve, (void *)(long)fd);
		if (e) {
			if (!failed++) {
				printf("thread for connection %ld failed: %s\n", conns + 1,
				       strerror(e));
				fflush(stdout);
			}
			close(fd);
			continue;
		}
		conns++;
	}
}
