/* vfork children that change what a child may change: their signal
 * dispositions, their mask, their descriptors.  A vfork child shares the
 * parent's memory but not its kernel state, so none of it may reach the
 * parent: its handler still runs, a thread still reads the pipe it waits
 * on, its mask is as it was.  Each child checks what it starts with (the
 * program's dispositions and the calling thread's mask, read from the
 * kernel) and reports by exit status.  While a child lives, a thread that
 * never blocks goes on counting.  Printed lines are the
 * same natively and under weft. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"

#define THREADS 4
#define ROUNDS 25

static int pfd[2];
static volatile sig_atomic_t usr1;
static volatile int stop;
static volatile long spins;

static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

/* A line of /proc/thread-self/status, as a hexadecimal mask. */
static unsigned long long status_mask(const char *key)
{
	char buf[4096];
	int fd = open("/proc/thread-self/status", O_RDONLY);
	if (fd < 0)
		return ~0ull;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return ~0ull;
	buf[n] = 0;
	char *p = strstr(buf, key);
	return p ? strtoull(p + strlen(key), NULL, 16) : ~0ull;
}

#define BIT(s) (1ull << ((s) - 1))

/* The child: 0 when all it found was right. */
static int child(void)
{
	int bad = 0;
	/* Caught: SIGUSR1 alone, the program's only handler (32 and 33 are
	 * glibc's own, set up by its pthread_create). */
	if ((status_mask("SigCgt:\t") & ~(BIT(32) | BIT(33))) != BIT(SIGUSR1))
		bad |= 1;
	/* Blocked: the calling thread's SIGUSR2, nothing else. */
	if (status_mask("SigBlk:\t") != BIT(SIGUSR2))
		bad |= 2;
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	if (sigaction(SIGUSR1, &sa, &old) != 0 || old.sa_handler != on_usr1)
		bad |= 4;
	/* The pipe's read end, replaced and closed in the child only. */
	int nul = open("/dev/null", O_RDONLY);
	if (nul < 0 || dup2(nul, pfd[0]) != pfd[0] || close(pfd[0]) != 0)
		bad |= 8;
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	struct timespec ts = { 0, 2000000 };
	nanosleep(&ts, NULL);
	return bad;
}

static void *vforker(void *arg)
{
	long *fails = arg;
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &m, NULL);
	for (int r = 0; r < ROUNDS; r++) {
		pid_t pid = vfork();
		if (pid == 0)
			_exit(child());
		int st;
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
			if (*fails == 0)
				fprintf(stderr, "child: status %#x\n", pid < 0 ? -1 : st);
			++*fails;
		}
	}
	sigset_t now;
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	if (!sigismember(&now, SIGUSR2) || sigismember(&now, SIGUSR1))
		++*fails;
	return NULL;
}

static void *reader(void *arg)
{
	char c;
	*(ssize_t *)arg = read(pfd[0], &c, 1);
	return NULL;
}

static void *spinner(void *arg)
{
	(void)arg;
	while (!stop)
		spins++;
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	if (pipe(pfd) != 0)
		return 1;

	ssize_t got = -2;
	pthread_t rd, sp, th[THREADS];
	long fails[THREADS] = { 0 };
	pthread_create(&rd, NULL, reader, &got);
	pthread_create(&sp, NULL, spinner, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, vforker, &fails[i]);
	long total = 0;
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		total += fails[i];
	}
	printf("vfork children: %d, wrong: %ld\n", THREADS * ROUNDS, total);

	/* The calling thread waits for the child; other threads go on (a
	 * child reads the shared counter before and after a sleep). */
	pid_t pid = vfork();
	if (pid == 0) {
		long before = spins;
		struct timespec ts = { 0, 50000000 };
		nanosleep(&ts, NULL);
		_exit(spins != before ? 0 : 1);
	}
	int st;
	int ran = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	stop = 1;
	pthread_join(sp, NULL);
	printf("counting thread ran while a child lived: %s\n", ran ? "yes" : "no");

	/* The parent's state after it all. */
	if (write(pfd[1], "x", 1) != 1)
		return 1;
	pthread_join(rd, NULL);
	printf("reader of the pipe got: %zd\n", got);
	raise(SIGUSR1);
	printf("handler ran: %d\n", (int)usr1);
	struct sigaction cur;
	sigaction(SIGUSR1, NULL, &cur);
	printf("handler kept: %s\n", cur.sa_handler == on_usr1 ? "yes" : "no");
	return total != 0 || !ran;
}
