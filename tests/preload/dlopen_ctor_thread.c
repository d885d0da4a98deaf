/*
 * The process's first thread made by a library's constructor, which
 * dlopen runs with the loader's recursive lock held.  glibc records that
 * lock's holder as the tid field of the holder's TCB, and weft, starting
 * at that first thread (sched/core/start.c), changes main's field: the lock
 * must still be main's when dlopen releases it, or the next dlopen (here
 * from a second thread, then from main) waits for it for ever.
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "weft_check.h"

static char dir[PATH_MAX];

static void *open_lib(void *name)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof path, "%s/%s", dir, (const char *)name);
	return dlopen(path, RTLD_NOW);
}

int main(void)
{
	weft_check_loaded();
	ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
	if (n <= 0)
		return 1;
	dir[n] = 0;
	strcpy(dir, dirname(dir));
	void *h = open_lib("libctor_thread.so");
	int *ran = h ? dlsym(h, "ctor_thread_ran") : NULL;
	printf("constructor's thread: %d\n", ran ? *ran : -1);
	pthread_t t;
	void *h2 = NULL;
	pthread_create(&t, NULL, open_lib, "libtls_gd.so");
	pthread_join(t, &h2);
	printf("dlopen from a thread: %s\n", h2 ? "loaded" : dlerror());
	printf("dlclose from main: %d\n", dlclose(h2));
	printf("dlopen from main again: %s\n", open_lib("libtls_gd.so") ? "loaded" : dlerror());
	return 0;
}
