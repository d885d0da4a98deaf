/*
 * pipeline_sum — a producer, 8 stage threads and main, linked by bounded
 * queues (one mutex, two condition variables each): the producer sends
 * 1..N, each stage adds 1, main sums what comes out.  Run with queues of
 * 1, 4 and 128 slots: every message a wake-up, small batches, large ones.
 * The sums and the order main sees (each value one above the last) are
 * the same natively and under weft, at any GOMAXPROCS.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "weft_check.h"
#include "../../bench/queue.h"

#define STAGES 8
#define N 5000

static struct queue qs[STAGES + 1];

static void *producer(void *arg)
{
	(void)arg;
	for (long i = 1; i <= N; i++)
		q_put(&qs[0], i);
	q_put(&qs[0], 0);
	return NULL;
}

static void *stage(void *arg)
{
	q_stage(qs, (long)arg);
	return NULL;
}

static void run(long cap)
{
	for (int i = 0; i <= STAGES; i++)
		q_init(&qs[i], cap);
	pthread_t th[STAGES + 1];
	for (long i = 0; i < STAGES; i++)
		if (pthread_create(&th[i], NULL, stage, (void *)i))
			abort();
	if (pthread_create(&th[STAGES], NULL, producer, NULL))
		abort();
	long sum = 0, v, last = STAGES, count = 0, disorder = 0;
	while ((v = q_get(&qs[STAGES]))) {
		disorder += v != last + 1;
		last = v;
		sum += v;
		count++;
	}
	for (int i = 0; i <= STAGES; i++)
		pthread_join(th[i], NULL);
	printf("queues of %ld: %ld messages, sum %ld (expected %ld), out of order %ld\n", cap,
	       count, sum, (long)N * (N + 1) / 2 + (long)N * STAGES, disorder);
}

int main(void)
{
	weft_check_loaded();
	run(1);
	run(4);
	run(128);
	return 0;
}
