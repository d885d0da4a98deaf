/* A thread spins on a flag that only another thread sets.  Started in that
 * order, at GOMAXPROCS=1 the setter runs only if the spinner is preempted:
 * without preemption this never finishes. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include "weft_check.h"

static volatile int started, flag;

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
	return 0;
}
