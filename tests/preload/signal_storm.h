/*
 * signal_storm.h — the handlers and timer of the signal_storm_* tests.
 * Their senders (threads of each test) pthread_kill threads with SIGUSR1
 * and kill the process with SIGUSR2; an interval timer sends SIGALRM.
 *   storm_begin(usr2, alrm_us)  a watchdog ("still running", every signal
 *                               blocked: signal_util.h), then the handlers,
 *                               each SA_RESTART: SIGUSR1's counts itself in
 *                               usr1_runs and posts `posted`
 *                               (sem_post is async-signal-safe), SIGUSR2's
 *                               (if usr2) sets usr2_flag, SIGALRM's counts
 *                               itself in alrm_runs; then ITIMER_REAL every
 *                               alrm_us microseconds
 *   storm_end()                 stops the timer, blocks every signal (some
 *                               sent before the senders stopped may still be
 *                               on their way), and returns the posts the
 *                               SIGUSR1 handler made: the tests check that
 *                               they equal its runs (no post lost, none
 *                               made twice)
 */
#ifndef WEFT_SIGNAL_STORM_H
#define WEFT_SIGNAL_STORM_H
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/time.h>

#include "signal_util.h"

static sem_t posted;
static atomic_long usr1_runs, alrm_runs;
static volatile sig_atomic_t usr2_flag;

static void on_usr1(int sig)
{
	(void)sig;
	atomic_fetch_add(&usr1_runs, 1);
	sem_post(&posted);
}

static void on_usr2(int sig)
{
	(void)sig;
	usr2_flag = 1;
}

static void on_alrm(int sig)
{
	(void)sig;
	atomic_fetch_add(&alrm_runs, 1);
}

static inline void storm_begin(int usr2, long alrm_us)
{
	sem_init(&posted, 0, 0);
	watchdog_start_deaf("still running");
	on_signal(SIGUSR1, on_usr1);
	if (usr2)
		on_signal(SIGUSR2, on_usr2);
	on_signal(SIGALRM, on_alrm);
	struct itimerval it = { { 0, alrm_us }, { 0, alrm_us } };
	setitimer(ITIMER_REAL, &it, NULL);
}

static inline long storm_end(void)
{
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	long posts = 0;
	while (sem_trywait(&posted) == 0)
		posts++;
	return posts;
}
#endif
