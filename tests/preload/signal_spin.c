/*
 * A signal handler rescues a thread spinning on a spinlock: main takes a
 * spinlock, sets alarm(1) whose handler unlocks it, then calls
 * pthread_spin_lock again.  Natively the handler runs on main in the middle
 * of its spin and the lock is taken.  Under weft the spin loop is weft's
 * code, where a handler is put off: every SIGALRM landed there again, and
 * main spun for ever.  A watchdog thread (blocking SIGALRM) ends the run
 * after 20 s.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "test_util.h"
#include "weft_check.h"

static pthread_spinlock_t lock;
static pthread_t main_thread;
static volatile sig_atomic_t ran, on_main;

static void on_alarm(int sig)
{
	(void)sig;
	ran++;
	on_main = pthread_equal(pthread_self(), main_thread) != 0;
	pthread_spin_unlock(&lock);
}

static void *watchdog(void *arg)
{
	(void)arg;
	double end = now_s() + 20;
	while (now_s() < end)
		usleep(100000);
	printf("still spinning after 20 s, handler ran %d times\n", (int)ran);
	fflush(stdout);
	_exit(1);
}

int main(void)
{
	weft_check_loaded();
	main_thread = pthread_self();
	pthread_spin_init(&lock, PTHREAD_PROCESS_PRIVATE);
	struct sigaction sa = { 0 };
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	sigset_t alrm, old;
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alrm, &old);
	pthread_t w;
	pthread_create(&w, NULL, watchdog, NULL);
	pthread_detach(w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_spin_lock(&lock);
	alarm(1);
	pthread_spin_lock(&lock); /* the handler unlocks it */
	printf("lock taken, handler ran %d time(s), on main: %s\n", (int)ran, on_main ? "yes" : "no");
	pthread_spin_unlock(&lock);
	return 0;
}
