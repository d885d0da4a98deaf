/* Boehm GC with many registered threads: 200 threads, created through
 * gc.h's GC_pthread_create (GC_THREADS), park on a condition variable
 * while main allocates linked lists and runs 50 full collections, each of
 * which stops and scans every registered thread.  Prints what survived. */
#define GC_THREADS
#include <gc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 200
#define NCOLLECT 50
#define NODES    20000

struct node { struct node *next; long v; };

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go, parked;   /* protected by mu */

static void *parker(void *arg)
{
	/* Each thread keeps a small GC-allocated list alive on its stack. */
	struct node *keep = NULL;
	for (int i = 0; i < 8; i++) {
		struct node *n = GC_MALLOC(sizeof *n);
		n->v = (long)arg + i;
		n->next = keep;
		keep = n;
	}
	pthread_mutex_lock(&mu);
	parked++;
	pthread_cond_broadcast(&cv);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	long sum = 0;
	for (struct node *n = keep; n; n = n->next)
		sum += n->v;
	return (void *)sum;
}

int main(void)
{
	GC_INIT();
	pthread_t t[NTHREADS];
	for (long i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, parker, (void *)(i * 100)) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	pthread_mutex_lock(&mu);
	while (parked < NTHREADS)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);

	long live = 0;
	struct node *head = NULL;
	for (int c = 0; c < NCOLLECT; c++) {
		/* Garbage: a list dropped before the collection; kept: every
		 * tenth list stays reachable from head. */
		struct node *l = NULL;
		for (int i = 0; i < NODES; i++) {
			struct node *n = GC_MALLOC(sizeof *n);
			n->v = i;
			n->next = l;
			l = n;
		}
		if (c % 10 == 0) {
			struct node *tail = l;
			while (tail->next)
				tail = tail->next;
			tail->next = head;
			head = l;
		}
		GC_gcollect();
	}
	for (struct node *n = head; n; n = n->next)
		live++;

	pthread_mutex_lock(&mu);
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	long total = 0;
	for (int i = 0; i < NTHREADS; i++) {
		void *r;
		pthread_join(t[i], &r);
		total += (long)r;
	}
	printf("collections %d, live nodes %ld, thread sum %ld\n", NCOLLECT, live, total);
	return 0;
}
