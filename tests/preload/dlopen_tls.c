/*
 * dlopen_tls [big] — a library with initial-exec TLS, dlopen'ed while 50
 * threads wait: those threads, 50 created after, and main all see its
 * initial values, and each keeps its own copy across blocking calls.
 * "big" loads a library with more static TLS than weft keeps free under a
 * task (tests/real/run.sh checks weft's message and WEFT_STATIC_TLS=full).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "weft_check.h"

#define N 50

static pthread_barrier_t created, loaded;
static int (*ie_check)(long), (*ie_mine)(long);
static atomic_int saw_init, kept;

static void *old_thread(void *arg)
{
	pthread_barrier_wait(&created);
	pthread_barrier_wait(&loaded); /* parked while main loads the library */
	long id = (long)arg;
	saw_init += ie_check(id);
	usleep(1000);
	kept += ie_mine(id);
	return NULL;
}

static void *new_thread(void *arg)
{
	long id = (long)arg;
	saw_init += ie_check(id);
	usleep(1000);
	kept += ie_mine(id);
	return NULL;
}

int main(int argc, char **argv)
{
	weft_check_loaded();
	int big = argc > 1 && !strcmp(argv[1], "big");
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
	if (n <= 0)
		return perror("readlink"), 1;
	path[n] = 0;
	strcat(dirname(path), big ? "/libtls_ie_big.so" : "/libtls_ie.so");

	pthread_t th[2 * N];
	pthread_barrier_init(&created, NULL, N + 1);
	pthread_barrier_init(&loaded, NULL, N + 1);
	for (long i = 0; i < N; i++)
		pthread_create(&th[i], NULL, old_thread, (void *)(i + 1));
	pthread_barrier_wait(&created);
	usleep(20000);
	void *h = dlopen(path, RTLD_NOW);
	if (!h)
		return printf("dlopen: %s\n", dlerror()), 1;
	ie_check = (int (*)(long))dlsym(h, "ie_check");
	ie_mine = (int (*)(long))dlsym(h, "ie_mine");
	pthread_barrier_wait(&loaded);
	for (long i = N; i < 2 * N; i++)
		pthread_create(&th[i], NULL, new_thread, (void *)(i + 1));
	int main_ok = ie_check(1000);
	for (int i = 0; i < 2 * N; i++)
		pthread_join(th[i], NULL);
	main_ok += ie_mine(1000);
	printf("threads that saw the initial values: %d of %d\n", saw_init, 2 * N);
	printf("threads that kept their own values:  %d of %d\n", kept, 2 * N);
	printf("main: %s\n", main_ok == 2 ? "ok" : "wrong");
	return 0;
}
