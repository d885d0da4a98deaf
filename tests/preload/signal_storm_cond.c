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
static sem_t posted;
static atomic_long usr1_runs, alrm_runs;
static volatile sig_atomic_t usr2_flag;
static atomic_int done;

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

static void *watchdog(void *arg)
{
	(void)arg;
	double end = now_s() + 60;
	while (now_s() < end)
		usleep(100000);
	printf("still running after 60 s\n");
	fflush(stdout);
	_exit(1);
}

int main(void)
{
	weft_check_loaded();
	sem_init(&posted, 0, 0);
	sigset_t all, none;
	sigfillset(&all);
	sigemptyset(&none);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_t wd;
	pthread_create(&wd, NULL, watchdog, NULL);
	pthread_sigmask(SIG_SETMASK, &none, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	sa.sa_handler = on_alrm;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 250 }, { 0, 250 } };
	setitimer(ITIMER_REAL, &it, NULL);

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
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	pthread_sigmask(SIG_BLOCK, &all, NULL);

	long posts = 0;
	while (sem_trywait(&posted) == 0)
		posts++;
	long n = (long)PRODUCERS * ITEMS, want = 0;
	for (long p = 0; p < PRODUCERS; p++)
		want += p * ITEMS * ITEMS + (long)ITEMS * (ITEMS + 1) / 2;
	printf("items %s\n", consumed == n && consumed_sum == want ? "ok" : "WRONG");
	printf("usr1 posts %s\n", posts == atomic_load(&usr1_runs) ? "ok" : "WRONG");
	printf("usr2 %s\n", usr2_flag ? "ok" : "WRONG");
	printf("alrm %s\n", atomic_load(&alrm_runs) > 0 ? "ok" : "WRONG");
	return 0;
}
