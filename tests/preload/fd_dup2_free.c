/* A program that dup2s onto descriptor numbers it knows free owns them: no
 * other part of the process may read from them, close them, or make the
 * dup2 fail.  One thread sleeps in a raw blocking system call
 * (syscall(SYS_read) on a pipe, which the runtime may look at from
 * outside) and wakes every 20 ms, and another thread is always runnable
 * (so the blocked one's processor is wanted), and a third polls two quiet
 * pipes with a 1 ms timeout over and over (weft may watch them with an
 * epoll instance of the call's own); the main thread meanwhile dup2s a pipe's
 * ends onto the 32 lowest numbers free at start, checks that each still
 * holds the pipe, and closes them again, while a byte waits in the pipe;
 * then reads it back.  Every
 * byte must come back, every dup2 must succeed, no number may be closed
 * behind the program's back.
 *
 * Runs FD_DUP2_SECONDS seconds (default 2; the figures reported for this
 * check use 10). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"

static int bp[2];               /* the blocked thread's pipe */
static atomic_int stop;

static void *blocker(void *arg)
{
	(void)arg;
	char c;
	while (!atomic_load(&stop)) {
		sched_yield(); /* back in the runtime's hands between the reads */
		if (syscall(SYS_read, bp[0], &c, 1) <= 0)
			break;
	}
	return NULL;
}

/* Always runnable: the blocked thread's processor is wanted, so the
 * runtime looks at the blocked call. */
static void *spinner(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		for (volatile int i = 0; i < 100000; i++)
			;
		sched_yield();
	}
	return NULL;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Two pipes nobody writes to, polled together: every poll times out. */
static int qa[2], qb[2];
static atomic_long poll_wrong;

static void *poller(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		struct pollfd f[2] = { { qa[0], POLLIN, 0 }, { qb[0], POLLIN, 0 } };
		if (poll(f, 2, 1) != 0)
			atomic_fetch_add(&poll_wrong, 1);
	}
	return NULL;
}

/* The lowest number above `after` that holds nothing. */
static int lowest_free(int after)
{
	for (int fd = after + 1; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF)
			return fd;
	return -1;
}

static int same_file(int fd, const struct stat *ref)
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_ino == ref->st_ino && st.st_dev == ref->st_dev;
}

int main(void)
{
	weft_check_loaded();
	const char *e = getenv("FD_DUP2_SECONDS");
	double secs = e ? atof(e) : 2;
	int p[2];
	if (pipe(bp) != 0 || pipe(p) != 0 || pipe(qa) != 0 || pipe(qb) != 0)
		return 1;
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	struct stat pst;
	fstat(p[0], &pst);
	pthread_t th, sp, pl;
	pthread_create(&th, NULL, blocker, NULL);
	pthread_create(&sp, NULL, spinner, NULL);
	pthread_create(&pl, NULL, poller, NULL);
	long rounds = 0, dup_fail = 0, ebusy = 0, lost = 0, wrong = 0, closed = 0, wfail = 0;
	const char *wk = getenv("FD_DUP2_WAKE_MS");
	double wake_s = (wk ? atof(wk) : 20) / 1000, end = now() + secs, tick = now();
	/* The numbers free at start, up to 32 of them, used again every
	 * round: free between rounds, where anything else that opens a file
	 * would land. */
	int set[32], n = 0;
	for (int fd = lowest_free(2); fd >= 0 && n < 32; fd = lowest_free(fd))
		set[n++] = fd;
	if (n < 32)
		return 1;
	while (now() < end) {
		rounds++;
		/* A byte waits in the pipe all through the round. */
		char c = (char)rounds, got = 0;
		if (write(p[1], &c, 1) != 1)
			wfail++;
		for (int i = 0; i < n; i++)
			if (dup2(p[i & 1], set[i]) != set[i]) {
				dup_fail++;
				ebusy += errno == EBUSY;
				set[i] = -set[i] - 1;
			}
		for (int i = 0; i < n; i++)
			if (set[i] >= 0 && !same_file(set[i], &pst))
				closed++;
		for (int i = 0; i < n; i++) {
			if (set[i] < 0)
				set[i] = -set[i] - 1;
			else
				close(set[i]);
		}
		ssize_t k = read(p[0], &got, 1);
		if (k != 1)
			lost++;
		else if (got != c)
			wrong++;
		/* Anything left over in the pipe came from someone else. */
		while (read(p[0], &got, 1) == 1)
			wrong++;
		if (now() - tick > wake_s) {
			tick = now();
			if (write(bp[1], "x", 1) != 1)
				break;
		}
	}
	atomic_store(&stop, 1);
	if (write(bp[1], "x", 1) != 1)
		return 1;
	pthread_join(th, NULL);
	pthread_join(sp, NULL);
	pthread_join(pl, NULL);
	if (getenv("FD_DUP2_VERBOSE"))
		fprintf(stderr, "rounds %ld dup2-failed %ld (EBUSY %ld) lost %ld wrong %ld closed %ld "
			"write-failed %ld polls-wrong %ld\n", rounds, dup_fail, ebusy, lost, wrong, closed,
			wfail, atomic_load(&poll_wrong));
	printf("rounds: %s\n", rounds > 100 ? "many" : "few");
	printf("dup2 failed: %ld (EBUSY %ld)\n", dup_fail, ebusy);
	printf("bytes lost: %ld, wrong: %ld\n", lost, wrong);
	printf("closed behind the program: %ld, writes failed: %ld\n", closed, wfail);
	printf("polls of quiet pipes that did not time out: %ld\n", atomic_load(&poll_wrong));
	printf("pipe intact: %s\n", same_file(p[0], &pst) && same_file(p[1], &pst) ? "yes" : "no");
	return 0;
}
