/* WEFTDEBUG=deadlock=all: the daemon of deadlock_none_sigterm, whose every
 * task waits with nothing inside the process to wake them, is reported
 * ("all tasks asleep"), and goes on: SIGTERM still ends it. */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>

#include "deadlock_util.h"

static sem_t stop;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void on_term(int sig)
{
	(void)sig;
	sem_post(&stop);
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	return NULL;
}

static void child(void)
{
	pthread_t w;
	sem_init(&stop, 0, 0);
	signal(SIGTERM, on_term);
	pthread_mutex_lock(&m);
	pthread_create(&w, NULL, worker, NULL);
	while (sem_wait(&stop) != 0)
		;
	pthread_mutex_unlock(&m);
	pthread_join(w, NULL);
	exit(0);
}

int main(int argc, char **argv)
{
	return dl_main(argc, argv, child, "all", "all asleep: 2 tasks", NULL, 0);
}
