/* A server with every task waiting for the network: one in accept, one in
 * read on a connection nobody writes to, main joining them.  They wait
 * for the poller, not for each other: even WEFTDEBUG=deadlock=all reports
 * nothing. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>

#include "deadlock_util.h"

static int lfd, cfd;

static void *acceptor(void *arg)
{
	(void)arg;
	int s = accept(lfd, NULL, NULL); /* the one connection */
	char b[16];
	(void)!read(s, b, sizeof b);    /* nobody writes */
	return NULL;
}

static void *second(void *arg)
{
	(void)arg;
	int s = accept(lfd, NULL, NULL); /* nobody else connects */
	(void)s;
	return NULL;
}

static void child(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	bind(lfd, (struct sockaddr *)&a, sizeof a);
	listen(lfd, 4);
	getsockname(lfd, (struct sockaddr *)&a, &len);
	cfd = socket(AF_INET, SOCK_STREAM, 0);
	connect(cfd, (struct sockaddr *)&a, sizeof a);
	pthread_t t1, t2;
	pthread_create(&t1, NULL, acceptor, NULL);
	pthread_create(&t2, NULL, second, NULL);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
}

int main(int argc, char **argv)
{
	return dl_main(argc, argv, child, "all", NULL, NULL, -1);
}
