/* lock_hot: four threads take a hot mutex often, holding it across a
 * short sleep (contended), and a cold mutex rarely (seldom contended);
 * each lock is taken in a function of its own (take_hot, take_cold) and
 * the hot one released in another (release_hot): the call sites a mutex
 * profile names, the waiter's and the holder's.  The program measures
 * its own waits for the hot lock (the time its pthread_mutex_lock calls
 * took) and prints their sum on stderr, "hot wait NS", for the profile to
 * be compared with.  lock_hot N: N rounds a thread (default 200), each
 * followed by a short sleep outside the locks (weft profile --mutex
 * watches a long run: a waiter gets the lock within the window). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t hot = PTHREAD_MUTEX_INITIALIZER, cold = PTHREAD_MUTEX_INITIALIZER;
static long nhot, ncold;
static _Atomic long long hot_wait;
static int rounds = 200;

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

__attribute__((noinline)) static void release_hot(void)
{
	pthread_mutex_unlock(&hot);
	__asm__ volatile("" ::: "memory"); /* no tail call: this frame is the holder's site */
}

__attribute__((noinline)) static void take_hot(void)
{
	long long t0 = now_ns();
	pthread_mutex_lock(&hot);
	hot_wait += now_ns() - t0;
	struct timespec d = { 0, 200000 };
	nanosleep(&d, NULL);
	nhot++;
	release_hot();
}

__attribute__((noinline)) static void take_cold(void)
{
	pthread_mutex_lock(&cold);
	ncold++;
	pthread_mutex_unlock(&cold);
}

static void *run(void *a)
{
	(void)a;
	for (int i = 0; i < rounds; i++) {
		take_hot();
		if (i % 20 == 0)
			take_cold();
		if (rounds > 200) {
			struct timespec d = { 0, 100000 };
			nanosleep(&d, NULL);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atoi(argv[1]);
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, run, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("hot %ld cold %ld\n", nhot, ncold);
	fprintf(stderr, "hot wait %lld\n", (long long)hot_wait);
	return 0;
}
