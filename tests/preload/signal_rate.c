/*
 * Signals are neither late nor lost.  Two threads take turns to
 * kill(getpid(), SIGUSR1) and wait on a semaphore the handler posts
 * (sem_post is async-signal-safe).  Only a third thread does not block
 * SIGUSR1, so the kernel gives every signal to it; it loops locking and
 * unlocking a mutex and yielding, so under weft the signal nearly always
 * interrupts weft's own code.  Such a signal once waited for the monitor
 * thread to raise it again (a few hundred handlers a second instead of
 * tens of thousands), and now and then was never raised.  Natively the
 * 20,000 rounds take well under a second: the run must finish within 30 s,
 * and a round whose handler has not run within 5 s counts as lost.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include "test_util.h"
#include "weft_check.h"

#define ROUNDS 20000
#define SENDERS 2

static sem_t sem;
static atomic_long handled;
static atomic_int stop;
static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER, busy = PTHREAD_MUTEX_INITIALIZER;
static long rounds, lost;
static double end;
static int late;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
	sem_post(&sem);
}

/* Waits for the handler's post: false after 5 s without it. */
static int wait_post(void)
{
	struct timespec ts;
	deadline(CLOCK_REALTIME, &ts, 5000);
	for (;;) {
		if (sem_timedwait(&sem, &ts) == 0)
			return 1;
		if (errno == ETIMEDOUT)
			return 0;
	}
}

static void *sender(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&turn);
		if (rounds == ROUNDS || late) {
			pthread_mutex_unlock(&turn);
			return NULL;
		}
		rounds++;
		kill(getpid(), SIGUSR1);
		if (!wait_post())
			lost++;
		if (now_s() > end)
			late = 1;
		pthread_mutex_unlock(&turn);
	}
}

static void *receiver(void *arg)
{
	(void)arg;
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	long n = 0;
	while (!stop) {
		pthread_mutex_lock(&busy);
		n++;
		pthread_mutex_unlock(&busy);
		sched_yield();
	}
	return (void *)n;
}

int main(void)
{
	weft_check_loaded();
	sem_init(&sem, 0, 0);
	struct sigaction sa = { 0 };
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	/* Blocked here and in the senders (they inherit the mask). */
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	end = now_s() + 30;
	pthread_t r, t[SENDERS];
	pthread_create(&r, NULL, receiver, NULL);
	for (int i = 0; i < SENDERS; i++)
		pthread_create(&t[i], NULL, sender, NULL);
	for (int i = 0; i < SENDERS; i++)
		pthread_join(t[i], NULL);
	stop = 1;
	pthread_join(r, NULL);
	printf("rounds %ld, lost %ld, %s\n", rounds, lost,
	       late ? "not finished in time" : "finished in time");
	printf("handlers ran: %s\n", handled == rounds ? "one per round" : "not one per round");
	return lost || late;
}
