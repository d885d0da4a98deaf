/*
 * burst N ROUNDS IDLE — ROUNDS times: start N threads that each wait on one
 * condition variable, wake them all and join them; prints the memory in
 * use (RSS + page tables) after each round, then once a second for IDLE
 * seconds with no thread left.  Memory that a runtime keeps for threads
 * that are gone shows as growth round over round, or as memory that does
 * not come back while idle.  If pthread_create fails (the kernel's thread
 * or pid limit), says so and carries on with the threads that started.
 */
#include <pthread.h>

#include "bench.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t opened = PTHREAD_COND_INITIALIZER;
static pthread_cond_t arrived = PTHREAD_COND_INITIALIZER;
static long started;
static int open_;

static void *customer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	if (++started % 1024 == 0)
		pthread_cond_signal(&arrived);
	while (!open_)
		pthread_cond_wait(&opened, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static long mem_kb(void)
{
	return proc_status("VmRSS") + proc_status("VmPTE");
}

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, 1, 100000);
	long rounds = arg_long(argc, argv, 2, 5);
	long idle = arg_long(argc, argv, 3, 10);
	pthread_t *th = calloc(n, sizeof *th);
	if (!th)
		return perror("calloc"), 1;
	printf("start:             %ld KB\n", mem_kb());
	long peak = 0;
	for (long r = 1; r <= rounds; r++) {
		double t0 = now_s();
		long ok = create_threads(th, n, NULL, customer);
		pthread_mutex_lock(&mu);
		wait_count(&mu, &arrived, &started, ok);
		open_ = 1;
		pthread_cond_broadcast(&opened);
		pthread_mutex_unlock(&mu);
		long m = mem_kb();
		if (m > peak)
			peak = m;
		for (long i = 0; i < ok; i++)
			pthread_join(th[i], NULL);
		double t1 = now_s();
		pthread_mutex_lock(&mu);
		open_ = 0;
		started = 0;
		pthread_mutex_unlock(&mu);
		printf("round %ld:           %ld threads, %.2f us/thread, %ld KB with all parked, "
		       "%ld KB after join\n", r, ok, (t1 - t0) * 1e6 / (ok ? ok : 1), m, mem_kb());
		fflush(stdout);
	}
	for (long s = 1; s <= idle; s++) {
		sleep(1);
		printf("idle %ld s:          %ld KB\n", s, mem_kb());
		fflush(stdout);
	}
	printf("peak parked:       %ld KB\n", peak);
	return 0;
}
