/* system() and popen() from many threads at once, while another thread
 * keeps running: 8 threads call system() (exit statuses checked), 50 call
 * popen()/pclose() (outputs and statuses checked), posix_spawn from a
 * thread, and a counter thread makes progress while system("sleep") runs. */
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "weft_check.h"

extern char **environ;
#define NSYS 8
#define NPOPEN 50

static void *sys(void *arg)
{
	char cmd[64];
	snprintf(cmd, sizeof cmd, "exit %ld", (long)arg);
	int st = system(cmd);
	return (void *)(long)(WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static void *pop(void *arg)
{
	long i = (long)arg;
	char cmd[64], buf[64] = { 0 };
	snprintf(cmd, sizeof cmd, "echo line %ld; exit %ld", i, i % 7);
	FILE *f = popen(cmd, "r");
	if (!f)
		return (void *)-1L;
	if (!fgets(buf, sizeof buf, f))
		buf[0] = 0;
	int st = pclose(f);
	char want[64];
	snprintf(want, sizeof want, "line %ld\n", i);
	if (strcmp(buf, want) != 0)
		return (void *)-2L;
	return (void *)(long)(WIFEXITED(st) ? WEXITSTATUS(st) : -3);
}

static volatile int stop;
static volatile long ticks;
static void *counter(void *arg)
{
	while (!stop) {
		ticks++;
		usleep(1000);
	}
	return NULL;
}

static void *sleeper(void *arg)
{
	int st = system("sleep 0.3");
	return (void *)(long)st;
}

int main(void)
{
	weft_check_loaded();
	pthread_t t[NPOPEN];
	void *r;
	for (long i = 0; i < NSYS; i++)
		pthread_create(&t[i], NULL, sys, (void *)(i + 1));
	int ok = 1;
	for (long i = 0; i < NSYS; i++) {
		pthread_join(t[i], &r);
		if ((long)r != i + 1) {
			printf("system %ld: status %ld\n", i, (long)r);
			ok = 0;
		}
	}
	printf("%d concurrent system() calls: %s\n", NSYS, ok ? "all statuses right" : "WRONG");

	for (long i = 0; i < NPOPEN; i++)
		pthread_create(&t[i], NULL, pop, (void *)i);
	ok = 1;
	for (long i = 0; i < NPOPEN; i++) {
		pthread_join(t[i], &r);
		if ((long)r != i % 7) {
			printf("popen %ld: %ld\n", i, (long)r);
			ok = 0;
		}
	}
	printf("%d concurrent popen() calls: %s\n", NPOPEN, ok ? "all outputs right" : "WRONG");

	/* A thread keeps running while another waits in system(). */
	pthread_t c, s;
	pthread_create(&c, NULL, counter, NULL);
	pthread_create(&s, NULL, sleeper, NULL);
	pthread_join(s, &r);
	long seen = ticks;
	stop = 1;
	pthread_join(c, NULL);
	printf("system(sleep) status %ld; counter ran meanwhile: %s\n", (long)r,
	       seen > 20 ? "yes" : "no");

	pid_t pid;
	char *argv[] = { "sh", "-c", "exit 9", NULL };
	if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) != 0)
		return 1;
	int st;
	waitpid(pid, &st, 0);
	printf("posix_spawn child exited %d\n", WEXITSTATUS(st));
	return 0;
}
