/* block_mix: tasks that wait in four ways, each in a function of its own,
 * the stacks a block profile names: nap (nanosleep, 10 x 20 ms),
 * wait_signal (a condition variable signalled every 25 ms, 8 times),
 * wait_pipe (a read on a pipe written every 30 ms, 5 times), and main's
 * join.  Each measures its own waits and prints them on stderr as
 * "FUNCTION NS", for the profile to be compared with.  block_mix N: N
 * such rounds, one after another (weft profile --block watches a long
 * run). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int posted, pfd[2];
static long long nap_ns, signal_ns, pipe_ns;

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void sleep_ms(int ms)
{
	struct timespec d = { 0, ms * 1000000l };
	nanosleep(&d, NULL);
}

__attribute__((noinline)) static void nap(void)
{
	long long t0 = now_ns();
	sleep_ms(20);
	nap_ns += now_ns() - t0;
}

__attribute__((noinline)) static void wait_signal(int want)
{
	long long t0 = now_ns();
	pthread_mutex_lock(&m);
	while (posted < want)
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);
	signal_ns += now_ns() - t0;
}

__attribute__((noinline)) static void wait_pipe(void)
{
	char b;
	long long t0 = now_ns();
	if (read(pfd[0], &b, 1) != 1)
		perror("read");
	pipe_ns += now_ns() - t0;
}

static void *napper(void *a)
{
	for (int i = 0; i < 10; i++)
		nap();
	return a;
}

static void *signalled(void *a)
{
	for (int i = 1; i <= 8; i++)
		wait_signal(i);
	return a;
}

static void *reader(void *a)
{
	for (int i = 0; i < 5; i++)
		wait_pipe();
	return a;
}

static void *poster(void *a)
{
	for (int i = 1; i <= 8; i++) {
		sleep_ms(25);
		pthread_mutex_lock(&m);
		posted = i;
		pthread_cond_signal(&c);
		pthread_mutex_unlock(&m);
		if (i <= 5) {
			sleep_ms(5);
			if (write(pfd[1], "x", 1) != 1)
				perror("write");
		}
	}
	return a;
}

int main(int argc, char **argv)
{
	if (pipe(pfd) != 0)
		return 1;
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	for (int r = 0; r < rounds; r++) {
		pthread_t t[4];
		void *(*fn[4])(void *) = { napper, signalled, reader, poster };
		posted = 0;
		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, fn[i], NULL);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
	}
	printf("done\n");
	fprintf(stderr, "nap %lld\nwait_signal %lld\nwait_pipe %lld\n", nap_ns, signal_ns, pipe_ns);
	return 0;
}
