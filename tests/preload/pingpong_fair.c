/*
 * Two threads hand a token back and forth over a condvar as fast as they
 * can while main waits for a child process to write to a pipe (100 ms),
 * then stops them.  With one proc, weft's poller readies main from sysmon
 * into the global run queue, which the proc must still look at every 61st
 * switch: an off-by-one in the hand-off path once starved main for good.
 */
#include <pthread.h>
#include <sys/wait.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "pingpong.h"
#include "weft_check.h"

int main(void)
{
	weft_check_loaded();
	pthread_t a, b;
	pthread_create(&a, NULL, pingpong_player, (void *)0L);
	pthread_create(&b, NULL, pingpong_player, (void *)1L);
	int fd[2];
	if (pipe(fd))
		return perror("pipe"), 1;
	pid_t pid = fork();
	if (pid == 0) {
		usleep(100000);
		_exit(write(fd[1], "x", 1) == 1 ? 0 : 1);
	}
	char c;
	if (read(fd[0], &c, 1) != 1)
		return perror("read"), 1;
	waitpid(pid, NULL, 0);
	pingpong_stop();
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("main woke while the token moved: %s\n", pp_handoffs > 0 ? "yes" : "no");
	return 0;
}
