/*
 * fork_trace: forks three children; each, and then the parent, runs a
 * little thread work (4 threads passing a token round a ring of condition
 * variables, so tasks park and wake each other).  For WEFTDEBUG=trace
 * (tests/tools/run.sh): every process's trace is its own file.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define NT 4
#define ROUNDS 200

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv[NT];
static int turn, passes;

static void *ring(void *arg)
{
	int me = (int)(long)arg;
	pthread_mutex_lock(&mu);
	for (int r = 0; r < ROUNDS; r++) {
		while (turn != me)
			pthread_cond_wait(&cv[me], &mu);
		passes++;
		turn = (me + 1) % NT;
		pthread_cond_signal(&cv[turn]);
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

static int work(void)
{
	pthread_t t[NT];
	turn = passes = 0;
	for (int i = 0; i < NT; i++)
		pthread_cond_init(&cv[i], NULL);
	for (int i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, ring, (void *)(long)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	return passes;
}

int main(void)
{
	pid_t kids[3];
	for (int k = 0; k < 3; k++) {
		kids[k] = fork();
		if (kids[k] < 0)
			return 1;
		if (kids[k] == 0)
			exit(work() == NT * ROUNDS ? 0 : 1);
	}
	int bad = 0;
	for (int k = 0; k < 3; k++) {
		int st;
		waitpid(kids[k], &st, 0);
		bad += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	}
	printf("children ok: %d of 3, parent passes %d\n", 3 - bad, work());
	return bad != 0;
}
