/* Two tasks take two mutexes in opposite orders (AB/BA) and wait for each
 * other for ever: weft reports the cycle of A and B through m1 and m2. */
#define _GNU_SOURCE
#include <pthread.h>

#include "deadlock_util.h"

static pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER, m2 = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;

static void *task_a(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "A");
	pthread_mutex_lock(&m1);
	pthread_barrier_wait(&both);
	pthread_mutex_lock(&m2);
	return NULL;
}

static void *task_b(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "B");
	pthread_mutex_lock(&m2);
	pthread_barrier_wait(&both);
	pthread_mutex_lock(&m1);
	return NULL;
}

static void child(void)
{
	pthread_t a, b;
	dl_obj("m1", &m1);
	dl_obj("m2", &m2);
	pthread_barrier_init(&both, NULL, 2);
	pthread_create(&a, NULL, task_a, NULL);
	pthread_create(&b, NULL, task_b, NULL);
	dl_forever();
}

int main(int argc, char **argv)
{
	return dl_main(argc, argv, child, NULL, "cycle of 2: A B", "objects: m1 m2", -1);
}
