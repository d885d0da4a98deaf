/* Blocking reads on a pipe by a task that has the process to itself (weft
 * then makes the read itself, on its worker, instead of parking on the
 * poller): what arrives from another process, and what ends such a read
 * the way it ends a native one.
 *  1. a child process writes 5 messages 20 ms apart; the parent, alone,
 *     reads them one read each;
 *  2. a thread blocked in read is cancelled by main after 100 ms;
 *  3. a thread blocked in read gets a SIGUSR1 from main: without
 *     SA_RESTART the read fails with EINTR; with SA_RESTART it goes on and
 *     returns what main writes after;
 *  4. a thread blocked in read sees end of file when main closes the
 *     write end;
 *  5. a thread blocked in write on a full pipe finishes when main drains it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"

static int p[2];
static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

static void *reader(void *arg)
{
	(void)arg;
	char buf[64];
	ssize_t n = read(p[0], buf, sizeof buf - 1);
	int e = errno;
	if (n > 0) {
		buf[n] = 0;
		printf("  read %zd: %s\n", n, buf);
	} else {
		printf("  read %zd: %s\n", n, n < 0 ? strerrorname_np(e) : "end of file");
	}
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	static char big[1 << 20];
	size_t left = sizeof big;
	while (left) {
		ssize_t n = write(p[1], big, left);
		if (n <= 0)
			break;
		left -= (size_t)n;
	}
	printf("  wrote all: %s\n", left ? "no" : "yes");
	return NULL;
}

static void with_reader(const char *what, void (*act)(pthread_t))
{
	printf("%s\n", what);
	pipe(p);
	pthread_t t;
	pthread_create(&t, NULL, reader, NULL);
	nap(100);
	act(t);
	void *r;
	pthread_join(t, &r);
	if (r == PTHREAD_CANCELED)
		printf("  cancelled\n");
	close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
}

static void cancel(pthread_t t)
{
	pthread_cancel(t);
}

static void usr1(pthread_t t)
{
	pthread_kill(t, SIGUSR1);
	nap(50);
	write(p[1], "after", 5);
}

static void eof(pthread_t t)
{
	(void)t;
	close(p[1]);
	p[1] = -1;
}

int main(void)
{
	weft_check_loaded();
	setvbuf(stdout, NULL, _IONBF, 0);

	printf("messages from a child process\n");
	pipe(p);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		for (int i = 0; i < 5; i++) {
			nap(20);
			char m[16];
			int n = snprintf(m, sizeof m, "message %d", i);
			write(p[1], m, (size_t)n);
		}
		_exit(0);
	}
	close(p[1]);
	for (;;) {
		char buf[64];
		ssize_t n = read(p[0], buf, sizeof buf - 1);
		if (n <= 0) {
			printf("  read %zd\n", n);
			break;
		}
		buf[n] = 0;
		printf("  %s\n", buf);
	}
	close(p[0]);
	int st;
	waitpid(pid, &st, 0);

	with_reader("cancel", cancel);

	struct sigaction sa = { 0 };
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	with_reader("SIGUSR1 without SA_RESTART", usr1);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	with_reader("SIGUSR1 with SA_RESTART", usr1);
	printf("handlers run: %d\n", (int)handled);

	with_reader("end of file", eof);

	printf("write to a full pipe\n");
	pipe(p);
	pthread_t w;
	pthread_create(&w, NULL, writer, NULL);
	nap(100);
	char buf[65536];
	size_t got = 0;
	while (got < (1 << 20)) {
		ssize_t n = read(p[0], buf, sizeof buf);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	pthread_join(w, NULL);
	printf("  drained %zu bytes\n", got);
	return 0;
}
