/* connect: N threads each call a blocking connect(2) to a loopback
 * listener whose accept queue is full (backlog 1, nobody accepts), so
 * every connect waits in SYN_SENT; then the backlog grows and an acceptor
 * takes them all.  Prints the OS threads while they wait and the time from
 * the acceptor's start until every connect returned.
 * usage: connect [N] */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include "bench.h"

static struct sockaddr_in addr;
static atomic_int started, connected, failed;

static void *client(void *arg)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	atomic_fetch_add(&started, 1);
	if (s < 0 || connect(s, (struct sockaddr *)&addr, sizeof addr) != 0)
		atomic_fetch_add(&failed, 1);
	else
		atomic_fetch_add(&connected, 1);
	return (void *)(long)s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 8000;
	int l = socket(AF_INET, SOCK_STREAM, 0);
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t al = sizeof addr;
	if (bind(l, (struct sockaddr *)&addr, sizeof addr) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&addr, &al))
		return perror("listen"), 1;
	pthread_t *t = calloc(n, sizeof *t);
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], &a, client, NULL))
			return perror("pthread_create"), 1;
	while (atomic_load(&started) < n)
		usleep(10000);
	usleep(500000);
	printf("OS threads while %ld connects wait: %ld\n", n, proc_status("Threads"));
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	listen(l, 65535);
	for (long i = 0; i < n; i++) {
		int c = accept(l, NULL, NULL);
		if (c < 0)
			return perror("accept"), 1;
		close(c);
	}
	for (long i = 0; i < n; i++) {
		void *s;
		pthread_join(t[i], &s);
		close((int)(long)s);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("connected: %d, failed: %d\n", atomic_load(&connected), atomic_load(&failed));
	printf("all connected after: %.2f s\n",
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
	return 0;
}
