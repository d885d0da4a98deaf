/* sched_yield gives the CPU to another process when no other thread of
 * the caller's is ready: two processes pinned to one CPU, each SCHED_FIFO
 * 10, append to a shared log and yield, 300 times each; natively they
 * alternate (a yield puts the caller at the back of its priority's list).
 * The test asks for most entries to follow one of the other process.  It
 * also checks that a yield with nothing else to run returns 0 at once.
 * Needs root (CI runs as root). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "prio_util.h"
#include "weft_check.h"

#define N 300

struct shared {
	_Atomic int ready;
	_Atomic int n;
	char log[2 * N];
};

static int run(struct shared *s, char me)
{
	struct sched_param sp = { 10 };
	int r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	atomic_fetch_add(&s->ready, 1);
	while (atomic_load(&s->ready) < 2)
		sched_yield();
	for (int i = 0; i < N; i++) {
		s->log[atomic_fetch_add(&s->n, 1)] = me;
		sched_yield();
	}
	sp.sched_priority = 0;
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	return r;
}

int main(void)
{
	weft_check_loaded();
	printf("yield alone: %d\n", sched_yield());
	struct shared *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cpu_set_t all;
	printf("pin: %d\n", pin_first_cpu(&all));
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		_exit(run(s, 'c'));
	int r = run(s, 'p');
	int st;
	waitpid(pid, &st, 0);
	printf("FIFO 10: parent %s, child %s\n", r ? strerrorname_np(r) : "0",
	       WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "0" : "failed");
	int n = atomic_load(&s->n), alt = 0;
	for (int i = 1; i < n; i++)
		alt += s->log[i] != s->log[i - 1];
	printf("entries %d, alternating: %s\n", n, alt >= n / 2 ? "mostly" : "no");
	sched_setaffinity(0, sizeof all, &all);
	return 0;
}
