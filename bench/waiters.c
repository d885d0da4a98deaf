/*
 * waiters N [STACKSIZE] — start N threads that each wait on one condition variable
 * (a shop that has not opened yet), report what they cost, then open the
 * shop and join them all.  If pthread_create fails (the kernel's thread or
 * pid limit), says so and carries on with the threads that started.
 * STACKSIZE (bytes): the threads are created with that
 * pthread_attr_setstacksize.
 */
#include <errno.h>
#include <pthread.h>

#include "bench.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t opened = PTHREAD_COND_INITIALIZER;  /* main -> customers */
static pthread_cond_t arrived = PTHREAD_COND_INITIALIZER; /* customers -> main */
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

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, 1, 10000);
	long stack = arg_long(argc, argv, 2, 0);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	if (stack && pthread_attr_setstacksize(&attr, (size_t)stack))
		return fprintf(stderr, "waiters: bad stack size %ld\n", stack), 2;
	pthread_t *th = calloc(n, sizeof *th);
	if (!th)
		return perror("calloc"), 1;
	long rss0 = proc_status("VmRSS"), pte0 = proc_status("VmPTE");
	long vm0 = proc_status("VmSize"), ks0 = meminfo("KernelStack");
	double t0 = now_s();
	long ok = create_threads(th, n, &attr, customer);
	pthread_mutex_lock(&mu);
	wait_count(&mu, &arrived, &started, ok);
	pthread_mutex_unlock(&mu);
	double t1 = now_s();
	long threads = proc_status("Threads");
	long rss = proc_status("VmRSS") - rss0, pte = proc_status("VmPTE") - pte0;
	long vm = proc_status("VmSize") - vm0, ks = meminfo("KernelStack") - ks0;
	if (ks < 0)
		ks = 0;
	printf("threads started:   %ld\n", ok);
	printf("OS threads:        %ld\n", threads);
	printf("time to start:     %.3f s\n", t1 - t0);
	printf("memory used:       %ld MB\n", (rss + pte) / 1024);
	printf("kernel stacks:     %ld MB\n", ks / 1024);
	printf("stack reserved:    %ld GB\n", vm / (1024 * 1024));
	printf("per thread:        %.1f KB\n", ok ? (double)(rss + pte + ks) / ok : 0.0);
	fflush(stdout);

	pthread_mutex_lock(&mu);
	open_ = 1;
	pthread_cond_broadcast(&opened);
	pthread_mutex_unlock(&mu);
	for (long i = 0; i < ok; i++)
		pthread_join(th[i], NULL);
	printf("joined:            %ld\n", ok);
	return 0;
}
