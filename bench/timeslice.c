/*
 * timeslice [MS] — who decides when a thread stops?  Two threads spin for
 * MS milliseconds (default 1000) reading the clock; whenever one sees that it was
 * off the CPU for more than 1 ms, it records the gap.  Prints the gaps'
 * count, median, p90 and max.  Run it on one CPU (taskset -c 0 natively,
 * GOMAXPROCS=1 under a user-level scheduler): the median gap is then the
 * other thread's time slice (Go: 20 ms).  A
 * scheduler that never takes the CPU from a running thread shows no gaps:
 * the first thread runs to the end before the second starts.
 */
#include <pthread.h>

#include "bench.h"

#define MAXGAPS 100000

struct spinner {
	double gaps[MAXGAPS];
	long ngaps;
	double first, last; /* when its loop started and ended */
};

static struct spinner sp[2];
static double end;

static void *spin(void *arg)
{
	struct spinner *s = arg;
	double last = now_s(), t;
	s->first = last;
	while ((t = now_s()) < end) {
		if (t - last > 0.001 && s->ngaps < MAXGAPS)
			s->gaps[s->ngaps++] = t - last;
		last = t;
	}
	s->last = t;
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	double secs = arg_long(argc, argv, 1, 1000) / 1e3;
	pthread_t th[2];
	end = now_s() + secs;
	for (int i = 0; i < 2; i++) {
		int e = pthread_create(&th[i], NULL, spin, &sp[i]);
		if (e) {
			printf("thread %d failed: %s\n", i + 1, strerror(e));
			return 1;
		}
	}
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	static double all[2 * MAXGAPS];
	long n = 0;
	for (int i = 0; i < 2; i++) {
		memcpy(all + n, sp[i].gaps, sp[i].ngaps * sizeof *all);
		n += sp[i].ngaps;
	}
	qsort(all, n, sizeof *all, cmp);
	printf("spinning: %.3f s, 2 threads\n", secs);
	for (int i = 0; i < 2; i++)
		printf("thread %d: ran %.3f s to %.3f s of the run, %ld gaps\n", i + 1,
		       sp[i].first - (end - secs), sp[i].last - (end - secs), sp[i].ngaps);
	double late = sp[0].first > sp[1].first ? sp[0].first : sp[1].first;
	printf("the later thread first ran at: %.3f s\n", late - (end - secs));
	printf("descheduled gaps: %ld\n", n);
	if (n)
		printf("gap ms: min %.2f  median %.2f  p90 %.2f  max %.2f\n", all[0] * 1e3,
		       all[n / 2] * 1e3, all[n * 9 / 10] * 1e3, all[n - 1] * 1e3);
	else
		printf("gap ms: none (no thread was taken off the CPU for more than 1 ms)\n");
	return 0;
}
