/* A thread in for(;;){} must not stop main from resuming after usleep
 * (as in Go with async preemption).  main then exits with the loop running. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include "weft_check.h"

static void *loop(void *arg)
{
	(void)arg;
	for (;;) {
	}
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	pthread_t t;
	pthread_create(&t, NULL, loop, NULL);
	usleep(100000);
	printf("main resumed\n");
	fflush(stdout);
	return 0;
}
