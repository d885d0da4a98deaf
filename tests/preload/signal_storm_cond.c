/*
 * A signal storm over condition-variable hand-offs.  Producers put items
 * in a bounded queue and pthread_cond_signal one consumer each (and a
 * producer waiting for room, when the queue was full); consumers wait
 * with pthread_cond_wait, some with pthread_cond_timedwait.  Meanwhile a
 * sender pthread_kills the consumers and producers with SIGUSR1 (its
 * handler posts a semaphore and counts) and kills the process with
 * SIGUSR2 (its handler sets a flag), and an interval timer sends SIGALRM
 * every 250 µs.  A signal interrupts a wait, which must go on waiting (or
 * return, which the loops allow) without losing the wake-up it was owed:
 * a lost one leaves a consumer asleep with items queued, or a producer
 * asleep with room, for ever.  Checked: every item consumed once, the
 * SIGUSR1 handler's posts equal its runs, each handler ran.  A watchdog
 * (every signal blocked) ends a run still going after 60 s: a hang.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include "signal_storm.h"
#include "test_util.h"
#include "weft_check.h"

#define PRODUCERS 3
#define CONSUMERS 5
#define ITEMS 10000 /* per producer */
#define QSIZE 4

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER, nonfull = PTHREAD_COND_INITIALIZER;
static long queue[QSIZE];   /* [mu] */
static int qlen, qhead;     /* [mu] */
static int producing;       /* [mu] producers still running */
static long consumed_sum;   /* [mu] */
static long consumed;       /* [mu] */
static atomic_int done;

static void *producer(void *arg)
{
	long id = (long)arg;
	for (long i = 1; i <= ITEMS; i++) {
		pthread_mutex_lock(&mu);
		while (qlen == QSIZE)
			pthread_cond_wait(&nonfull, &mu);
		queue[(qhead + qlen) % QSIZE] = id * ITEMS + i;
		qlen++;
		pthread_cond_signal(&nonempty);
		pthread_mutex_unlock(&mu);
	}
	pthread_mutex_lock(&mu);
	if (--producing == 0)
		pthread_cond_broadcast(&nonempty);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void *consumer(void *arg)
{
	long id = (long)arg;
	for (;;) {
		pthread_mutex_lock(&mu);
		while (qlen == 0 && producing > 0) {
			if (id % 2) {
				struct timespec ts;
				deadline(CLOCK_REALTIME, &ts, 50);
				pthread_cond_timedwait(&nonempty, &mu, &ts);
			} else {
				pthread_cond_wait(&nonempty, &mu);
			}
		}
		if (qlen == 0) {
			pthread_mutex_unlock(&mu);
			return NULL;
		}
		long v = queue[qhead];
		qhead = (qhead + 1) % QSIZE;
		qlen--;
		consumed++;
		consumed_sum += v;
		pthread_cond_signal(&nonfull);
		pthread_mutex_unlock(&mu);
	}
}

static pthread_t prod[PRODUCERS], cons[CONSUMERS];
static pthread_mutex_t killing = PTHREAD_MUTEX_INITIALIZER;
static int stop; /* [killing] main joins the threads only after it is set */
static void *sender(void *arg)
{
	(void)arg;
	unsigned n = 0;
	while (!atomic_load(&done)) {
		pthread_mutex_lock(&killing);
		if (n % 4 == 3)
			kill(getpid(), SIGUSR2);
		else if (stop)
			;
		else if (n % 2)
			pthread_kill(cons[(n / 2) % CONSUMERS], SIGUSR1);
		else
			pthread_kill(prod[(n / 2) % PRODUCERS], SIGUSR1);
		pthread_mutex_unlock(&killing);
		n++;
		usleep(40);
	}
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	storm_begin(1, 250);

	producing = PRODUCERS;
	/* Every thread exists before the sender starts (it names them). */
	pthread_mutex_lock(&mu);
	for (long i = 0; i < CONSUMERS; i++)
		pthread_create(&cons[i], NULL, consumer, (void *)i);
	for (long i = 0; i < PRODUCERS; i++)
		pthread_create(&prod[i], NULL, producer, (void *)i);
	pthread_t snd;
	pthread_create(&snd, NULL, sender, NULL);
	pthread_mutex_unlock(&mu);
	/* The process-directed storm reached the program (SIGUSR1 may not
	 * have: with one proc the sender may run only after the queue work). */
	while (atomic_load(&alrm_runs) < 5 || !usr2_flag)
		usleep(1000);
	pthread_mutex_lock(&killing);
	stop = 1;
	pthread_mutex_unlock(&killing);
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(prod[i], NULL);
	for (int i = 0; i < CONSUMERS; i++)
		pthread_join(cons[i], NULL);
	atomic_store(&done, 1);
	pthread_join(snd, NULL);
	long posts = storm_end();
	long n = (long)PRODUCERS * ITEMS, want = 0;
	for (long p = 0; p < PRODUCERS; p++)
		want += p * ITEMS * ITEMS + (long)ITEMS * (ITEMS + 1) / 2;
	printf("items %s\n", consumed == n && consumed_sum == want ? "ok" : "WRONG");
	printf("usr1 posts %s\n", posts == atomic_load(&usr1_runs) ? "ok" : "WRONG");
	printf("usr2 %s\n", usr2_flag ? "ok" : "WRONG");
	printf("alrm %s\n", atomic_load(&alrm_runs) > 0 ? "ok" : "WRONG");
	return 0;
}
