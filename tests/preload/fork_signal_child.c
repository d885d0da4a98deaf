/* A fork child starts with no signal pending (fork(2)): a signal sent to
 * the parent while a thread forks runs the parent's handler, never the
 * child's.  Another process sends SIGUSR1 to the parent about every 30 us
 * while a thread forks 100 times; each child sleeps a little, yields, and
 * exits with 3 if the handler ran in it. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "weft_check.h"

#define ROUNDS 100

static volatile sig_atomic_t in_child;
static pid_t parent;
static int bad, failed;

static void on_usr1(int sig)
{
	(void)sig;
	if (getpid() != parent)
		in_child = 1;
}

static void *forker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		pid_t p = fork();
		if (p == 0) {
			usleep(2000);
			sched_yield();
			usleep(1000);
			_exit(in_child ? 3 : 0);
		}
		if (p < 0) {
			failed++;
			continue;
		}
		int st;
		while (waitpid(p, &st, 0) < 0)
			;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad++;
	}
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	parent = getpid();
	struct sigaction sa = { 0 };
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	pid_t snd = fork();
	if (snd == 0) {
		for (;;) {
			if (kill(parent, SIGUSR1))
				_exit(0);
			usleep(30);
		}
	}
	pthread_t t;
	pthread_create(&t, NULL, forker, NULL);
	pthread_join(t, NULL);
	kill(snd, SIGKILL);
	waitpid(snd, NULL, 0);
	printf("children that ran the parent's handler or failed: %d of %d; forks failed: %d\n",
	       bad, ROUNDS, failed);
	return 0;
}
