/*
 * C11 threads in a program that made a pthread first (so under weft the
 * runtime already runs when thrd_create is called): the two kinds share
 * mtx_t and cnd_t, a pthread joins a C11 thread with thrd_join and a C11
 * thread joins a pthread with pthread_join.  When glibc's thrd_create made
 * an OS thread weft did not know, this died by SIGSEGV in trap mode.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <threads.h>
#include "weft_check.h"

static mtx_t m;
static cnd_t c;
static int turn; /* who may go: 0..7, by the counter below */
static long order[8];
static int filled;

/* Takes its turn in order, whatever kind of thread it is. */
static void take_turn(int me)
{
	mtx_lock(&m);
	while (turn != me)
		cnd_wait(&c, &m);
	order[filled++] = me;
	turn++;
	cnd_broadcast(&c);
	mtx_unlock(&m);
}

static int c11_turn(void *arg)
{
	take_turn((int)(intptr_t)arg);
	return (int)(intptr_t)arg * 10;
}

static void *pthread_turn(void *arg)
{
	take_turn((int)(intptr_t)arg);
	return (void *)((intptr_t)arg * 10);
}

static void *first(void *arg)
{
	return arg;
}

/* A pthread that joins a C11 thread. */
static void *pthread_joins_c11(void *arg)
{
	int r = -1;
	int j = thrd_join(*(thrd_t *)arg, &r);
	return (void *)(intptr_t)(j == thrd_success ? r : -1);
}

/* A C11 thread that joins a pthread. */
static int c11_joins_pthread(void *arg)
{
	void *r = NULL;
	int j = pthread_join(*(pthread_t *)arg, &r);
	return j == 0 ? (int)(intptr_t)r : -1;
}

int main(void)
{
	weft_check_loaded();
	pthread_t p;
	void *v;
	pthread_create(&p, NULL, first, (void *)7);
	pthread_join(p, &v);
	printf("first pthread: %ld\n", (long)(intptr_t)v);

	mtx_init(&m, mtx_plain);
	cnd_init(&c);
	/* Started in reverse, so that most wait for their turn. */
	thrd_t ct[4];
	pthread_t pt[4];
	for (int i = 7; i >= 0; i--) {
		if (i % 2)
			thrd_create(&ct[i / 2], c11_turn, (void *)(intptr_t)i);
		else
			pthread_create(&pt[i / 2], NULL, pthread_turn, (void *)(intptr_t)i);
	}
	/* ct[0] (turn 1) joined by a pthread, pt[0] (turn 0) by a C11 thread. */
	pthread_t pj;
	thrd_t cj;
	pthread_create(&pj, NULL, pthread_joins_c11, &ct[0]);
	thrd_create(&cj, c11_joins_pthread, &pt[0]);
	long sum = 0;
	for (int i = 1; i < 4; i++) {
		int r = 0;
		thrd_join(ct[i], &r);
		pthread_join(pt[i], &v);
		sum += r + (long)(intptr_t)v;
	}
	pthread_join(pj, &v);
	int r = 0;
	thrd_join(cj, &r);
	printf("a pthread joined a C11 thread: %ld; a C11 thread joined a pthread: %d\n",
	       (long)(intptr_t)v, r);
	printf("turns:");
	for (int i = 0; i < 8; i++)
		printf(" %ld", order[i]);
	printf("\nresults of the other six: %ld\n", sum);
	cnd_destroy(&c);
	mtx_destroy(&m);
	return 0;
}
