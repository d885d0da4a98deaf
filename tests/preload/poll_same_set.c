/*
 * poll and select waiting again and again on the same set of descriptors,
 * while the set's numbers change under them.  Under weft a task keeps the
 * epoll instance of its last wait on many descriptors for the next wait on
 * the same set (sched/io/pollwatch.c); these must still hold:
 *   - a number closed and opened again as another pipe (same numbers, same
 *     set) is watched as the new pipe: the wait wakes for its data;
 *   - dup2 onto a number of the set does the same;
 *   - after close_range closed everything, weft's instance among it, and
 *     the program put its own descriptors on the numbers 100-149 (where
 *     weft's instance was), a wait on another set leaves every one of
 *     them open: weft never closes a number it no longer owns (but its
 *     poller's and ring's, which it keeps);
 *   - a fork child waits on the set its parent kept, and so does the
 *     parent after it;
 *   - select on the same sets, likewise.
 * A writer thread writes to one pipe of the set after the waiter has
 * begun waiting (it waits for the waiter's signal first, then a moment).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weft_check.h"

#define N 8

static int p[N][2];
static sem_t go;
static volatile int target;

static void *writer(void *arg)
{
	(void)arg;
	for (;;) {
		sem_wait(&go);
		if (target < 0)
			return NULL;
		usleep(20000);
		char c = 'x';
		if (write(p[target][1], &c, 1) != 1)
			printf("write failed\n");
	}
}

/* Polls the N read ends; the writer writes to pipe `which`.  Returns the
 * index found readable, -1 for none, after reading its byte. */
static int wait_poll(int which)
{
	struct pollfd f[N];
	for (int i = 0; i < N; i++)
		f[i] = (struct pollfd){ p[i][0], POLLIN, 0 };
	target = which;
	sem_post(&go);
	int r = poll(f, N, 10000);
	int got = -1;
	for (int i = 0; i < N && r > 0; i++)
		if (f[i].revents & POLLIN) {
			char c;
			if (read(p[i][0], &c, 1) == 1)
				got = i;
		}
	return got;
}

static int wait_select(int which)
{
	fd_set rs;
	FD_ZERO(&rs);
	int max = 0;
	for (int i = 0; i < N; i++) {
		FD_SET(p[i][0], &rs);
		if (p[i][0] > max)
			max = p[i][0];
	}
	target = which;
	sem_post(&go);
	struct timeval tv = { 10, 0 };
	int r = select(max + 1, &rs, NULL, NULL, &tv);
	int got = -1;
	for (int i = 0; i < N && r > 0; i++)
		if (FD_ISSET(p[i][0], &rs)) {
			char c;
			if (read(p[i][0], &c, 1) == 1)
				got = i;
		}
	return got;
}

static void make_pipes(void)
{
	for (int i = 0; i < N; i++)
		if (pipe(p[i]) != 0)
			exit(2);
}

int main(void)
{
	weft_check_loaded();
	sem_init(&go, 0, 0);
	make_pipes();
	pthread_t w;
	pthread_create(&w, NULL, writer, NULL);

	int ok = 0;
	for (int k = 0; k < 20; k++)
		ok += wait_poll(k % N) == k % N;
	printf("poll, same set: %d of 20\n", ok);

	/* Pipe 3 closed and made again: the same numbers, another pipe. */
	int r3 = p[3][0], w3 = p[3][1];
	close(p[3][0]);
	close(p[3][1]);
	if (pipe(p[3]) != 0)
		return 2;
	printf("same numbers again: %s\n", p[3][0] == r3 && p[3][1] == w3 ? "yes" : "no");
	printf("poll, the new pipe: %s\n", wait_poll(3) == 3 ? "woke" : "missed");

	/* dup2 of a new pipe onto pipe 5's numbers. */
	int q[2];
	if (pipe(q) != 0)
		return 2;
	dup2(q[0], p[5][0]);
	dup2(q[1], p[5][1]);
	close(q[0]);
	close(q[1]);
	printf("poll, dup2 onto a number of the set: %s\n", wait_poll(5) == 5 ? "woke" : "missed");

	ok = 0;
	for (int k = 0; k < 10; k++)
		ok += wait_select(k % N) == k % N;
	printf("select, same set: %d of 10\n", ok);

	/* A fork child on the set its parent kept. */
	pid_t c = fork();
	if (c == 0) {
		struct pollfd f[N];
		for (int i = 0; i < N; i++)
			f[i] = (struct pollfd){ p[i][0], POLLIN, 0 };
		char x = 'y';
		if (write(p[6][1], &x, 1) != 1)
			_exit(3);
		int r = poll(f, N, 10000);
		_exit(r == 1 && (f[6].revents & POLLIN) ? 0 : 4);
	}
	int st = 0;
	waitpid(c, &st, 0);
	char x;
	if (read(p[6][0], &x, 1) != 1)
		printf("read failed\n");
	printf("fork child: exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	printf("poll after the fork: %s\n", wait_poll(1) == 1 ? "woke" : "missed");

	/* Everything closed; the program's descriptors on 100-149. */
	target = -1;
	sem_post(&go);
	pthread_join(w, NULL);
	syscall(SYS_close_range, 3, ~0u, 0);
	int d[2];
	if (pipe(d) != 0)
		return 2;
	/* (weft's own poller and ring keep their numbers: dup2 onto them
	 * fails with EBUSY) */
	char placed[150] = { 0 };
	for (int fd = 100; fd < 150; fd++)
		placed[fd] = dup2(d[0], fd) == fd;
	make_pipes();
	sem_init(&go, 0, 0);
	pthread_create(&w, NULL, writer, NULL);
	ok = 0;
	for (int k = 0; k < 4; k++)
		ok += wait_poll(k) == k;
	struct pollfd two[2] = { { p[0][0], POLLIN, 0 }, { p[1][0], POLLIN, 0 } };
	target = 1;
	sem_post(&go);
	ok += poll(two, 2, 10000) == 1 && (two[1].revents & POLLIN);
	/* Still the program's pipe (a number weft closed may be weft's again). */
	struct stat pipe_st, fst;
	fstat(d[0], &pipe_st);
	int closed = 0, n_placed = 0;
	for (int fd = 100; fd < 150; fd++) {
		n_placed += placed[fd];
		closed += placed[fd] && (fstat(fd, &fst) != 0 || fst.st_ino != pipe_st.st_ino);
	}
	printf("after close_range: placed at least 40: %s, waits %d of 5, closed since: %d\n",
	       n_placed >= 40 ? "yes" : "no", ok, closed);
	target = -1;
	sem_post(&go);
	pthread_join(w, NULL);
	return 0;
}
