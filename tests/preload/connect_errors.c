/* connect(2)'s results, as the kernel gives them to a blocking and to a
 * non-blocking TCP socket (connect(2), socket(7), tcp(7)):
 *   refused, twice (the state resets); success, then EISCONN, also after
 *   shutdown; EAFNOSUPPORT, EINVAL, EBADF, ENOTSOCK;
 *   a listener whose accept queue is full drops the SYN: a non-blocking
 *   connect says EINPROGRESS, then EALREADY, then 0 once established
 *   (SO_ERROR 0), then EISCONN;
 *   a blocking connect with SO_SNDTIMEO says EINPROGRESS when it passes,
 *   EALREADY when a second one passes, and a blocking connect without a
 *   timeout waits for the one in progress and returns 0;
 *   a handled signal without SA_RESTART ends a blocking connect with
 *   EINTR; with SA_RESTART the connect goes on and returns 0.
 * The file description's O_NONBLOCK is never seen to change. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "weft_check.h"

static const char *name(int r)
{
	if (r == 0)
		return "0";
	switch (errno) {
	case ECONNREFUSED: return "ECONNREFUSED";
	case EISCONN: return "EISCONN";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case EINVAL: return "EINVAL";
	case EBADF: return "EBADF";
	case ENOTSOCK: return "ENOTSOCK";
	case EINPROGRESS: return "EINPROGRESS";
	case EALREADY: return "EALREADY";
	case EINTR: return "EINTR";
	case EAGAIN: return "EAGAIN";
	default: return strerror(errno);
	}
}

static int so_error(int s)
{
	int e = -1;
	socklen_t l = sizeof e;
	getsockopt(s, SOL_SOCKET, SO_ERROR, &e, &l);
	return e;
}

static int conn(int s, const struct sockaddr_in *a)
{
	return connect(s, (const struct sockaddr *)a, sizeof *a);
}

static int tcp(void)
{
	return socket(AF_INET, SOCK_STREAM, 0);
}

/* A listener on loopback, its address in *a. */
static int listener(struct sockaddr_in *a, int backlog)
{
	int l = tcp();
	memset(a, 0, sizeof *a);
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t al = sizeof *a;
	if (bind(l, (struct sockaddr *)a, sizeof *a) || listen(l, backlog) ||
	    getsockname(l, (struct sockaddr *)a, &al))
		perror("listener");
	return l;
}

/* A listener whose accept queue is full: one connection waits in it. */
static int full_listener(struct sockaddr_in *a, int *queued)
{
	int l = listener(a, 0);
	*queued = tcp();
	if (conn(*queued, a))
		perror("filling the queue");
	return l;
}

static int nonblocking(int s)
{
	return !!(fcntl(s, F_GETFL) & O_NONBLOCK);
}

static void onsig(int sig) { (void)sig; }

struct kick { pthread_t target; int l; int accept; };

static void *kicker(void *arg)
{
	struct kick *k = arg;
	usleep(200000);
	pthread_kill(k->target, SIGUSR1);
	if (k->accept) {
		usleep(100000);
		close(accept(k->l, NULL, NULL)); /* room for the waiting SYN */
	}
	return NULL;
}

static void signal_case(int restart)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = onsig;
	sa.sa_flags = restart ? SA_RESTART : 0;
	sigaction(SIGUSR1, &sa, NULL);
	struct sockaddr_in a;
	int q, l = full_listener(&a, &q);
	struct kick k = { pthread_self(), l, restart };
	pthread_t t;
	pthread_create(&t, NULL, kicker, &k);
	int s = tcp();
	int r = conn(s, &a);
	printf("blocking connect, signal %s SA_RESTART: %s\n", restart ? "with" : "without",
	       name(r));
	pthread_join(t, NULL);
	close(s), close(q), close(l);
}

int main(void)
{
	weft_check_loaded();
	struct sockaddr_in a;
	int l, s, q, r;

	/* refused: a port nobody listens on */
	l = listener(&a, 1);
	close(l);
	s = tcp();
	r = conn(s, &a);
	printf("refused: %s", name(r));
	printf(", SO_ERROR %d", so_error(s));
	r = conn(s, &a);
	printf(", again: %s\n", name(r));
	close(s);

	/* success */
	l = listener(&a, 8);
	s = tcp();
	r = conn(s, &a);
	printf("success: %s, SO_ERROR %d", name(r), so_error(s));
	r = conn(s, &a);
	printf(", again: %s", name(r));
	shutdown(s, SHUT_RDWR);
	r = conn(s, &a);
	printf(", after shutdown: %s, O_NONBLOCK %d\n", name(r), nonblocking(s));
	close(s);
	close(l);

	/* bad arguments */
	s = tcp();
	struct sockaddr_in6 a6;
	memset(&a6, 0, sizeof a6);
	a6.sin6_family = AF_INET6;
	r = connect(s, (struct sockaddr *)&a6, sizeof a6);
	printf("IPv6 address on an IPv4 socket: %s\n", name(r));
	r = connect(s, (struct sockaddr *)&a, 4);
	printf("short address: %s\n", name(r));
	close(s);
	r = conn(-1, &a);
	printf("fd -1: %s\n", name(r));
	int p[2];
	pipe(p);
	r = conn(p[0], &a);
	printf("a pipe: %s\n", name(r));
	close(p[0]), close(p[1]);

	/* non-blocking, to a full accept queue */
	l = full_listener(&a, &q);
	s = tcp();
	fcntl(s, F_SETFL, O_NONBLOCK);
	r = conn(s, &a);
	printf("non-blocking: %s", name(r));
	r = conn(s, &a);
	printf(", %s", name(r));
	close(accept(l, NULL, NULL)); /* room: the SYN sent again gets in */
	struct pollfd pf = { s, POLLOUT, 0 };
	poll(&pf, 1, 10000);
	printf(", writable: SO_ERROR %d", so_error(s));
	r = conn(s, &a);
	printf(", %s", name(r));
	r = conn(s, &a);
	printf(", %s\n", name(r));
	close(s), close(q), close(l);

	/* blocking with SO_SNDTIMEO, to a full accept queue */
	l = full_listener(&a, &q);
	s = tcp();
	struct timeval tv = { 0, 200000 };
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	r = conn(s, &a);
	printf("SO_SNDTIMEO: %s, O_NONBLOCK %d", name(r), nonblocking(s));
	r = conn(s, &a);
	printf(", again: %s", name(r));
	tv.tv_usec = 0;
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	close(accept(l, NULL, NULL));
	r = conn(s, &a);
	printf(", without a timeout: %s", name(r));
	r = conn(s, &a);
	printf(", %s\n", name(r));
	close(s), close(q), close(l);

	signal_case(0);
	signal_case(1);
	return 0;
}
