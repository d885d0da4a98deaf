/* A library whose constructor registers atfork handlers that use threads:
 * the loader runs it before libweft's constructor, since the program
 * needs it and libweft is only preloaded (tests/preload/atfork_ctor.c).
 * The prepare handler sleeps; the child handler notes the owner id a
 * mutex it locks gets (glibc's tid field of the thread), then makes a
 * thread and joins it, which needs the child's runtime rebuilt first. */
#include <pthread.h>
#include <unistd.h>

int atfork_ctor_child_result;
int atfork_ctor_child_owner;
int atfork_ctor_registered;
pthread_mutex_t atfork_ctor_mutex = PTHREAD_MUTEX_INITIALIZER;

static void *body(void *arg)
{
	return arg;
}

static void prepare(void)
{
	usleep(1000);
}

static void child(void)
{
	pthread_t t;
	void *r = NULL;
	atfork_ctor_child_result = 0;
	pthread_mutex_lock(&atfork_ctor_mutex);
	atfork_ctor_child_owner = atfork_ctor_mutex.__data.__owner;
	pthread_mutex_unlock(&atfork_ctor_mutex);
	if (pthread_create(&t, NULL, body, (void *)7) == 0 && pthread_join(t, &r) == 0)
		atfork_ctor_child_result = (int)(long)r;
}

__attribute__((constructor)) static void reg(void)
{
	atfork_ctor_registered = pthread_atfork(prepare, NULL, child) == 0;
}
