/* Heavy contention: eight threads take one spinlock 20,000 times each while
 * an interval timer's SIGALRM fires every millisecond and lock holders yield
 * or sleep with the lock held; sixteen consumers (half with 1 ms timed
 * waits) and four producers pass 200,000 tokens through one mutex and
 * condvar with signal and broadcast; timed read and write locks wait on an
 * rwlock whose writer lets go well before their deadline, 50 rounds.  No
 * update may be lost, no wake-up missed, no timed lock may time out. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"

static pthread_spinlock_t sl;
static long counter;
static volatile sig_atomic_t alarms;

static void on_alarm(int s)
{
	(void)s;
	alarms++;
}

static void *spinner(void *a)
{
	long id = (long)a;
	for (int i = 0; i < 20000; i++) {
		pthread_spin_lock(&sl);
		long c = counter;
		if (i % 1000 == id) {
			if (id & 1)
				sched_yield();
			else
				usleep(100);
		}
		for (volatile int k = 0; k < 50; k++)
			;
		counter = c + 1;
		pthread_spin_unlock(&sl);
	}
	return a;
}

#define ITEMS 200000
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long tokens, consumed;

static void *producer(void *a)
{
	for (int i = 0; i < ITEMS / 4; i++) {
		pthread_mutex_lock(&mu);
		tokens++;
		if (i % 3 == 0)
			pthread_cond_broadcast(&cv);
		else
			pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
	}
	return a;
}

static void *consumer(void *a)
{
	long id = (long)a;
	for (;;) {
		pthread_mutex_lock(&mu);
		while (tokens == 0 && consumed < ITEMS) {
			if (id & 1) {
				struct timespec ts;
				clock_gettime(CLOCK_REALTIME, &ts);
				ts.tv_nsec += 1000000;
				if (ts.tv_nsec >= 1000000000) {
					ts.tv_sec++;
					ts.tv_nsec -= 1000000000;
				}
				pthread_cond_timedwait(&cv, &mu, &ts);
			} else {
				pthread_cond_wait(&cv, &mu);
			}
		}
		if (consumed >= ITEMS) {
			pthread_mutex_unlock(&mu);
			return a;
		}
		tokens--;
		if (++consumed == ITEMS)
			pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
}

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int rd_ok, wr_ok, timed_out;

static void *timed_locker(void *a)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 2;
	int r = (long)a ? pthread_rwlock_timedwrlock(&rw, &ts) : pthread_rwlock_timedrdlock(&rw, &ts);
	if (r == 0) {
		__atomic_add_fetch((long)a ? &wr_ok : &rd_ok, 1, __ATOMIC_RELAXED);
		pthread_rwlock_unlock(&rw);
	} else {
		__atomic_add_fetch(&timed_out, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	pthread_spin_init(&sl, 0);
	signal(SIGALRM, on_alarm);
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	setitimer(ITIMER_REAL, &it, NULL);
	pthread_t t[20];
	for (long i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, spinner, (void *)i);
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	printf("spinlock: %ld of 160000 updates, alarms handled: %s\n", counter,
	       alarms > 0 ? "yes" : "no");

	for (long i = 0; i < 16; i++)
		pthread_create(&t[i], NULL, consumer, (void *)i);
	for (long i = 0; i < 4; i++)
		pthread_create(&t[16 + i], NULL, producer, (void *)i);
	for (int i = 0; i < 20; i++)
		pthread_join(t[i], NULL);
	printf("condvar: %ld of %d tokens consumed\n", consumed, ITEMS);

	for (int round = 0; round < 50; round++) {
		pthread_rwlock_wrlock(&rw);
		for (long i = 0; i < 8; i++)
			pthread_create(&t[i], NULL, timed_locker, (void *)(i & 1));
		usleep(2000);
		pthread_rwlock_unlock(&rw);
		for (int i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
	}
	printf("rwlock: timed read locks %d, timed write locks %d, timed out %d\n", rd_ok, wr_ok,
	       timed_out);
	return 0;
}
