/* A library whose constructor makes a thread and joins it: dlopen runs it
 * with the loader's lock held (tests/preload/dlopen_ctor_thread.c). */
#include <pthread.h>

int ctor_thread_ran;

static void *body(void *arg)
{
	return arg;
}

__attribute__((constructor)) static void make_thread(void)
{
	pthread_t t;
	void *r = NULL;
	if (pthread_create(&t, NULL, body, (void *)7) == 0)
		pthread_join(t, &r);
	ctor_thread_ran = (int)(long)r;
}
