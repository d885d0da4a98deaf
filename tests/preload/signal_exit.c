/*
 * A signal handler that calls pthread_exit ends the thread it runs on, as
 * natively: the thread's cleanup handlers run and pthread_join returns the
 * handler's value.  Once with pthread_kill to a thread waiting on a
 * semaphore; once with kill() to the process while every other thread
 * blocks the signal, so only that (waiting) thread may take it.  Under weft
 * the process-directed one once ran on an idle worker outside any task,
 * and the exit crashed in the unwinder; and it was never run while the
 * thread waited.  A watchdog thread (blocking every signal) ends a run
 * still going after 20 s.
 */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "test_util.h"
#include "weft_check.h"

static sem_t never, ready;
static volatile sig_atomic_t cleanups;
static pthread_t target;
static volatile sig_atomic_t on_target;

static void on_sig(int sig)
{
	on_target = pthread_equal(pthread_self(), target) != 0;
	pthread_exit((void *)(long)(sig == SIGUSR1 ? 42 : 43));
}

static void cleanup(void *arg)
{
	(void)arg;
	cleanups++;
}

static void *waiter(void *arg)
{
	int sig = (int)(long)arg;
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	pthread_cleanup_push(cleanup, NULL);
	sem_post(&ready);
	for (;;)
		sem_wait(&never);
	pthread_cleanup_pop(0);
	return NULL;
}

static void *watchdog(void *arg)
{
	(void)arg;
	double end = now_s() + 20;
	while (now_s() < end)
		usleep(100000);
	printf("still waiting after 20 s\n");
	fflush(stdout);
	_exit(1);
}

static void run(int sig, int process)
{
	cleanups = 0;
	on_target = 0;
	pthread_create(&target, NULL, waiter, (void *)(long)sig);
	sem_wait(&ready);
	usleep(100000); /* let it wait */
	if (process)
		kill(getpid(), sig);
	else
		pthread_kill(target, sig);
	void *v;
	int r = pthread_join(target, &v);
	printf("%s %s: join %d, value %ld, cleanup ran %d, handler on the thread: %s\n",
	       process ? "kill" : "pthread_kill", sig == SIGUSR1 ? "SIGUSR1" : "SIGUSR2", r,
	       (long)v, (int)cleanups, on_target ? "yes" : "no");
}

int main(void)
{
	weft_check_loaded();
	sem_init(&never, 0, 0);
	sem_init(&ready, 0, 0);
	struct sigaction sa = { 0 };
	sa.sa_handler = on_sig;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_t w;
	pthread_create(&w, NULL, watchdog, NULL);
	pthread_detach(w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* Blocked everywhere but in the waiter. */
	sigset_t both;
	sigemptyset(&both);
	sigaddset(&both, SIGUSR1);
	sigaddset(&both, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &both, NULL);
	run(SIGUSR1, 0);
	run(SIGUSR2, 1);
	run(SIGUSR1, 1);
	return 0;
}
