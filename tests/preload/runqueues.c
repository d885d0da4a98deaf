/*
 * runqueues.c — Go's schedtrace run-queue experiment on the C side: main starts 200
 * CPU-bound threads, then joins them.  Under weft main queues each on its
 * own proc; the others fill their queues by stealing, which
 * WEFTDEBUG=schedtrace=1 shows (tests/observe/run.sh checks it).
 */
#include <pthread.h>
#include <stdio.h>

#include "weft_check.h"

#define N 200

static void *burn(void *arg)
{
	unsigned long x = 0;
	for (unsigned long j = 0; j < 4000000; j++) {
		x += j;
		__asm__ volatile("" : "+r"(x)); /* keep the loop: no closed form */
	}
	*(unsigned long *)arg = x;
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	static pthread_t th[N];
	static unsigned long out[N];
	for (int i = 0; i < N; i++)
		if (pthread_create(&th[i], NULL, burn, &out[i]) != 0) {
			printf("create failed at %d\n", i);
			return 1;
		}
	int same = 0;
	for (int i = 0; i < N; i++) {
		pthread_join(th[i], NULL);
		same += out[i] == out[0];
	}
	printf("%d threads done\n", same);
	return 0;
}
