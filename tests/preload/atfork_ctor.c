/*
 * atfork_ctor — atfork handlers registered by a library's constructor,
 * which runs before libweft's (the program needs the library; libweft is
 * preloaded), then forks from threads.  weft's prepare handler must run
 * after the program's and its child handler, which rebuilds the runtime
 * in the child, before them: the library's child handler locks a mutex,
 * whose owner id must be the one the child has once fork returns, and
 * makes and joins a thread.  weft registered its handlers in its
 * constructor, after the library's: in the library's child handler the
 * forking task's TCB still held the tid the kernel had written there, not
 * the task's own (process/fork.c), 12 of 12 forks.
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "weft_check.h"

#define THREADS 3
#define FORKS 4

extern int atfork_ctor_child_result;
extern int atfork_ctor_child_owner;
extern int atfork_ctor_registered;
extern pthread_mutex_t atfork_ctor_mutex;

/* In the child: the owner id a lock gets now is the one the library's
 * child handler saw, and its thread ran. */
static int child_status(void)
{
	pthread_mutex_lock(&atfork_ctor_mutex);
	int owner = atfork_ctor_mutex.__data.__owner;
	pthread_mutex_unlock(&atfork_ctor_mutex);
	if (owner != atfork_ctor_child_owner)
		return 2;
	return atfork_ctor_child_result == 7 ? 7 : 1;
}

static void *forker(void *arg)
{
	long ok = 0;
	for (int i = 0; i < FORKS; i++) {
		pid_t p = fork();
		if (p == 0)
			_exit(child_status());
		int st;
		if (p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 7)
			ok++;
	}
	return (void *)ok;
}

int main(void)
{
	weft_check_loaded();
	printf("library registered its handlers: %s\n", atfork_ctor_registered ? "yes" : "no");
	pthread_t t[THREADS];
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, forker, NULL);
	long ok = 0;
	for (int i = 0; i < THREADS; i++) {
		void *r;
		pthread_join(t[i], &r);
		ok += (long)r;
	}
	printf("forks whose child handler ran on the child's runtime: %ld of %d\n", ok,
	       THREADS * FORKS);
	return 0;
}
