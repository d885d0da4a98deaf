/*
 * libc_single.c — glibc's single-threaded mode.  A process that never made
 * a thread runs glibc's unlocked paths (stdio without FILE locks, malloc
 * without arena locks), and __libc_single_threaded says so; the first
 * pthread_create ends that for good.  Checked: the flag at start and in a
 * fork child; the waits a single task makes (a timed poll on a pipe, a
 * read that a signal ends); stdio from three threads after the switch (no
 * line lost or torn); the flag after the first pthread_create.
 * The flag is read only where its value is the same natively and under
 * weft: a single task's waits may switch glibc under weft (a second
 * worker), which only costs the unlocked paths.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weft_check.h"

#define LINES 2000

static FILE *out;

static void *writer(void *arg)
{
	for (int i = 0; i < LINES; i++)
		fprintf(out, "%s %d\n", (const char *)arg, i);
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
}

int main(void)
{
	weft_check_loaded();
	printf("at start: single %d\n", __libc_single_threaded);
	fflush(stdout);

	pid_t pid = fork();
	if (pid == 0) {
		printf("fork child: single %d\n", __libc_single_threaded);
		fflush(stdout);
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	printf("child exit %d\n", WEXITSTATUS(st));

	/* A wait on a pipe with a timeout: the timer ends it, the pipe
	 * never becomes ready. */
	int p[2];
	if (pipe(p) != 0)
		return 1;
	struct pollfd pf = { .fd = p[0], .events = POLLIN };
	printf("poll: %d\n", poll(&pf, 1, 20));

	/* A blocking read that a signal without SA_RESTART ends. */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { .it_value = { 0, 20000 } };
	setitimer(ITIMER_REAL, &it, NULL);
	char c;
	ssize_t r = read(p[0], &c, 1);
	printf("read: %zd %s\n", r, r < 0 ? strerror(errno) : "");

	/* stdio shared by three threads once glibc has switched: every line
	 * whole, none lost. */
	out = tmpfile();
	if (!out)
		return 1;
	pthread_t a, b;
	pthread_create(&a, NULL, writer, "a");
	printf("after pthread_create: single %d\n", __libc_single_threaded);
	pthread_create(&b, NULL, writer, "b");
	writer("m");
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	rewind(out);
	char line[64];
	int n[3] = { 0, 0, 0 }, bad = 0;
	while (fgets(line, sizeof line, out)) {
		char who;
		int i;
		if (sscanf(line, "%c %d", &who, &i) != 2 || i < 0 || i >= LINES)
			bad++;
		else if (who == 'a' || who == 'b' || who == 'm')
			n[who == 'a' ? 0 : who == 'b' ? 1 : 2]++;
		else
			bad++;
	}
	printf("lines: a %d, b %d, m %d, torn %d\n", n[0], n[1], n[2], bad);
	return 0;
}
