/*
 * Signals sent to the process go to the main thread when it does not
 * block them, and cut its sleep or read short, as the kernel does: a
 * thread kill()s the process while main sleeps, then alarm() fires while
 * main reads a pipe with no SA_RESTART.  The handler must run on main,
 * with the sender's siginfo, and the calls must end early.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "test_util.h"
#include "weft_check.h"

static pthread_t main_thread;
static volatile sig_atomic_t on_main, ran, code_ok;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int done;

static void handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	ran++;
	on_main += pthread_equal(pthread_self(), main_thread) != 0;
	if (sig == SIGUSR1)
		code_ok = si->si_code == SI_USER && si->si_pid == getpid();
}

static void *idle(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	while (!done)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void *sender(void *arg)
{
	(void)arg;
	usleep(100000);
	kill(getpid(), SIGUSR1);
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	main_thread = pthread_self();
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO; /* no SA_RESTART: a read is cut short */
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	pthread_t t[5];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, idle, NULL);
	pthread_create(&t[4], NULL, sender, NULL);

	double t0 = now_s();
	unsigned left = sleep(5);
	printf("sleep cut short: %s\n", left > 0 && now_s() - t0 < 3 ? "yes" : "no");
	printf("SIGUSR1 handler on main: %s, siginfo from kill: %s\n", on_main == 1 ? "yes" : "no",
	       code_ok ? "yes" : "no");

	int fd[2];
	if (pipe(fd))
		return perror("pipe"), 1;
	alarm(1);
	char c;
	t0 = now_s();
	ssize_t r = read(fd[0], &c, 1);
	int e = errno;
	printf("read: %s after a SIGALRM, within 3 s: %s\n", r < 0 && e == EINTR ? "EINTR" : "other",
	       now_s() - t0 < 3 ? "yes" : "no");
	printf("handlers run: %d, on main: %d\n", (int)ran, (int)on_main);

	pthread_mutex_lock(&mu);
	done = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < 5; i++)
		pthread_join(t[i], NULL);
	return 0;
}
