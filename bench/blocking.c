/*
 * blocking [N] [read] — when does a thread cost an OS thread?  Starts N
 * threads (default 100) that sleep in usleep, then N more that wait on a
 * condition variable, printing the process's OS threads (the kernel's
 * Threads: count) at each step.  With "read", N more are then started
 * that block in read(2) on a pipe nobody writes yet, as the seed's
 * "stuck in a system call" goroutines.  Then everything is released and
 * joined.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "bench.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int released;
static atomic_int stop, ready;
static int pfd[2];

static void *sleeper(void *arg)
{
	atomic_fetch_add(&ready, 1);
	while (!atomic_load(&stop))
		usleep(100000);
	return arg;
}

static void *waiter(void *arg)
{
	pthread_mutex_lock(&mu);
	atomic_fetch_add(&ready, 1);
	while (!released)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return arg;
}

static void *reader(void *arg)
{
	char c;
	atomic_fetch_add(&ready, 1);
	if (read(pfd[0], &c, 1) != 1)
		abort();
	return arg;
}

static void start(pthread_t *th, long n, void *(*fn)(void *))
{
	int base = atomic_load(&ready);
	for (long i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, fn, NULL)) {
			perror("pthread_create");
			exit(1);
		}
	while (atomic_load(&ready) < base + n)
		usleep(1000);
	usleep(50000); /* let the last ones get into their wait */
}

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, 1, 100);
	int do_read = argc > 2 && !strcmp(argv[2], "read");
	pthread_t *th = calloc(3 * n, sizeof *th);
	if (!th || pipe(pfd))
		return perror("setup"), 1;
	printf("OS threads at start: %ld\n", proc_status("Threads"));
	start(th, n, sleeper);
	printf("%ld sleeping, OS threads: %ld\n", n, proc_status("Threads"));
	fflush(stdout);
	start(th + n, n, waiter);
	printf("%ld more waiting on a condvar, OS threads: %ld\n", n, proc_status("Threads"));
	fflush(stdout);
	if (do_read) {
		start(th + 2 * n, n, reader);
		printf("%ld more stuck in read(2), OS threads: %ld\n", n, proc_status("Threads"));
		fflush(stdout);
	}
	atomic_store(&stop, 1);
	pthread_mutex_lock(&mu);
	released = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	if (do_read)
		for (long i = 0; i < n; i++)
			if (write(pfd[1], "x", 1) != 1)
				abort();
	for (long i = 0; i < (do_read ? 3 : 2) * n; i++)
		pthread_join(th[i], NULL);
	printf("all joined, OS threads: %ld\n", proc_status("Threads"));
	return 0;
}
