/* liballoc_hook.so: a malloc that calls back into the thread library, as
 * allocators do, from the first call on: every malloc, calloc and realloc
 * locks and unlocks a mutex and reads pthread_self, and the first HOOK_MAX
 * of them (not counting those made inside one) each create and join a
 * thread.  Preloaded before or after libweft.so (tests/real/run.sh), its
 * first calls come from the loader and libc before weft starts, from
 * weft's start itself, and from the program.  The memory is glibc's. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#define HOOK_MAX 200

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static __thread int inside __attribute__((tls_model("initial-exec")));
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int made;
static pthread_t volatile last_self;

static void *nothing(void *arg)
{
	return arg;
}

static void hook(void)
{
	if (inside)
		return;
	inside = 1;
	pthread_mutex_lock(&mu);
	last_self = pthread_self();
	pthread_mutex_unlock(&mu);
	if (atomic_fetch_add(&made, 1) < HOOK_MAX) {
		pthread_t t;
		if (pthread_create(&t, NULL, nothing, NULL) == 0)
			pthread_join(t, NULL);
	}
	inside = 0;
}

void *malloc(size_t n)
{
	hook();
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t sz)
{
	hook();
	return __libc_calloc(n, sz);
}

void *realloc(void *p, size_t n)
{
	hook();
	return __libc_realloc(p, n);
}
