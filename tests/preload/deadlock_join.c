/* A joins B while B joins A: neither can exit.  weft reports the cycle of
 * the two joins; main, which waits on a semaphore, is not in it. */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>

#include "deadlock_util.h"

static pthread_t ta, tb;
static pthread_barrier_t both;
static sem_t never;

static void *task_a(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "A");
	pthread_barrier_wait(&both);
	pthread_join(tb, NULL);
	return NULL;
}

static void *task_b(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "B");
	pthread_barrier_wait(&both);
	pthread_join(ta, NULL);
	return NULL;
}

static void child(void)
{
	sem_init(&never, 0, 0);
	/* Both handles are stored before either task reads one. */
	pthread_barrier_init(&both, NULL, 3);
	pthread_create(&ta, NULL, task_a, NULL);
	pthread_create(&tb, NULL, task_b, NULL);
	pthread_barrier_wait(&both);
	sem_wait(&never);
}

int main(int argc, char **argv)
{
	return dl_main(argc, argv, child, NULL, "cycle of 2: A B", "objects: join", -1);
}
