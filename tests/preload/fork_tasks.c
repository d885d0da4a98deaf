/* fork from a thread that is not main while 100 other threads are parked:
 * the child continues with the forking thread alone, creates and joins 100
 * threads of its own, uses a mutex the parent's threads were parked on, and
 * exits with a status the parent checks (waitpid from a thread).  Then
 * fork+exec of /bin/echo from a thread, and exec from a thread while other
 * threads run (the child process execs; the kernel ends its threads). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "weft_check.h"

#define PARKED 100
#define CHILD_THREADS 100

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
/* The parkers tell main on a condvar of its own: a broadcast on cv would
 * wake parkers already waiting, and one of them could hold mu at the fork
 * (natively about 1 run in 10). */
static pthread_cond_t cv_main = PTHREAD_COND_INITIALIZER;
static int go, parked;
static int atexit_fd = -1;

static void *parker(void *arg)
{
	pthread_mutex_lock(&mu);
	parked++;
	pthread_cond_signal(&cv_main);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return arg;
}

static long child_sum;
static void *child_worker(void *arg)
{
	pthread_mutex_lock(&mu);
	child_sum += (long)arg;
	pthread_mutex_unlock(&mu);
	usleep(1000);
	return (void *)((long)arg * 2);
}

static void on_exit_child(void)
{
	if (atexit_fd >= 0)
		if (write(atexit_fd, "atexit\n", 7) != 7)
			_exit(90);
}

/* Runs in the child, on the forking thread. */
static int child_main(pthread_t self_before)
{
	if (!pthread_equal(self_before, pthread_self()))
		return 10;
	/* The parked threads are gone; their mutex is free (they waited in
	 * cond_wait, not holding it). */
	if (pthread_mutex_trylock(&mu) != 0)
		return 11;
	pthread_mutex_unlock(&mu);
	pthread_t t[CHILD_THREADS];
	for (long i = 0; i < CHILD_THREADS; i++)
		if (pthread_create(&t[i], NULL, child_worker, (void *)(i + 1)))
			return 12;
	long joined = 0;
	for (int i = 0; i < CHILD_THREADS; i++) {
		void *r;
		if (pthread_join(t[i], &r))
			return 13;
		joined += (long)r;
	}
	if (child_sum != CHILD_THREADS * (CHILD_THREADS + 1) / 2 || joined != 2 * child_sum)
		return 14;
	return 42;
}

static void *forker(void *arg)
{
	int p[2];
	if (pipe(p))
		return (void *)1L;
	pthread_t me = pthread_self();
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return (void *)2L;
	if (pid == 0) {
		close(p[0]);
		atexit_fd = p[1];
		atexit(on_exit_child);
		exit(child_main(me)); /* exit: atexit handlers run, as natively */
	}
	close(p[1]);
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return (void *)3L;
	char buf[32] = { 0 };
	ssize_t n = read(p[0], buf, sizeof buf - 1);
	close(p[0]);
	printf("child exited %d, said %s", WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st),
	       n > 0 ? buf : "nothing\n");
	return NULL;
}

static void *fork_exec_echo(void *arg)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		execl("/bin/echo", "echo", "echo from", (char *)arg, (char *)NULL);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	return (void *)(long)(WIFEXITED(st) ? WEXITSTATUS(st) : 128);
}

static volatile int spin_stop;
static void *spinner(void *arg)
{
	while (!spin_stop)
		usleep(100);
	return arg;
}

/* In a child: threads running, one of them calls exec. */
static void *execer(void *arg)
{
	usleep(2000);
	execl("/bin/sh", "sh", "-c", "echo exec from a thread; exit 5", (char *)NULL);
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	pthread_t t[PARKED];
	for (int i = 0; i < PARKED; i++)
		pthread_create(&t[i], NULL, parker, NULL);
	pthread_mutex_lock(&mu);
	while (parked < PARKED)
		pthread_cond_wait(&cv_main, &mu);
	pthread_mutex_unlock(&mu);

	pthread_t f;
	void *r;
	pthread_create(&f, NULL, forker, NULL);
	pthread_join(f, &r);
	printf("forker returned %ld\n", (long)r);

	pthread_mutex_lock(&mu);
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < PARKED; i++)
		pthread_join(t[i], NULL);
	printf("parked threads joined\n");

	pthread_create(&f, NULL, fork_exec_echo, "a thread");
	pthread_join(f, &r);
	printf("echo exited %ld\n", (long)r);

	/* A child that runs threads, one of which execs. */
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		pthread_t s[4], e;
		for (int i = 0; i < 4; i++)
			pthread_create(&s[i], NULL, spinner, NULL);
		pthread_create(&e, NULL, execer, NULL);
		pthread_join(e, NULL);
		_exit(99); /* exec failed */
	}
	int st;
	waitpid(pid, &st, 0);
	printf("exec child exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
