/*
 * A stop-the-world collector's handshake, as Boehm GC's: the collector
 * sends each thread SIGUSR1, whose handler (SIGUSR2 blocked by its
 * sa_mask) acknowledges and waits in sigsuspend for SIGUSR2; the collector
 * sends SIGUSR2 as soon as the acknowledgement arrives, often before the
 * handler reaches sigsuspend.  SIGUSR2's handler must run on the thread it
 * was sent to, and end that thread's sigsuspend.  Once, under weft, a
 * SIGUSR2 already pending at the sigsuspend was raised on the worker while
 * the worker's mask still blocked it: the thread parked, and the next task
 * on that worker (here the collector) ran the handler instead; the thread
 * stayed suspended and the collector waited for it forever.  Inside the
 * handler, pthread_sigmask must report the handler's mask (sa_mask and the
 * signal), which the handler here builds its wait from: weft once
 * reported the mask from before the handler.
 */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "weft_check.h"

#define THREADS 8
#define ROUNDS 400

static sem_t ack, resumed;
static pthread_t victims[THREADS];
static pthread_t target; /* the thread the collector stopped */
static volatile int stop;
static volatile sig_atomic_t wrong, mask_wrong;
static __thread volatile sig_atomic_t restarts;

static void on_restart(int sig)
{
	(void)sig;
	if (!pthread_equal(pthread_self(), __atomic_load_n(&target, __ATOMIC_ACQUIRE)))
		wrong++;
	restarts++;
}

static void on_suspend(int sig)
{
	(void)sig;
	int before = restarts;
	/* The handler's mask, as the thread has it now: SIGUSR1 and SIGUSR2
	 * blocked; the wait lets SIGUSR2 in. */
	sigset_t now, wait;
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	if (!sigismember(&now, SIGUSR1) || !sigismember(&now, SIGUSR2))
		mask_wrong++;
	wait = now;
	sigdelset(&wait, SIGUSR2);
	sem_post(&ack);
	/* Gives the collector its chance to send SIGUSR2 before the wait. */
	sched_yield();
	while (restarts == before)
		sigsuspend(&wait);
	sem_post(&resumed);
}

static void *victim(void *arg)
{
	(void)arg;
	while (!stop)
		sched_yield();
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	sem_init(&ack, 0, 0);
	sem_init(&resumed, 0, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_suspend;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_restart;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&victims[i], NULL, victim, NULL) != 0)
			return perror("pthread_create"), 1;
	int stopped = 0, restarted = 0;
	for (int r = 0; r < ROUNDS; r++) {
		pthread_t t = victims[r % THREADS];
		__atomic_store_n(&target, t, __ATOMIC_RELEASE);
		pthread_kill(t, SIGUSR1);
		while (sem_wait(&ack) != 0)
			;
		stopped++;
		pthread_kill(t, SIGUSR2);
		while (sem_wait(&resumed) != 0)
			;
		restarted++;
	}
	stop = 1;
	for (int i = 0; i < THREADS; i++)
		pthread_join(victims[i], NULL);
	printf("rounds %d: stopped %d, restarted %d, restart handlers on another thread %d, "
	       "handler masks without sa_mask %d\n", ROUNDS, stopped, restarted, (int)wrong,
	       (int)mask_wrong);
	return wrong != 0 || mask_wrong != 0;
}
