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
 *  5. a thread blocked in write on a full pipe finishes when main drains it;
 *  6. a child process with one thread, blocked in read, gets SIGUSR1 from
 *     the parent: EINTR without SA_RESTART, the data written after with
 *     it (the child's exit status carries what it saw). */
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

/* Case 6: the child's only thread reads; 1 EINTR, 2 the data, else 3. */
static int lone_child(int restart)
{
	int q[2];
	pipe(q);
	pid_t pid = fork();
	if (pid == 0) {
		close(q[1]);
		struct sigaction sa = { 0 };
		sa.sa_handler = on_usr1;
		sa.sa_flags = restart ? SA_RESTART : 0;
		sigaction(SIGUSR1, &sa, NULL);
		char c;
		ssize_t n = read(q[0], &c, 1);
		_exit(n < 0 && errno == EINTR ? 1 : n == 1 && c == 'z' ? 2 : 3);
	}
	close(q[0]);
	nap(150);
	kill(pid, SIGUSR1);
	nap(50);
	write(q[1], "z", 1);
	int st;
	waitpid(pid, &st, 0);
	close(q[1]);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
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

	signal(SIGPIPE, SIG_IGN); /* the EINTR child has gone when the byte comes */
	int plain = lone_child(0), restart = lone_child(1);
	printf("a lone child's read and SIGUSR1: without SA_RESTART %d, with %d "
	       "(1 EINTR, 2 the data)\n", plain, restart);
	return 0;
}
