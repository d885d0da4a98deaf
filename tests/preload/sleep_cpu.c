/* Threads that sleep in short steps use next to no CPU: four threads each
 * in 500 usleep(1000) calls, about 0.5 s, must spend under a quarter of
 * that in CPU time (natively a few percent).  A task woken by its timer
 * used to spin until the thread that ran the timer's callback finished it,
 * which on a busy machine is a preempted thread: 0.8 s of CPU a second. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"
#include "test_util.h"

static void *sleeper(void *arg)
{
	for (int i = 0; i < 500; i++)
		usleep(1000);
	return arg;
}

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int main(void)
{
	weft_check_loaded();
	pthread_t t[4];
	double w0 = now_s(), c0 = cpu_s();
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, sleeper, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	double wall = now_s() - w0, cpu = cpu_s() - c0;
	printf("4 threads x 500 sleeps of 1 ms: CPU under a quarter of the wall time: %s\n",
	       cpu < wall / 4 ? "yes" : "no");
	if (cpu >= wall / 4)
		fprintf(stderr, "cpu %.3f s, wall %.3f s\n", cpu, wall);
	return 0;
}
