/* A task waits on a condition variable with a timeout far ahead, main
 * joins it: a timer is pending, so even WEFTDEBUG=deadlock=all reports
 * nothing. */
#define _GNU_SOURCE
#include <pthread.h>

#include "deadlock_util.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;

static void *waiter(void *arg)
{
	(void)arg;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 60;
	pthread_mutex_lock(&m);
	pthread_cond_timedwait(&c, &m, &ts);
	pthread_mutex_unlock(&m);
	return NULL;
}

static void child(void)
{
	pthread_t w;
	pthread_create(&w, NULL, waiter, NULL);
	pthread_join(w, NULL);
}

int main(int argc, char **argv)
{
	return dl_main(argc, argv, child, "all", NULL, NULL, -1);
}
