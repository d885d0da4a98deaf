/*
 * spawn [N] — start N threads (default 10,000) that return at once, then
 * join them all; then start and join N threads one at a time.  Prints the
 * time per thread for both.
 */
#include <pthread.h>

#include "bench.h"

static void *nothing(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, 1, 10000);
	pthread_t *th = calloc(n, sizeof *th);
	if (!th)
		return perror("calloc"), 1;
	long peak = 0;
	double t0 = now_s();
	for (long i = 0; i < n; i++) {
		int e = pthread_create(&th[i], NULL, nothing, NULL);
		if (e) {
			printf("thread %ld failed: %s\n", i + 1, strerror(e));
			n = i;
			break;
		}
	}
	double t1 = now_s();
	peak = proc_status("Threads");
	for (long i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	double t2 = now_s();
	for (long i = 0; i < n; i++) {
		pthread_t t;
		int e = pthread_create(&t, NULL, nothing, NULL);
		if (e) {
			printf("thread %ld failed: %s\n", i + 1, strerror(e));
			break;
		}
		pthread_join(t, NULL);
	}
	double t3 = now_s();
	printf("threads:           %ld\n", n);
	printf("OS threads after create: %ld\n", peak);
	printf("create all:        %.2f us/thread\n", (t1 - t0) * 1e6 / n);
	printf("create+join all:   %.2f us/thread\n", (t2 - t0) * 1e6 / n);
	printf("create-join loop:  %.2f us/thread\n", (t3 - t2) * 1e6 / n);
	return 0;
}
