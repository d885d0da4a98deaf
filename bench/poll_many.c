/*
 * poll_many [N [FDS]] — one thread waits in poll(2) on FDS pipes (default
 * 64), another writes one byte to one of them in turn and waits for an
 * acknowledgement on a pipe of its own, N times (default 20,000); prints
 * the time of one round.  Each poll finds nothing ready and blocks: under
 * weft it parks on a private epoll instance watching the set
 * (sched/io/pollwatch.c keeps it for the next wait on the same set).
 */
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include "bench.h"

#define MAXFDS 1024

static int p[MAXFDS][2], ack[2], nfds;
static long rounds;

static void *poller(void *arg)
{
	(void)arg;
	static struct pollfd f[MAXFDS];
	for (int i = 0; i < nfds; i++)
		f[i] = (struct pollfd){ p[i][0], POLLIN, 0 };
	for (long k = 0; k < rounds; k++) {
		if (poll(f, (nfds_t)nfds, -1) < 1)
			abort();
		char c;
		for (int i = 0; i < nfds; i++)
			if ((f[i].revents & POLLIN) && read(p[i][0], &c, 1) != 1)
				abort();
		if (write(ack[1], "a", 1) != 1)
			abort();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	rounds = arg_long(argc, argv, 1, 20000);
	nfds = (int)arg_long(argc, argv, 2, 64);
	if (nfds < 1 || nfds > MAXFDS)
		return fprintf(stderr, "poll_many: FDS is 1..%d\n", MAXFDS), 1;
	for (int i = 0; i < nfds; i++)
		if (pipe(p[i]))
			return perror("pipe"), 1;
	if (pipe(ack))
		return perror("pipe"), 1;
	pthread_t t;
	pthread_create(&t, NULL, poller, NULL);
	double t0 = now_s();
	for (long k = 0; k < rounds; k++) {
		char c = 'x';
		if (write(p[k % nfds][1], &c, 1) != 1 || read(ack[0], &c, 1) != 1)
			abort();
	}
	double t1 = now_s();
	pthread_join(t, NULL);
	printf("poll_many: %d descriptors, %.2f us per round\n", nfds, (t1 - t0) / rounds * 1e6);
	return 0;
}
