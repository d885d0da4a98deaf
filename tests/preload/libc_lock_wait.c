/* Threads that wait for glibc's own locks: a stdio FILE's lock held by
 * main (flockfile), and malloc's arena locks under cross-thread frees.
 *
 *  1. 1,000 threads each write one line to a FILE that main holds locked:
 *     each blocks inside fputs on the FILE's lock.  Under weft they are
 *     tasks parked on a handful of OS threads (GOMAXPROCS + 3 at most, read
 *     from /proc while all wait); natively 1,001 threads.  Every line is
 *     written once main unlocks.
 *  2. The same wait interrupted: signals for the blocked threads, with
 *     SA_RESTART and without, run their handler once each, and the write
 *     still completes (glibc's lock wait goes on after EINTR).
 *  3. A fork while threads wait on the FILE: the child writes with stdio
 *     and allocates, then exits 0.
 *  4. malloc from one thread, free from another, 8 pairs of threads
 *     passing 200,000 blocks through a queue each: every block's contents
 *     arrive intact.
 * The output is the same natively and under weft. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test_util.h"
#include "weft_check.h"

#define NW_MAX 1000
static int NW = NW_MAX;
static FILE *f;
static atomic_int arrived, handled;

static void *writer(void *a)
{
	atomic_fetch_add(&arrived, 1);
	fprintf(f, "line %ld\n", (long)a);
	return NULL;
}

static void on_usr1(int s)
{
	(void)s;
	atomic_fetch_add(&handled, 1);
}

/* Lines in f: each "line K" once, K from 0 to n-1. */
static int check_lines(int n)
{
	fflush(f);
	rewind(f);
	char *seen = calloc((size_t)n, 1);
	char buf[64];
	int lines = 0, bad = 0;
	while (fgets(buf, sizeof buf, f)) {
		long k;
		lines++;
		if (sscanf(buf, "line %ld", &k) != 1 || k < 0 || k >= n || seen[k]++)
			bad++;
	}
	free(seen);
	return lines == n && bad == 0;
}

static int blocked_writers(int n, int signals, int with_fork)
{
	pthread_t *t = calloc((size_t)n, sizeof *t);
	f = tmpfile();
	atomic_store(&arrived, 0);
	atomic_store(&handled, 0);
	flockfile(f);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, writer, (void *)(long)i) != 0) {
			printf("pthread_create failed at %d\n", i);
			exit(1);
		}
	while (atomic_load(&arrived) < n)
		usleep(1000);
	usleep(50000); /* each is now inside fputs, waiting for the lock */
	long threads = os_threads();
	int bound_ok = !getenv("WEFT_EXPECT") || threads <= procs() + 3;
	if (!bound_ok)
		printf("%ld OS threads with %d threads waiting for a FILE (bound %ld)\n",
		       threads, n, procs() + 3);
	if (signals) {
		for (int i = 0; i < n; i += 10)
			pthread_kill(t[i], SIGUSR1);
		while (atomic_load(&handled) < (n + 9) / 10)
			usleep(1000);
	}
	int child_ok = 1;
	if (with_fork) {
		pid_t pid = fork();
		if (pid == 0) {
			char *p = malloc(100000);
			memset(p, 1, 100000);
			printf("child wrote\n");
			fflush(stdout);
			free(p);
			_exit(0);
		}
		int st;
		child_ok = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
			   WEXITSTATUS(st) == 0;
	}
	funlockfile(f);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	int ok = check_lines(n) && bound_ok && child_ok &&
		 (!signals || atomic_load(&handled) == (n + 9) / 10);
	fclose(f);
	free(t);
	return ok;
}

/* ---- 4: blocks malloc'ed by one thread, freed by another ---- */
#define QN 256
#define PER 200000
struct q {
	pthread_mutex_t m;
	pthread_cond_t c;
	unsigned char *v[QN];
	int h, t;
};

static void *producer(void *a)
{
	struct q *q = a;
	for (int i = 0; i < PER; i++) {
		size_t sz = 16 + (size_t)(i % 61) * 8;
		unsigned char *b = malloc(sz);
		memset(b, (unsigned char)i, sz);
		b[0] = (unsigned char)(sz / 8);
		pthread_mutex_lock(&q->m);
		while (q->t - q->h == QN)
			pthread_cond_wait(&q->c, &q->m);
		q->v[q->t++ % QN] = b;
		pthread_cond_broadcast(&q->c);
		pthread_mutex_unlock(&q->m);
	}
	return NULL;
}

static void *consumer(void *a)
{
	struct q *q = a;
	long bad = 0;
	for (int i = 0; i < PER; i++) {
		pthread_mutex_lock(&q->m);
		while (q->t == q->h)
			pthread_cond_wait(&q->c, &q->m);
		unsigned char *b = q->v[q->h++ % QN];
		pthread_cond_broadcast(&q->c);
		pthread_mutex_unlock(&q->m);
		size_t sz = (size_t)b[0] * 8;
		if (sz != 16 + (size_t)(i % 61) * 8)
			bad++;
		for (size_t k = 1; k < sz; k++)
			if (b[k] != (unsigned char)i) {
				bad++;
				break;
			}
		free(b);
	}
	return (void *)bad;
}

static int cross_frees(void)
{
	enum { PAIRS = 8 };
	static struct q qs[PAIRS];
	pthread_t p[PAIRS], c[PAIRS];
	for (int i = 0; i < PAIRS; i++) {
		pthread_mutex_init(&qs[i].m, NULL);
		pthread_cond_init(&qs[i].c, NULL);
		pthread_create(&c[i], NULL, consumer, &qs[i]);
		pthread_create(&p[i], NULL, producer, &qs[i]);
	}
	long bad = 0;
	for (int i = 0; i < PAIRS; i++) {
		void *r;
		pthread_join(p[i], NULL);
		pthread_join(c[i], &r);
		bad += (long)r;
	}
	return bad == 0;
}

int main(void)
{
	weft_check_loaded();
	NW = test_threads(NW_MAX);
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	printf("writers waiting for a locked FILE: %s\n", blocked_writers(NW, 0, 0) ? "ok" : "FAIL");
	printf("the same, signalled (SA_RESTART off): %s\n",
	       blocked_writers(NW / 4, 1, 0) ? "ok" : "FAIL");
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	printf("the same, signalled (SA_RESTART on): %s\n",
	       blocked_writers(NW / 4, 1, 0) ? "ok" : "FAIL");
	fflush(stdout);
	printf("a fork while they wait: %s\n", blocked_writers(NW / 4, 0, 1) ? "ok" : "FAIL");
	printf("malloc here, free there: %s\n", cross_frees() ? "ok" : "FAIL");
	return 0;
}
