/* Many threads create processes at once, every way libc offers: system,
 * popen + pclose, fork + exec + waitpid, fork + _exit, posix_spawn and
 * vfork + _exit, round after round.  Each thread keeps its own number in a
 * __thread variable and checks it after every call, and each forked child
 * exits with a status made from what its own copy of that variable holds:
 * a thread pointer that ends up under the wrong thread shows as a wrong
 * number or a wrong status, and one that maps nothing as a crash.  The
 * counts printed are the same natively and under weft. */
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "weft_check.h"

#define THREADS 12
#define ROUNDS 3

extern char **environ;
static __thread long mine;
static pthread_barrier_t start;

enum { SYSTEM, POPEN, FORK_EXEC, FORK_EXIT, SPAWN, VFORK, KINDS };
static const char *const names[KINDS] = { "system", "popen", "fork+exec", "fork+_exit",
					  "posix_spawn", "vfork" };
static int ok[THREADS][KINDS], tls_bad[THREADS];

static int exited_with(pid_t pid, int code)
{
	int st;
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == code;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	mine = id;
	pthread_barrier_wait(&start);
	for (int r = 0; r < ROUNDS; r++) {
		int s = system("exit 3");
		ok[id][SYSTEM] += WIFEXITED(s) && WEXITSTATUS(s) == 3;
		tls_bad[id] += mine != id;

		FILE *p = popen("echo hi", "r");
		char buf[16] = { 0 };
		int got = p && fgets(buf, sizeof buf, p) && strcmp(buf, "hi\n") == 0;
		ok[id][POPEN] += p && pclose(p) == 0 && got;
		tls_bad[id] += mine != id;

		pid_t pid = fork();
		if (pid == 0) {
			execl("/bin/sh", "sh", "-c", "exit 7", (char *)0);
			_exit(127);
		}
		ok[id][FORK_EXEC] += exited_with(pid, 7);
		tls_bad[id] += mine != id;

		pid = fork();
		if (pid == 0)
			_exit(mine == id ? 10 + (int)id : 1);
		ok[id][FORK_EXIT] += exited_with(pid, 10 + (int)id);
		tls_bad[id] += mine != id;

		char *argv[] = { "sh", "-c", "exit 5", NULL };
		ok[id][SPAWN] += posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) == 0 &&
				 exited_with(pid, 5);
		tls_bad[id] += mine != id;

		pid = vfork();
		if (pid == 0)
			_exit(9);
		ok[id][VFORK] += exited_with(pid, 9);
		tls_bad[id] += mine != id;
	}
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	pthread_t t[THREADS];
	pthread_barrier_init(&start, NULL, THREADS);
	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i)) {
			puts("pthread_create failed");
			return 1;
		}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	int bad = 0;
	for (int k = 0; k < KINDS; k++) {
		int n = 0;
		for (int i = 0; i < THREADS; i++)
			n += ok[i][k];
		printf("%s: %d of %d\n", names[k], n, THREADS * ROUNDS);
		bad |= n != THREADS * ROUNDS;
	}
	int tb = 0;
	for (int i = 0; i < THREADS; i++)
		tb += tls_bad[i];
	printf("thread-local values changed under a thread: %d\n", tb);
	return bad || tb;
}
