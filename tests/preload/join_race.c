/* Joins that race with the exit they wait for: the thread ends while its
 * joiner is parked, parking, timing out, trying (pthread_tryjoin_np) or
 * being cancelled, with joiners on other workers than the thread.  Every
 * join must return the thread's own value exactly once, a join that was
 * cancelled or timed out must leave the thread joinable, and nothing may
 * hang.  Four rounds:
 *  1. 8 pairs at a time: a thread that works a random while, and a joiner
 *     thread that joins it (so thread and joiner often run on different
 *     workers), 4,000 pairs;
 *  2. main joins with pthread_tryjoin_np in a loop, 2,000 threads;
 *  3. main joins with pthread_timedjoin_np and 0-50 us timeouts, 2,000;
 *  4. a joiner is cancelled while the thread ends; whoever did not get the
 *     value (a cancelled joiner) leaves the join to main, 1,000 pairs. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "test_util.h"
#include "weft_check.h"

static _Atomic unsigned seed = 12345;

static unsigned rnd(void)
{
	unsigned s = atomic_fetch_add(&seed, 0x9e3779b9u);
	s ^= s >> 15;
	s *= 0x2c1b3c6du;
	return s ^ (s >> 12);
}

static void work(unsigned n)
{
	for (volatile unsigned i = 0; i < n; i++)
		;
}

static void *worker(void *arg)
{
	work(rnd() % 4000);
	if (rnd() % 4 == 0)
		sched_yield();
	return arg;
}

struct pair {
	pthread_t t;
	void *want, *got;
	int err;
	_Atomic int done;
};

static void *joiner(void *arg)
{
	struct pair *p = arg;
	work(rnd() % 4000);
	p->err = pthread_join(p->t, &p->got);
	atomic_store(&p->done, 1);
	return NULL;
}

static int round_pairs(int n)
{
	int bad = 0;
	for (int i = 0; i < n; i += 8) {
		struct pair p[8];
		pthread_t j[8];
		for (int k = 0; k < 8; k++) {
			p[k].want = (void *)(long)(i + k + 1);
			p[k].got = NULL;
			atomic_store(&p[k].done, 0);
			if (pthread_create(&p[k].t, NULL, worker, p[k].want) ||
			    pthread_create(&j[k], NULL, joiner, &p[k]))
				return -1;
		}
		for (int k = 0; k < 8; k++) {
			pthread_join(j[k], NULL);
			if (p[k].err || p[k].got != p[k].want)
				bad++;
		}
	}
	return bad;
}

/* Main joins each thread with pthread_tryjoin_np in a loop (timed false)
 * or with pthread_timedjoin_np and 0-50 us timeouts (timed true). */
static int round_retry(int n, bool timed)
{
	int bad = 0;
	for (int i = 0; i < n; i++) {
		pthread_t t;
		void *want = (void *)(long)(i + 1), *got = NULL;
		if (pthread_create(&t, NULL, worker, want))
			return -1;
		int e;
		long tries = 0;
		do {
			if (!timed) {
				e = pthread_tryjoin_np(t, &got);
				if (e == EBUSY && ++tries % 64 == 0)
					sched_yield();
				continue;
			}
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += (long)(rnd() % 50) * 1000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			e = pthread_timedjoin_np(t, &got, &ts);
		} while (e == (timed ? ETIMEDOUT : EBUSY));
		if (e || got != want)
			bad++;
	}
	return bad;
}

static int round_cancel(int n, int *cancelled)
{
	int bad = 0;
	for (int i = 0; i < n; i++) {
		struct pair p = { .want = (void *)(long)(i + 1) };
		pthread_t j;
		void *jr;
		if (pthread_create(&p.t, NULL, worker, p.want) ||
		    pthread_create(&j, NULL, joiner, &p))
			return -1;
		work(rnd() % 6000);
		pthread_cancel(j);
		pthread_join(j, &jr);
		if (jr == PTHREAD_CANCELED && !atomic_load(&p.done)) {
			/* The join was cancelled: the thread is still joinable. */
			(*cancelled)++;
			void *got = NULL;
			if (pthread_join(p.t, &got) || got != p.want)
				bad++;
		} else if (p.err || p.got != p.want) {
			bad++;
		}
	}
	return bad;
}

int main(void)
{
	weft_check_loaded();
	int r1 = round_pairs(4000);
	printf("joiner threads: %s\n", r1 == 0 ? "every value once" : "WRONG");
	int r2 = round_retry(2000, false);
	printf("tryjoin: %s\n", r2 == 0 ? "every value once" : "WRONG");
	int r3 = round_retry(2000, true);
	printf("timedjoin: %s\n", r3 == 0 ? "every value once" : "WRONG");
	int cancelled = 0;
	int r4 = round_cancel(1000, &cancelled);
	printf("cancelled joiners: %s\n", r4 == 0 ? "every value once" : "WRONG");
	if (r1 || r2 || r3 || r4)
		fprintf(stderr, "bad: %d %d %d %d\n", r1, r2, r3, r4);
	fprintf(stderr, "joins cancelled: %d of 1000\n", cancelled);
	return 0;
}
