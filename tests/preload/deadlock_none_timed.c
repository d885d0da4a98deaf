/* AB/BA, but B waits for m1 with pthread_mutex_timedlock: its wait ends by
 * itself, so the cycle is no deadlock and no report comes; B times out,
 * lets m2 go, and A gets it. */
#define _GNU_SOURCE
#include <pthread.h>

#include "deadlock_util.h"

static pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER, m2 = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;

static void *task_a(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m1);
	pthread_barrier_wait(&both);
	pthread_mutex_lock(&m2);
	pthread_mutex_unlock(&m2);
	pthread_mutex_unlock(&m1);
	return NULL;
}

static void *task_b(void *arg)
{
	(void)arg;
	struct timespec ts;
	pthread_mutex_lock(&m2);
	pthread_barrier_wait(&both);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 4; /* beyond the parent's look of DL_QUIET_MS */
	if (pthread_mutex_timedlock(&m1, &ts) == 0)
		pthread_mutex_unlock(&m1);
	pthread_mutex_unlock(&m2);
	return NULL;
}

static void child(void)
{
	pthread_t a, b;
	pthread_barrier_init(&both, NULL, 2);
	pthread_create(&a, NULL, task_a, NULL);
	pthread_create(&b, NULL, task_b, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	dl_forever();
}

int main(int argc, char **argv)
{
	return dl_main(argc, argv, child, NULL, NULL, NULL, -1);
}
