/* Three tasks in a ring: each holds its own mutex and waits for the next
 * one's.  weft reports the cycle of the three through the three mutexes. */
#define _GNU_SOURCE
#include <pthread.h>

#include "deadlock_util.h"

static pthread_mutex_t m[3] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
				PTHREAD_MUTEX_INITIALIZER };
static pthread_barrier_t all;

static void *ring(void *arg)
{
	long i = (long)arg;
	char name[8];
	snprintf(name, sizeof name, "R%ld", i);
	pthread_setname_np(pthread_self(), name);
	pthread_mutex_lock(&m[i]);
	pthread_barrier_wait(&all);
	pthread_mutex_lock(&m[(i + 1) % 3]);
	return NULL;
}

static void child(void)
{
	pthread_t t[3];
	dl_obj("m0", &m[0]);
	dl_obj("m1", &m[1]);
	dl_obj("m2", &m[2]);
	pthread_barrier_init(&all, NULL, 3);
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, ring, (void *)i);
	pthread_join(t[0], NULL);
}

int main(int argc, char **argv)
{
	return dl_main(argc, argv, child, NULL, "cycle of 3: R0 R1 R2", "objects: m0 m1 m2", -1);
}
