/*
 * fork_waits [N [F [IDLE]]] — N threads (default 1,000) wait at once on a
 * PTHREAD_PROCESS_SHARED condition variable (a wait in the kernel), are
 * woken and joined; then F fork+exit+waitpid rounds (default 200) are
 * timed at once, and again after IDLE seconds of idleness (default 3).
 * Prints the OS thread and mapping counts before each series and the time
 * per fork.
 * Under weft each such wait holds an OS thread while it sleeps; a fork
 * copies every thread's stack mappings.
 */
#include <sys/mman.h>
#include <sys/wait.h>

#include "bench.h"

struct shm {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int waiting, go;
};
static struct shm *s;

static void *waiter(void *a)
{
	(void)a;
	pthread_mutex_lock(&s->mu);
	s->waiting++;
	while (!s->go)
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* Lines of /proc/self/maps: the mappings a fork copies. */
static long mappings(void)
{
	FILE *m = fopen("/proc/self/maps", "r");
	long n = 0;
	for (int c; m && (c = getc(m)) != EOF;)
		n += c == '\n';
	if (m)
		fclose(m);
	return n;
}

/* Times f rounds; *call gets the time of fork() itself in the parent (the
 * part that copies the process: threads' stacks, mappings). */
static double forks(long f, double *call)
{
	double t0 = now_s(), in_fork = 0;
	for (long i = 0; i < f; i++) {
		double t1 = now_s();
		pid_t p = fork();
		if (p == 0)
			_exit(0);
		in_fork += now_s() - t1;
		if (p < 0)
			return perror("fork"), -1;
		waitpid(p, NULL, 0);
	}
	*call = in_fork / (double)f;
	return (now_s() - t0) / (double)f;
}

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, 1, 1000), f = arg_long(argc, argv, 2, 200);
	long idle = arg_long(argc, argv, 3, 3);
	s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return perror("mmap"), 1;
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&s->mu, &ma);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_cond_init(&s->cv, &ca);
	pthread_t *th = calloc((size_t)n, sizeof *th);
	long made = 0;
	for (; made < n; made++)
		if (pthread_create(&th[made], NULL, waiter, NULL))
			break;
	for (;;) {
		pthread_mutex_lock(&s->mu);
		if (s->waiting >= made) {
			s->go = 1;
			pthread_cond_broadcast(&s->cv);
			pthread_mutex_unlock(&s->mu);
			break;
		}
		pthread_mutex_unlock(&s->mu);
		usleep(2000);
	}
	for (long i = 0; i < made; i++)
		pthread_join(th[i], NULL);
	printf("waiters:                    %ld\n", made);
	printf("OS threads after the waits: %ld\n", proc_status("Threads"));
	printf("mappings after the waits:   %ld\n", mappings());
	double call, round = forks(f, &call);
	printf("fork+exit+wait at once:     %.1f us\n", round * 1e6);
	printf("fork() call at once:        %.1f us\n", call * 1e6);
	sleep((unsigned)idle);
	printf("OS threads after %lds idle:  %ld\n", idle, proc_status("Threads"));
	printf("mappings after idle:        %ld\n", mappings());
	round = forks(f, &call);
	printf("fork+exit+wait after idle:  %.1f us\n", round * 1e6);
	printf("fork() call after idle:     %.1f us\n", call * 1e6);
	return 0;
}
