/* 200 threads block in accept(2) on one blocking listener; connections
 * arrive one at a time.  Each connection goes to exactly one of them, and
 * the others go on waiting (accept(2)): under weft they stay parked, so the
 * losers of each race hold no OS thread (natively: one thread each).
 * Then SO_RCVTIMEO ends an accept with EAGAIN (socket(7)), and the
 * listener's O_NONBLOCK stays clear throughout. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "test_util.h"
#include "weft_check.h"

#define N 200

static int l;
static struct sockaddr_in addr;
static atomic_int accepted, waiting;

static void *acceptor(void *arg)
{
	atomic_fetch_add(&waiting, 1);
	int c = accept(l, NULL, NULL);
	if (c < 0)
		return perror("accept"), NULL;
	atomic_fetch_add(&accepted, 1);
	char ch;
	if (read(c, &ch, 1) != 1)
		perror("read");
	close(c);
	return arg;
}

int main(void)
{
	weft_check_loaded();
	if ((l = loopback_listen(&addr, 64)) < 0)
		return 1;
	pthread_t t[N];
	for (long i = 0; i < N; i++)
		pthread_create(&t[i], NULL, acceptor, (void *)i);
	while (atomic_load(&waiting) < N)
		usleep(10000);
	usleep(100000);
	long peak = 0;
	int c[N];
	for (int i = 0; i < N; i++) {
		c[i] = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(c[i], (struct sockaddr *)&addr, sizeof addr))
			return perror("connect"), 1;
		while (atomic_load(&accepted) < i + 1)
			usleep(1000);
		if (i % 50 == 0) {
			usleep(20000); /* the losers of this race settle */
			long th = os_threads();
			if (th > peak)
				peak = th;
		}
	}
	for (int i = 0; i < N; i++) {
		if (write(c[i], "x", 1) != 1)
			perror("write");
	}
	for (int i = 0; i < N; i++) {
		pthread_join(t[i], NULL);
		close(c[i]);
	}
	printf("%d connections, %d accepted\n", N, atomic_load(&accepted));
	/* Natively every acceptor is a thread; under weft the losers must not be.
	 * Without io_uring (ENOSYS under qemu-user, EPERM where it is disabled)
	 * weft's accept waits for readiness and then makes the plain call, so
	 * each loser of a race holds a thread as natively. */
	int bounded = !weft_loaded() || peak <= procs() + 8 ||
		      (!have_io_uring() && peak <= N + procs() + 8);
	if (!bounded)
		fprintf(stderr, "%ld OS threads with GOMAXPROCS=%ld\n", peak, procs());
	struct timeval tv = { 0, 100000 };
	setsockopt(l, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	int r = accept(l, NULL, NULL);
	printf("SO_RCVTIMEO: %d %s, O_NONBLOCK %d\n", r, r < 0 && errno == EAGAIN ? "EAGAIN" : "?",
	       !!(fcntl(l, F_GETFL) & O_NONBLOCK));
	return bounded ? 0 : 1;
}
