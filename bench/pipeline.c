/*
 * pipeline [N [STAGES [CAP]]] — a producer thread sends 1..N (default
 * 1,000,000) through STAGES (default 8) stage threads, each adding 1, to
 * main, which sums them.  Every link is a queue of CAP (default 128) longs
 * with one mutex and two condition variables (not empty, not full).
 * Prints the sum (N(N+1)/2 + N*STAGES), the wall time and the process's
 * CPU time.  The work is a chain of wake-ups: with two CPUs natively both
 * are busy; a scheduler that keeps the whole chain on one of them uses
 * half the machine.
 */
#include <pthread.h>
#include <sys/resource.h>

#include "bench.h"
#include "queue.h"

static struct queue *qs; /* qs[i] feeds stage i; qs[stages] feeds main */
static long n, stages, cap;

/* 0 ends the stream: every stage passes it on unchanged. */
static void *producer(void *arg)
{
	(void)arg;
	for (long i = 1; i <= n; i++)
		q_put(&qs[0], i);
	q_put(&qs[0], 0);
	return NULL;
}

static void *stage(void *arg)
{
	q_stage(qs, (long)arg);
	return NULL;
}

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

int main(int argc, char **argv)
{
	n = arg_long(argc, argv, 1, 1000000);
	stages = arg_long(argc, argv, 2, 8);
	cap = arg_long(argc, argv, 3, 128);
	qs = calloc(stages + 1, sizeof *qs);
	if (!qs)
		abort();
	for (long i = 0; i <= stages; i++)
		q_init(&qs[i], cap);
	pthread_t *th = calloc(stages + 1, sizeof *th);
	double c0 = cpu_s(), t0 = now_s();
	for (long i = 0; i < stages; i++)
		if (pthread_create(&th[i], NULL, stage, (void *)i))
			abort();
	if (pthread_create(&th[stages], NULL, producer, NULL))
		abort();
	long sum = 0, v;
	while ((v = q_get(&qs[stages])))
		sum += v;
	for (long i = 0; i <= stages; i++)
		pthread_join(th[i], NULL);
	double t = now_s() - t0, c = cpu_s() - c0;
	printf("messages: %ld through %ld stages\n", n, stages);
	printf("sum: %ld\n", sum);
	printf("wall time: %.3f s\n", t);
	printf("cpu time: %.3f s\n", c);
	return 0;
}
