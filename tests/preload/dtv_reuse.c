/*
 * dtv_reuse — waves of threads that use a dlopen'ed library's dynamic TLS
 * (global-dynamic: a block per thread, allocated at its first access and
 * freed when the thread ends), half of each wave joined at once and half
 * left unjoined until the next wave, so later threads start where earlier
 * ones ended (a runtime that hands an ended thread's TLS vector on must
 * clear it).  Every thread must see the library's initial values, keep its
 * own across a blocking call, and the process must not grow wave by wave:
 * the block is each thread's first malloc, which gives it a malloc cache
 * of its own that must go when the thread ends.  Threads created before
 * the dlopen reach the library's TLS after it: their TLS vectors must grow
 * for a module that came later.
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
#include "test_util.h"

#define WAVES 60
#define N 200

static int (*gd_check)(long), (*gd_mine)(long);
static atomic_int saw_init, kept;
static struct gate loaded = GATE_INIT;

static void *early(void *arg)
{
	gate_wait(&loaded);
	long id = (long)arg;
	saw_init += gd_check(id);
	usleep(100);
	kept += gd_mine(id);
	return NULL;
}

static void *body(void *arg)
{
	long id = (long)arg;
	saw_init += gd_check(id);
	usleep(100);
	kept += gd_mine(id);
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	if (skip_native_rss())
		return 0;
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
	if (n <= 0)
		return perror("readlink"), 1;
	path[n] = 0;
	strcat(dirname(path), "/libtls_gd.so");
	pthread_t before[N];
	for (long i = 0; i < N; i++)
		pthread_create(&before[i], NULL, early, (void *)(WAVES * N + i + 1));
	void *h = dlopen(path, RTLD_NOW);
	if (!h)
		return printf("dlopen: %s\n", dlerror()), 1;
	gd_check = (int (*)(long))dlsym(h, "gd_check");
	gd_mine = (int (*)(long))dlsym(h, "gd_mine");
	gate_open(&loaded);
	for (long i = 0; i < N; i++)
		pthread_join(before[i], NULL);
	pthread_t th[2][N];
	long rss5 = 0, total = N;
	for (int w = 0; w < WAVES; w++) {
		pthread_t *cur = th[w % 2], *prev = th[(w + 1) % 2];
		for (long i = 0; i < N; i++)
			pthread_create(&cur[i], NULL, body, (void *)(w * N + i + 1));
		for (long i = 0; i < N; i += 2)
			pthread_join(cur[i], NULL);
		if (w > 0)
			for (long i = 1; i < N; i += 2)
				pthread_join(prev[i], NULL);
		total += N;
		if (w == 4)
			rss5 = status_kb("VmRSS");
	}
	for (long i = 1; i < N; i += 2)
		pthread_join(th[(WAVES - 1) % 2][i], NULL);
	long grew = status_kb("VmRSS") - rss5;
	printf("threads that saw the initial values: %d of %ld\n", saw_init, total);
	printf("threads that kept their own values:  %d of %ld\n", kept, total);
	printf("main: %s\n", gd_check(-1) && gd_mine(-1) ? "ok" : "wrong");
	printf("RSS growth from wave 5 to %d under 2 MB: %s\n", WAVES, grew < 2048 ? "yes" : "no");
	if (grew >= 2048)
		fprintf(stderr, "grew %ld kB\n", grew);
	return 0;
}
