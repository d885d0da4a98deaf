/*
 * A signal whose handler yields, sent to threads that yield all the time,
 * after the process has read a thread CPU clock.  Under weft each yield is
 * a switch, and once a thread CPU clock has been read every switch reads
 * the clock (libc, the vDSO) before it leaves the task: a handler that ran
 * there and switched the task out and back itself left the outer switch
 * without its request (the task stayed RUNNING on no queue, lost: its
 * thread never returned) or brought the task back on another worker,
 * where the outer switch went on with the first worker's scheduler stack
 * (a SIGSEGV in the scheduler).  Both happened within a few seconds at
 * GOMAXPROCS=2 before such handlers were held back there.
 *
 * SPINNERS threads each read their own CPU clock once, then loop on
 * sched_yield; main sends them SIGUSR1 in turn for about two seconds,
 * yielding between rounds; the handler counts and calls sched_yield.  A
 * watchdog ends the test if a spinner that has not returned makes no
 * progress (a turn of its loop or of its handler) for 20 s: a lost
 * thread.  Then every spinner is joined.  How often each ran is not
 * compared: a spinner sent a signal every round may spend the storm in
 * its handler.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "test_util.h"
#include "weft_check.h"

#define SPINNERS 4

static atomic_int stop, done, exited[SPINNERS];
static atomic_long handled, turns[SPINNERS];
static pthread_t th[SPINNERS];
static __thread int self = -1; /* the spinner's index */

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
	if (self >= 0)
		turns[self]++; /* a spinner may spend the storm in its handler */
	sched_yield(); /* a switch inside the handler */
}

static void *spin(void *arg)
{
	long i = (long)arg;
	self = (int)i;
	clockid_t c;
	struct timespec ts;
	if (pthread_getcpuclockid(pthread_self(), &c) == 0)
		clock_gettime(c, &ts);
	while (!stop) {
		sched_yield();
		turns[i]++;
	}
	exited[i] = 1;
	return NULL;
}

static void *watchdog(void *arg)
{
	(void)arg;
	long last[SPINNERS] = { 0 };
	double since[SPINNERS];
	for (int i = 0; i < SPINNERS; i++)
		since[i] = now_s();
	while (!done) {
		usleep(100000);
		for (int i = 0; i < SPINNERS && !done; i++) {
			long n = turns[i];
			if (n != last[i] || exited[i]) {
				last[i] = n;
				since[i] = now_s();
			} else if (now_s() - since[i] > 20) {
				printf("spinner %d: no progress for 20 s\n", i);
				fflush(stdout);
				_exit(1);
			}
		}
	}
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	for (long i = 0; i < SPINNERS; i++)
		if (pthread_create(&th[i], NULL, spin, (void *)i) != 0) {
			printf("no thread\n");
			return 1;
		}
	pthread_t w;
	pthread_create(&w, NULL, watchdog, NULL);
	double end = now_s() + 2;
	long sent = 0;
	while (now_s() < end) {
		for (int i = 0; i < SPINNERS; i++)
			if (pthread_kill(th[i], SIGUSR1) == 0)
				sent++;
		sched_yield();
	}
	stop = 1;
	int joined = 0;
	for (int i = 0; i < SPINNERS; i++)
		joined += pthread_join(th[i], NULL) == 0;
	done = 1;
	pthread_join(w, NULL);
	printf("spinners joined: %d of %d\n", joined, SPINNERS);
	printf("signals sent: %s, handlers ran: %s\n", sent > 0 ? "yes" : "no",
	       handled > 0 ? "yes" : "no");
	return 0;
}
