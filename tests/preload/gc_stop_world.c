/*
 * Boehm GC's stop-the-world collector across parked threads.  GC_gcollect
 * suspends every registered thread with a signal (pthread_kill of
 * GC_SIG_SUSPEND), waits for each handler's acknowledgement, and scans each
 * thread's stack from the stack pointer its handler recorded to the base
 * pthread_getattr_np gave.  Six threads, registered through gc.h's redirects
 * of pthread_create and pthread_join, each build a list of GC objects whose
 * only root is a local of their own frame, then park: on a condition
 * variable, a mutex main holds, a sleep, a semaphore, a pipe read, and a
 * join of a thread of their own that waits on a semaphore.  Meanwhile main
 * collects several times and allocates objects of the same size, filling
 * each with a pattern: a list node the collector missed would be freed,
 * handed out again and overwritten.  Woken, each thread checks every node.
 * Under weft the collector once aborted ("Signals delivery fails
 * constantly") as soon as a registered thread was parked.
 */
#define GC_THREADS
#include <gc.h>

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "weft_check.h"

enum { COND, MUTEX, SLEEP, SEM, READ, JOIN, NMODES };
static const char *const names[NMODES] = { "cond", "mutex", "sleep", "sem", "read", "join" };

#define ROUNDS 12
#define NODES 200

struct node {
	struct node *next;
	long tag;
	long pad[6];
};

static pthread_barrier_t start;
static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER, held = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int gen;
static sem_t sem, child_sem;
static int pipefd[2];
static atomic_int parked;
static long bad[NMODES];

static long tag_of(int mode, int round, int i)
{
	return (long)mode << 32 | (long)round << 16 | i;
}

static struct node *build(int mode, int round)
{
	struct node *head = NULL;
	for (int i = 0; i < NODES; i++) {
		struct node *n = GC_MALLOC(sizeof *n);
		n->next = head;
		n->tag = tag_of(mode, round, i);
		for (int k = 0; k < 6; k++)
			n->pad[k] = n->tag ^ k;
		head = n;
	}
	return head;
}

static long check(struct node *head, int mode, int round)
{
	long wrong = 0;
	int i = NODES;
	for (struct node *n = head; n; n = n->next) {
		i--;
		if (i < 0 || n->tag != tag_of(mode, round, i))
			return wrong + 1;
		for (int k = 0; k < 6; k++)
			wrong += n->pad[k] != (n->tag ^ k);
	}
	return wrong + (i != 0);
}

static void *child(void *arg)
{
	(void)arg;
	struct node *volatile mine = build(NMODES, 0);
	while (sem_wait(&child_sem) != 0 && errno == EINTR)
		;
	return (void *)check(mine, NMODES, 0);
}

static void park_once(int mode, int round)
{
	char c;
	pthread_t th;
	void *rv;
	switch (mode) {
	case COND:
		pthread_mutex_lock(&cm);
		atomic_fetch_add(&parked, 1);
		while (gen <= round)
			pthread_cond_wait(&cv, &cm);
		pthread_mutex_unlock(&cm);
		break;
	case MUTEX:
		atomic_fetch_add(&parked, 1);
		pthread_mutex_lock(&held);
		pthread_mutex_unlock(&held);
		break;
	case SLEEP:
		atomic_fetch_add(&parked, 1);
		usleep(20000); /* EINTR is fine: the next collection finds it elsewhere */
		break;
	case SEM:
		atomic_fetch_add(&parked, 1);
		while (sem_wait(&sem) != 0 && errno == EINTR)
			;
		break;
	case READ:
		atomic_fetch_add(&parked, 1);
		while (read(pipefd[0], &c, 1) != 1)
			;
		break;
	case JOIN:
		pthread_create(&th, NULL, child, NULL);
		atomic_fetch_add(&parked, 1);
		pthread_join(th, &rv);
		bad[JOIN] += (long)rv;
		break;
	}
}

static void *worker(void *arg)
{
	int mode = (int)(long)arg;
	for (int r = 0; r < ROUNDS; r++) {
		pthread_barrier_wait(&start); /* the last round is over */
		pthread_barrier_wait(&start); /* main holds `held` */
		struct node *volatile mine = build(mode, r);
		park_once(mode, r);
		bad[mode] += check(mine, mode, r);
	}
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	GC_INIT();
	pthread_barrier_init(&start, NULL, NMODES + 1);
	sem_init(&sem, 0, 0);
	sem_init(&child_sem, 0, 0);
	if (pipe(pipefd) != 0)
		return 1;
	pthread_t th[NMODES];
	for (long m = 0; m < NMODES; m++)
		pthread_create(&th[m], NULL, worker, (void *)m);
	for (int r = 0; r < ROUNDS; r++) {
		pthread_barrier_wait(&start);
		pthread_mutex_lock(&held);
		pthread_barrier_wait(&start);
		while (atomic_load(&parked) < NMODES * (r + 1))
			usleep(1000);
		usleep(2000);
		for (int k = 0; k < 4; k++) {
			GC_gcollect();
			for (int i = 0; i < 4 * NODES; i++) {
				struct node *n = GC_MALLOC(sizeof *n);
				n->tag = -1;
				for (int j = 0; j < 6; j++)
					n->pad[j] = -1;
			}
		}
		pthread_mutex_lock(&cm);
		gen = r + 1;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&cm);
		pthread_mutex_unlock(&held);
		sem_post(&sem);
		sem_post(&child_sem);
		if (write(pipefd[1], "x", 1) != 1)
			return 1;
	}
	for (int m = 0; m < NMODES; m++)
		pthread_join(th[m], NULL);
	for (int m = 0; m < NMODES; m++)
		printf("%s: %d rounds, %ld damaged nodes\n", names[m], ROUNDS, bad[m]);
	printf("collections ran: %s\n", GC_get_gc_no() >= 4 * ROUNDS ? "yes" : "no");
	return 0;
}
