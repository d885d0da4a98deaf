/*
 * queue.h — a bounded queue of longs with one mutex and two condition
 * variables (not empty, not full): the link of the pipeline benchmark
 * (bench/pipeline.c) and of its test (tests/preload/pipeline_sum.c).
 */
#ifndef WEFT_BENCH_QUEUE_H
#define WEFT_BENCH_QUEUE_H
#include <pthread.h>
#include <stdlib.h>

struct queue {
	pthread_mutex_t mu;
	pthread_cond_t nonempty, nonfull;
	long head, tail; /* [mu] items head..tail-1 are queued */
	long cap;
	long *buf;
} __attribute__((aligned(64)));

/* An empty queue of cap slots (buf kept across calls when large enough). */
static inline void q_init(struct queue *q, long cap)
{
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->nonempty, NULL);
	pthread_cond_init(&q->nonfull, NULL);
	q->head = q->tail = 0;
	q->buf = realloc(q->buf, cap * sizeof(long));
	if (!q->buf)
		abort();
	q->cap = cap;
}

static inline void q_put(struct queue *q, long v)
{
	pthread_mutex_lock(&q->mu);
	while (q->tail - q->head == q->cap)
		pthread_cond_wait(&q->nonfull, &q->mu);
	q->buf[q->tail++ % q->cap] = v;
	pthread_cond_signal(&q->nonempty);
	pthread_mutex_unlock(&q->mu);
}

static inline long q_get(struct queue *q)
{
	pthread_mutex_lock(&q->mu);
	while (q->tail == q->head)
		pthread_cond_wait(&q->nonempty, &q->mu);
	long v = q->buf[q->head++ % q->cap];
	pthread_cond_signal(&q->nonfull);
	pthread_mutex_unlock(&q->mu);
	return v;
}

/* A stage of a pipeline over qs: takes from qs[i], passes v + 1 to
 * qs[i + 1]; 0 ends the stream and is passed on unchanged. */
static inline void q_stage(struct queue *qs, long i)
{
	for (;;) {
		long v = q_get(&qs[i]);
		q_put(&qs[i + 1], v ? v + 1 : 0);
		if (!v)
			return;
	}
}
#endif
