/* Threads that allocate: blocks made on one thread and freed on another
 * (malloc, calloc, realloc, posix_memalign, aligned_alloc), waves of short
 * threads whose allocator caches die with them (a key destructor frees
 * too), a thread made from a key destructor, and a fork whose child
 * allocates on a new thread.  tests/real/run.sh runs it again with
 * jemalloc, tcmalloc and mimalloc preloaded before and after libweft.so:
 * their locks, thread caches and fork handlers call weft's entries. */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "weft_check.h"

#define NPROD 4
#define NCONS 4
#define PER_PROD 3000
#define QLEN 64
#define WAVES 8
#define WAVE 16

struct blk {
	size_t n;       /* bytes of payload after the header */
	unsigned seed;
};

static struct blk *q[QLEN];
static int qhead, qcount, prod_left = NPROD;
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qput = PTHREAD_COND_INITIALIZER, qtake = PTHREAD_COND_INITIALIZER;
static atomic_long consumed, bytes_ok, bad;
static atomic_int dtor_calls, short_done, late_ran;
static pthread_key_t key;

static unsigned char pat(unsigned seed, size_t i)
{
	return (unsigned char)(seed * 31u + i * 7u);
}

static void fill(struct blk *b)
{
	unsigned char *p = (unsigned char *)(b + 1);
	for (size_t i = 0; i < b->n; i++)
		p[i] = pat(b->seed, i);
}

static int verify(const struct blk *b)
{
	const unsigned char *p = (const unsigned char *)(b + 1);
	for (size_t i = 0; i < b->n; i++)
		if (p[i] != pat(b->seed, i))
			return 0;
	return 1;
}

/* A block by one of five calls, chosen by k; realloc grows a smaller one. */
static struct blk *make(unsigned k, size_t n)
{
	size_t sz = sizeof(struct blk) + n;
	void *v = NULL;
	switch (k % 5) {
	case 0: v = malloc(sz); break;
	case 1: v = calloc(1, sz); break;
	case 2: v = malloc(sz / 2 + 1); v = v ? realloc(v, sz) : NULL; break;
	case 3: if (posix_memalign(&v, 64, sz)) v = NULL; break;
	case 4: v = aligned_alloc(64, (sz + 63) & ~(size_t)63); break;
	}
	if (!v)
		return NULL;
	if (malloc_usable_size(v) < sz)
		atomic_fetch_add(&bad, 1);
	if (k % 5 >= 3 && (uintptr_t)v % 64)
		atomic_fetch_add(&bad, 1);
	struct blk *b = v;
	b->n = n;
	b->seed = k;
	fill(b);
	return b;
}

static void *producer(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	for (unsigned i = 0; i < PER_PROD; i++) {
		unsigned k = id * PER_PROD + i;
		/* Small, medium and now and then large (past the mmap threshold). */
		size_t n = i % 97 == 0 ? 200000 + k % 4096 : (k * 2654435761u) % 3000;
		struct blk *b = make(k, n);
		if (!b) {
			atomic_fetch_add(&bad, 1);
			continue;
		}
		pthread_mutex_lock(&qlock);
		while (qcount == QLEN)
			pthread_cond_wait(&qput, &qlock);
		q[(qhead + qcount++) % QLEN] = b;
		pthread_cond_signal(&qtake);
		pthread_mutex_unlock(&qlock);
	}
	pthread_mutex_lock(&qlock);
	if (--prod_left == 0)
		pthread_cond_broadcast(&qtake);
	pthread_mutex_unlock(&qlock);
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&qlock);
		while (qcount == 0 && prod_left > 0)
			pthread_cond_wait(&qtake, &qlock);
		if (qcount == 0) {
			pthread_mutex_unlock(&qlock);
			return NULL;
		}
		struct blk *b = q[qhead];
		qhead = (qhead + 1) % QLEN;
		qcount--;
		pthread_cond_signal(&qput);
		pthread_mutex_unlock(&qlock);
		if (verify(b)) {
			atomic_fetch_add(&consumed, 1);
			atomic_fetch_add(&bytes_ok, (long)b->n);
		} else {
			atomic_fetch_add(&bad, 1);
		}
		free(b); /* made on another thread */
	}
}

static void *late(void *arg)
{
	free(arg);
	atomic_fetch_add(&late_ran, 1);
	return NULL;
}

/* At a short thread's exit: frees its value, and once makes a thread. */
static void dtor(void *v)
{
	if (atomic_fetch_add(&dtor_calls, 1) == 0) {
		pthread_t t;
		void *m = malloc(100);
		if (m && pthread_create(&t, NULL, late, m) == 0)
			pthread_detach(t);
	}
	free(v);
}

static void *short_lived(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	void *keep[64];
	for (int r = 0; r < 4; r++) {
		for (int i = 0; i < 64; i++)
			keep[i] = malloc(16 + (id * 64 + i) % 1000);
		for (int i = 63; i >= 0; i--)
			free(keep[i]);
	}
	pthread_setspecific(key, strdup("a value freed by the key's destructor"));
	atomic_fetch_add(&short_done, 1);
	return NULL;
}

static void *child_thread(void *arg)
{
	char **v = arg;
	for (int i = 0; i < 100; i++)
		v[i] = malloc(64 + i);
	for (int i = 0; i < 100; i++)
		free(v[i]);
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	pthread_key_create(&key, dtor);

	pthread_t p[NPROD], c[NCONS];
	for (int i = 0; i < NCONS; i++)
		pthread_create(&c[i], NULL, consumer, NULL);
	for (int i = 0; i < NPROD; i++)
		pthread_create(&p[i], NULL, producer, (void *)(uintptr_t)i);
	for (int i = 0; i < NPROD; i++)
		pthread_join(p[i], NULL);
	for (int i = 0; i < NCONS; i++)
		pthread_join(c[i], NULL);
	printf("handed over: %ld blocks, %ld bytes checked\n", (long)consumed, (long)bytes_ok);

	for (int w = 0; w < WAVES; w++) {
		pthread_t s[WAVE];
		for (int i = 0; i < WAVE; i++)
			pthread_create(&s[i], NULL, short_lived, (void *)(uintptr_t)(w * WAVE + i));
		for (int i = 0; i < WAVE; i++)
			pthread_join(s[i], NULL);
	}
	while (atomic_load(&late_ran) == 0)
		sched_yield();
	printf("short threads: %d, key destructors: %d, thread from a destructor: %d\n",
	       (int)short_done, (int)dtor_calls, (int)late_ran);

	/* The child has only the forking thread: the allocator's fork handlers
	 * left its locks usable. */
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		char *v[100];
		pthread_t t;
		void *big = malloc(1 << 20);
		if (!big || pthread_create(&t, NULL, child_thread, v) || pthread_join(t, NULL))
			_exit(1);
		free(big);
		_exit(7);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	printf("fork child: %s\n", WIFEXITED(st) && WEXITSTATUS(st) == 7 ? "allocated on a thread" : "failed");
	printf("bad blocks: %ld\n", (long)bad);
	return bad != 0;
}
