/* R holds rwlock L for reading and waits for mutex M; W holds M and waits
 * to write-lock L.  glibc records no readers: weft's report still names R
 * as L's holder. */
#define _GNU_SOURCE
#include <pthread.h>

#include "deadlock_util.h"

static pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;

static void *reader(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "R");
	pthread_rwlock_rdlock(&l);
	pthread_barrier_wait(&both);
	pthread_mutex_lock(&m);
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "W");
	pthread_mutex_lock(&m);
	pthread_barrier_wait(&both);
	pthread_rwlock_wrlock(&l);
	return NULL;
}

static void child(void)
{
	pthread_t r, w;
	dl_obj("L", &l);
	dl_obj("M", &m);
	pthread_barrier_init(&both, NULL, 2);
	pthread_create(&r, NULL, reader, NULL);
	pthread_create(&w, NULL, writer, NULL);
	pthread_join(r, NULL);
}

int main(int argc, char **argv)
{
	return dl_main(argc, argv, child, NULL, "cycle of 2: R W", "objects: L M", -1);
}
