/* 1000 threads blocked in read(2) on pipes, then 1000 on sockets: under weft
 * they park on the poller, so the process keeps at most GOMAXPROCS + 3 OS
 * threads while they wait (natively: one thread each).  Every reader gets
 * its own byte back. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "test_util.h"
#include "weft_check.h"

#define N 1000

static int fds[N][2];

static void *reader(void *arg)
{
	long i = (long)arg;
	unsigned char c = 0;
	if (read(fds[i][0], &c, 1) != 1)
		return (void *)-1L;
	return (void *)(long)c;
}

static int round_of(const char *what, int sockets)
{
	pthread_t t[N];
	for (long i = 0; i < N; i++) {
		int r = sockets ? socketpair(AF_UNIX, SOCK_STREAM, 0, fds[i]) : pipe(fds[i]);
		if (r)
			return perror("pipe/socketpair"), 1;
		if (pthread_create(&t[i], NULL, reader, (void *)i))
			return perror("pthread_create"), 1;
	}
	usleep(100000); /* let them block; the outcome does not depend on it */
	long th = os_threads();
	/* Natively each reader is a thread; under weft they must not be. */
	int bounded = !weft_loaded() || th <= procs() + 3;
	printf("%s: threads bounded while %d readers wait: %s\n", what, N, bounded ? "yes" : "NO");
	if (!bounded)
		fprintf(stderr, "%s: %ld OS threads with GOMAXPROCS=%ld\n", what, th, procs());
	for (int i = 0; i < N; i++) {
		unsigned char c = (unsigned char)(i % 251);
		if (write(fds[i][1], &c, 1) != 1)
			return perror("write"), 1;
	}
	int bad = 0;
	for (int i = 0; i < N; i++) {
		void *r;
		pthread_join(t[i], &r);
		if ((long)r != i % 251)
			bad++;
		close(fds[i][0]);
		close(fds[i][1]);
	}
	printf("%s: %d readers got the wrong byte\n", what, bad);
	return bounded && !bad ? 0 : 1;
}

int main(void)
{
	weft_check_loaded();
	int rc = round_of("pipes", 0);
	rc |= round_of("sockets", 1);
	return rc;
}
