/* A thread spins on a flag that only another thread sets.  Started in that
 * order, at GOMAXPROCS=1 the setter runs only if the spinner is preempted:
 * without preemption this never finishes.  Then main itself spins on a
 * flag set by a thread it created. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include "weft_check.h"

static volatile int started, flag, flag2;

static void *spinner(void *arg)
{
	(void)arg;
	started = 1;
	unsigned long spins = 0;
	while (!flag)
		spins++;
	return (void *)(spins > 0 ? 1L : 2L);
}

static void *setter(void *arg)
{
	(void)arg;
	flag = 1;
	return NULL;
}

static void *setter2(void *arg)
{
	(void)arg;
	flag2 = 1;
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	pthread_t a, b;
	void *r;
	pthread_create(&a, NULL, spinner, NULL);
	while (!started)
		sched_yield(); /* the spinner runs, and spins, before the setter exists */
	pthread_create(&b, NULL, setter, NULL);
	pthread_join(b, NULL);
	pthread_join(a, &r);
	printf("spinner saw the flag: %ld\n", (long)r);
	pthread_create(&b, NULL, setter2, NULL);
	unsigned long spins = 0;
	while (!flag2)
		spins++;
	pthread_join(b, NULL);
	printf("main saw the flag: %d\n", spins > 0 || flag2);
	return 0;
}
