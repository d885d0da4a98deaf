/* exit(7) called from a non-main thread ends the process with status 7,
 * runs atexit handlers and flushes stdio, while main and other threads are
 * blocked. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "weft_check.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int ready;

static void at_exit_handler(void)
{
	printf("atexit handler, ready %d\n", ready);
}

static void *sleeper(void *a)
{
	(void)a;
	for (;;)
		sleep(10);
	return NULL;
}

static void *waiter(void *a)
{
	(void)a;
	pthread_mutex_lock(&m);
	ready++;
	pthread_cond_broadcast(&c);
	for (;;)
		pthread_cond_wait(&c, &m); /* never satisfied */
	return NULL;
}

static void *exiter(void *a)
{
	(void)a;
	pthread_mutex_lock(&m);
	while (ready < 3)
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);
	usleep(10000); /* main is (most likely) in pthread_join by now */
	printf("thread calls exit(7)\n"); /* buffered: exit must flush it */
	exit(7);
}

int main(void)
{
	weft_check_loaded();
	atexit(at_exit_handler);
	pthread_t t;
	pthread_create(&t, NULL, sleeper, NULL);
	for (int i = 0; i < 3; i++)
		pthread_create(&t, NULL, waiter, NULL);
	pthread_t ex;
	printf("main waits in join\n");
	pthread_create(&ex, NULL, exiter, NULL);
	pthread_join(ex, NULL);
	printf("not reached\n");
	return 0;
}
