/*
 * weft-measure FD PROG [ARGS...] — runs PROG and writes the kernel's
 * accounting of the finished run to descriptor FD, for `weft compare`:
 *
 *   status S maxrss KB utime US stime US
 *
 * S is PROG's wait status; KB the largest ru_maxrss of PROG and of every
 * descendant reaped by then; US the user and system CPU of all of them, in
 * microseconds (getrusage(RUSAGE_CHILDREN) once PROG is reaped).
 *
 * Why a process between compare.py and PROG: at exec the kernel folds the
 * high-water RSS of the image being replaced into the process's ru_maxrss,
 * and a child forked from Python carries a copy of Python's pages (about
 * 10 MB), so every program forked straight from compare.py reports at least
 * that.  This helper is small and static (no libc pages to copy, and
 * LD_PRELOAD does not load into it), so what it forks starts near zero.
 * It is the subreaper of PROG's tree: a descendant orphaned by its parent
 * is reaped here and counted too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: weft-measure FD PROG [ARGS...]\n");
		return 2;
	}
	int fd = atoi(argv[1]);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "weft: compare: fork: %s\n", strerror(errno));
		return 127;
	}
	if (pid == 0) {
		close(fd);
		execvp(argv[2], argv + 2);
		fprintf(stderr, "weft: compare: cannot run %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* Descendants already finished and orphaned to this process. */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	dprintf(fd, "status %d maxrss %ld utime %ld stime %ld\n", status, ru.ru_maxrss,
		(long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
		(long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec);
	return 0;
}
