/*
 * A new thread starts with an empty set of pending signals and its
 * creator's mask (pthread_create(3), POSIX).  main blocks SIGUSR1 and
 * SIGUSR2, raises SIGUSR1 (raise: pending on the calling thread) and sends
 * itself SIGUSR2 (pthread_kill), then creates threads one at a time: each
 * reports what sigpending shows it and what it blocks, then unblocks both
 * signals, which must run no handler on it.  Once main unblocks them, each
 * handler runs once, on main.  Under weft a signal raised on main's worker
 * showed as pending in a new thread started on the same worker, and ran its
 * handler there once unblocked.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include "weft_check.h"

static pthread_t main_thread;
static atomic_int on_main[2], elsewhere[2];

static void on_usr(int sig)
{
	int i = sig == SIGUSR2;
	if (pthread_equal(pthread_self(), main_thread))
		on_main[i]++;
	else
		elsewhere[i]++;
}

static int mismatches;

static void *child(void *arg)
{
	(void)arg;
	sigset_t pend, mask, both;
	sigpending(&pend);
	pthread_sigmask(SIG_BLOCK, NULL, &mask);
	if (sigismember(&pend, SIGUSR1) || sigismember(&pend, SIGUSR2) ||
	    !sigismember(&mask, SIGUSR1) || !sigismember(&mask, SIGUSR2))
		mismatches++;
	sigemptyset(&both);
	sigaddset(&both, SIGUSR1);
	sigaddset(&both, SIGUSR2);
	pthread_sigmask(SIG_UNBLOCK, &both, NULL);
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	main_thread = pthread_self();
	struct sigaction sa = { 0 };
	sa.sa_handler = on_usr;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigset_t both, pend;
	sigemptyset(&both);
	sigaddset(&both, SIGUSR1);
	sigaddset(&both, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &both, NULL);
	raise(SIGUSR1);
	pthread_kill(pthread_self(), SIGUSR2);
	sigpending(&pend);
	printf("main pending: SIGUSR1 %d, SIGUSR2 %d\n", sigismember(&pend, SIGUSR1),
	       sigismember(&pend, SIGUSR2));
	for (int i = 0; i < 20; i++) {
		pthread_t th;
		pthread_create(&th, NULL, child, NULL);
		pthread_join(th, NULL);
	}
	printf("threads that saw a pending signal or another mask: %d of 20\n", mismatches);
	pthread_sigmask(SIG_UNBLOCK, &both, NULL);
	printf("handlers on main: SIGUSR1 %d, SIGUSR2 %d; elsewhere: %d, %d\n", on_main[0],
	       on_main[1], elsewhere[0], elsewhere[1]);
	return 0;
}
