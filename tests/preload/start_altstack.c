/*
 * start_altstack — a process whose main set an alternate signal stack and
 * an SA_ONSTACK handler before its first thread: a signal that arrives
 * while that first pthread_create starts weft still runs its handler on
 * the program's alternate stack.  Each of 200 forked children (each a
 * process that has not started weft yet) arms a one-shot timer of 1 to
 * 3,000 µs, so that it fires before, during or after the start, creates
 * and joins a thread, waits for the handler and exits with whether it ran
 * on the alternate stack.  (Natively the signal may also come to the new
 * thread, which has no alternate stack, as glibc's pthread_create blocks
 * every signal in main across the clone: only a handler run on main off
 * its alternate stack counts as wrong.)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weft_check.h"

#define ROUNDS 200

static char alt[1 << 16];
static volatile sig_atomic_t got, on_alt, on_main;
static pthread_t main_thread;

static void on_alrm(int sig)
{
	char here;
	(void)sig;
	got = 1;
	on_main = pthread_equal(pthread_self(), main_thread);
	if (&here >= alt && &here < alt + sizeof alt)
		on_alt = 1;
}

static void *nothing(void *arg)
{
	return arg;
}

static int child(int us)
{
	main_thread = pthread_self();
	stack_t ss = { .ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0 };
	sigaltstack(&ss, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alrm;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 0 }, { 0, us } };
	setitimer(ITIMER_REAL, &it, NULL);
	pthread_t t;
	if (pthread_create(&t, NULL, nothing, NULL) != 0)
		return 3;
	pthread_join(t, NULL);
	while (!got)
		;
	return on_alt || !on_main ? 0 : 1;
}

int main(void)
{
	weft_check_loaded();
	int ok = 0, off = 0, other = 0;
	for (int i = 0; i < ROUNDS; i++) {
		int us = (i * 37) % 3000 + 1;
		pid_t c = fork();
		if (c == 0)
			_exit(child(us));
		int st;
		waitpid(c, &st, 0);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			ok++;
		else if (WIFEXITED(st) && WEXITSTATUS(st) == 1)
			off++;
		else
			other++;
	}
	printf("handler on main's alternate stack or on another thread in %d of %d starts (on main off it %d, failed %d)\n", ok,
	       ROUNDS, off, other);
	return 0;
}
