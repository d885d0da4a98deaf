/* main() calls pthread_exit while other threads keep running; they print
 * afterwards, one of them joins the main thread, and the process exits 0
 * when the last one returns.  main's key destructors and atexit handlers
 * run as natively. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "weft_check.h"

#define N 4
static pthread_t main_th;
static pthread_key_t key;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int turn = -1; /* -1: main not joined yet; then 0..N-1 print in order */

static void key_dtor(void *v)
{
	printf("key destructor: %s\n", (char *)v);
	fflush(stdout);
}

static void at_exit_handler(void)
{
	printf("atexit handler runs, turn %d\n", turn);
}

static void *worker(void *a)
{
	long id = (long)a;
	if (id == 0) {
		void *r;
		int e = pthread_join(main_th, &r);
		printf("thread 0 joined main: %d, value %s\n", e, (char *)r);
		usleep(20000);
		pthread_mutex_lock(&m);
		turn = 0;
		pthread_cond_broadcast(&c);
		pthread_mutex_unlock(&m);
	}
	pthread_mutex_lock(&m);
	while (turn != id)
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);
	usleep(5000);
	printf("thread %ld runs after main exited\n", id);
	fflush(stdout);
	pthread_mutex_lock(&m);
	turn++;
	pthread_cond_broadcast(&c);
	pthread_mutex_unlock(&m);
	return NULL;
}

static void *detached(void *a)
{
	(void)a;
	pthread_mutex_lock(&m);
	while (turn != N)
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);
	printf("detached thread runs last\n");
	turn = N + 1;
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	main_th = pthread_self();
	atexit(at_exit_handler);
	pthread_key_create(&key, key_dtor);
	pthread_setspecific(key, "main's value");
	pthread_t t;
	for (long i = 0; i < N; i++)
		pthread_create(&t, NULL, worker, (void *)i);
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_create(&t, &at, detached, NULL);
	printf("main calls pthread_exit\n");
	fflush(stdout);
	pthread_exit("main-retval");
	printf("not reached\n");
	return 3;
}
