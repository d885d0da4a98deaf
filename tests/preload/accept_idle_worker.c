/*
 * accept_idle_worker — a blocking accept() whose thread's OS thread under
 * weft later blocks in another thread's system call and then gives its
 * OS thread back as an idle worker: the accept still gets its connection,
 * as natively.  (weft makes a blocking accept with io_uring, submitted by
 * the worker that ran the call; the kernel cancels a call when the thread
 * that submitted it exits, and the accept failed with ECANCELED.)
 *
 * The program runs itself again with WEFT_THREAD_IDLE_MS=100 (an idle
 * worker's thread exits after 100 ms instead of 1 s; natively nothing
 * reads it).  Four times, a blocker thread and an acceptor thread are
 * made: the acceptor accepts on a listener of its own, the blocker then
 * waits in semop until main posts.  After the posts and 600 ms, main
 * connects to each listener, and each acceptor says what its accept gave.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "weft_check.h"

#define PAIRS 4

static int lfd[PAIRS], sem;
static struct sockaddr_in addr[PAIRS];
static char result[PAIRS][64];

static void ms_sleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static void *acceptor(void *arg)
{
	long i = (long)arg;
	int c = accept(lfd[i], NULL, NULL);
	if (c >= 0) {
		snprintf(result[i], sizeof result[i], "a connection");
		close(c);
	} else {
		snprintf(result[i], sizeof result[i], "error %s", strerror(errno));
	}
	return NULL;
}

static void *blocker(void *arg)
{
	(void)arg;
	struct sembuf down = { 0, -1, 0 };
	while (semop(sem, &down, 1) != 0 && errno == EINTR)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	weft_check_loaded();
	if (!getenv("WEFT_THREAD_IDLE_MS")) {
		setenv("WEFT_THREAD_IDLE_MS", "100", 1);
		execv("/proc/self/exe", argv);
		perror("accept_idle_worker: execv");
		return 1;
	}
	(void)argc;
	sem = semget(IPC_PRIVATE, 1, 0600);
	if (sem < 0)
		return perror("semget"), 1;
	for (int i = 0; i < PAIRS; i++) {
		lfd[i] = socket(AF_INET, SOCK_STREAM, 0);
		addr[i].sin_family = AF_INET;
		addr[i].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		socklen_t al = sizeof addr[i];
		if (bind(lfd[i], (struct sockaddr *)&addr[i], sizeof addr[i]) != 0 ||
		    listen(lfd[i], 4) != 0 ||
		    getsockname(lfd[i], (struct sockaddr *)&addr[i], &al) != 0)
			return perror("listener"), 1;
	}
	pthread_t a[PAIRS], b[PAIRS];
	for (long i = 0; i < PAIRS; i++) {
		pthread_create(&b[i], NULL, blocker, NULL);
		pthread_create(&a[i], NULL, acceptor, (void *)i);
		ms_sleep(50);
	}
	struct sembuf up = { 0, PAIRS, 0 };
	semop(sem, &up, 1);
	for (int i = 0; i < PAIRS; i++)
		pthread_join(b[i], NULL);
	ms_sleep(600); /* idle workers' threads exit meanwhile */
	for (int i = 0; i < PAIRS; i++) {
		int c = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(c, (struct sockaddr *)&addr[i], sizeof addr[i]) != 0)
			perror("connect");
		pthread_join(a[i], NULL);
		close(c);
		printf("accept %d: %s\n", i, result[i]);
	}
	semctl(sem, 0, IPC_RMID);
	return 0;
}
