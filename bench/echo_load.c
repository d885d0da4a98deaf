/*
 * echo_load CONNS SECONDS WINDOW SERVER_CMD... — load generator for
 * bench/echo_server.c.  One process, one thread, non-blocking sockets and
 * epoll, so that its own cost does not depend on the server's threads.
 * Starts SERVER_CMD (its first output line must be "port N"), opens CONNS
 * concurrent loopback connections to it (at most 256 connects in flight,
 * so the listen queue does not overflow), then for SECONDS keeps WINDOW
 * 16-byte requests outstanding, each sent to the next idle connection in
 * round-robin order, and counts the echoed replies.  Prints requests/s,
 * the server's OS threads (most seen, sampled every 100 ms while all
 * connections are open) and its peak RSS (VmHWM), then kills the server
 * and prints what it said ("server: ..." lines).
 */
#define _GNU_SOURCE /* accept4, pipe2 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "bench.h"

#define REQ 16
#define INFLIGHT_CONNECTS 256

struct conn {
	int fd;
	int state; /* 0 connecting, 1 idle, 2 waiting for a reply, 3 dead */
	int got;   /* reply bytes received */
};

static pid_t server;
static int server_out = -1;

/* A field of /proc/<server>/status, or -1. */
static long server_status(const char *key)
{
	char path[64], buf[8192];
	snprintf(path, sizeof path, "/proc/%d/status", (int)server);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t len = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = 0;
	size_t n = strlen(key);
	for (char *l = buf; l; l = strchr(l, '\n'), l = l ? l + 1 : l)
		if (!strncmp(l, key, n) && l[n] == ':')
			return strtol(l + n + 1, NULL, 10);
	return -1;
}

/* Prints what the server printed after its port line. */
static void server_said(void)
{
	char buf[4096];
	ssize_t r;
	static char line[512];
	static size_t ll;
	while ((r = read(server_out, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < r; i++) {
			if (buf[i] == '\n' || ll == sizeof line - 1) {
				printf("server: %.*s\n", (int)ll, line);
				ll = 0;
			} else
				line[ll++] = buf[i];
		}
}

static int start_server(char **cmd)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		return -1;
	server = fork();
	if (server < 0)
		return -1;
	if (!server) {
		dup2(p[1], 1);
		execvp(cmd[0], cmd);
		perror(cmd[0]);
		_exit(127);
	}
	close(p[1]);
	server_out = p[0];
	/* Its first line is "port N". */
	char line[64];
	size_t len = 0;
	while (len < sizeof line - 1) {
		struct pollfd pf = {server_out, POLLIN, 0};
		if (poll(&pf, 1, 10000) <= 0 || read(server_out, line + len, 1) != 1)
			break;
		if (line[len++] == '\n')
			break;
	}
	line[len] = 0;
	fcntl(server_out, F_SETFL, O_NONBLOCK);
	int port;
	if (sscanf(line, "port %d", &port) != 1) {
		printf("server did not print its port (got \"%s\")\n", line);
		return -1;
	}
	return port;
}

static void stop_server(void)
{
	if (server <= 0)
		return;
	kill(server, SIGKILL);
	int st;
	waitpid(server, &st, 0);
	server_said();
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: echo_load CONNS SECONDS WINDOW SERVER_CMD...\n");
		return 2;
	}
	long nconn = arg_long(argc, argv, 1, 0), secs = arg_long(argc, argv, 2, 0);
	long window = arg_long(argc, argv, 3, 0);
	signal(SIGPIPE, SIG_IGN);
	long lim = raise_nofile();
	if (lim < nconn + 32) {
		printf("RLIMIT_NOFILE hard limit %ld is too low for %ld connections: using %ld\n",
		       lim, nconn, lim - 32);
		nconn = lim - 32;
	}
	if (window > nconn)
		window = nconn;
	int port = start_server(argv + 4);
	if (port < 0) {
		stop_server();
		return 1;
	}
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct conn *c = calloc(nconn, sizeof *c);
	struct epoll_event *evs = calloc(1024, sizeof *evs);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	if (!c || !evs || ep < 0)
		return perror("setup"), 1;

	/* Connect them all, INFLIGHT_CONNECTS at a time. */
	double t0 = now_s();
	long opened = 0, pending = 0, live = 0, dead = 0;
	int one = 1;
	while ((opened < nconn || pending) && now_s() - t0 < 60) {
		while (opened < nconn && pending < INFLIGHT_CONNECTS) {
			struct conn *k = &c[opened];
			k->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
			if (k->fd < 0) {
				printf("socket %ld failed: %s\n", opened + 1, strerror(errno));
				nconn = opened;
				break;
			}
			setsockopt(k->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
			struct epoll_event ev = {.events = EPOLLOUT, .data.u64 = opened};
			epoll_ctl(ep, EPOLL_CTL_ADD, k->fd, &ev);
			if (connect(k->fd, (struct sockaddr *)&a, sizeof a) && errno != EINPROGRESS) {
				printf("connect %ld failed: %s\n", opened + 1, strerror(errno));
				k->state = 3, dead++;
				close(k->fd);
			} else
				pending++;
			opened++;
		}
		int n = epoll_wait(ep, evs, 1024, 100);
		for (int i = 0; i < n; i++) {
			struct conn *k = &c[evs[i].data.u64];
			if (k->state != 0)
				continue;
			int err = 0;
			socklen_t el = sizeof err;
			getsockopt(k->fd, SOL_SOCKET, SO_ERROR, &err, &el);
			pending--;
			if (err) {
				if (!dead)
					printf("connect failed: %s\n", strerror(err));
				k->state = 3, dead++;
				close(k->fd);
				continue;
			}
			struct epoll_event ev = {.events = EPOLLIN, .data.u64 = evs[i].data.u64};
			epoll_ctl(ep, EPOLL_CTL_MOD, k->fd, &ev);
			k->state = 1;
			live++;
		}
	}
	double t1 = now_s();
	printf("connections: %ld of %ld open in %.2f s\n", live, nconn, t1 - t0);
	fflush(stdout);
	if (pending)
		printf("gave up on %ld connects after 60 s\n", pending);

	/* Requests, round robin, WINDOW outstanding. */
	long cursor = 0, inflight = 0, replies = 0, maxthr = server_status("Threads");
	char req[REQ], buf[4096];
	memset(req, 'x', REQ);
	double t_end = now_s() + secs, next_sample = now_s() + 0.1;
	for (;;) {
		double t = now_s();
		if (t >= t_end)
			break;
		for (long tries = 0; inflight < window && live > inflight && tries < nconn; tries++) {
			struct conn *k = &c[cursor];
			cursor = (cursor + 1) % nconn;
			if (k->state != 1)
				continue;
			if (write(k->fd, req, REQ) != REQ) {
				k->state = 3, dead++, live--;
				close(k->fd);
				continue;
			}
			k->state = 2, k->got = 0, inflight++;
		}
		if (t >= next_sample) {
			long th = server_status("Threads");
			if (th > maxthr)
				maxthr = th;
			next_sample = t + 0.1;
		}
		int n = epoll_wait(ep, evs, 1024, 10);
		for (int i = 0; i < n; i++) {
			struct conn *k = &c[evs[i].data.u64];
			ssize_t r = read(k->fd, buf, sizeof buf);
			if (r < 0 && errno == EAGAIN)
				continue;
			if (r <= 0 || k->state != 2) {
				/* closed by the server (it could not serve it), or junk */
				if (k->state == 2)
					inflight--;
				if (k->state != 3) {
					k->state = 3, dead++, live--;
					epoll_ctl(ep, EPOLL_CTL_DEL, k->fd, NULL);
					close(k->fd);
				}
				continue;
			}
			k->got += r;
			if (k->got >= REQ) {
				k->state = 1, inflight--, replies++;
			}
		}
	}
	double t2 = now_s();
	long thr = server_status("Threads"), hwm = server_status("VmHWM");
	if (thr > maxthr)
		maxthr = thr;
	printf("run: %.2f s, window %ld requests of %d bytes\n", t2 - (t_end - secs), window, REQ);
	printf("replies: %ld\n", replies);
	printf("requests/s: %.0f\n", replies / (t2 - (t_end - secs)));
	printf("connections lost: %ld\n", dead);
	printf("server OS threads: %ld\n", maxthr);
	printf("server peak RSS: %.1f MB\n", hwm / 1024.0);
	fflush(stdout);
	stop_server();
	return 0;
}
