/*
 * deadlock_util.h — running a program part that deadlocks (or only
 * waits) in a child, and reading weft's deadlock report from its stderr.
 *
 * A test's main calls dl_main(argc, argv, child, debug, expect...): it runs
 * itself again as "PROG dl-child" (with WEFTDEBUG=deadlock=DEBUG when debug
 * is given), reading the child's stderr through a pipe.  The child names
 * its objects first (dl_obj: "dl-obj NAME ADDR" lines), then calls
 * child(), which never returns.  The parent waits for the report's end
 * (under weft, at most DL_WAIT_MS) or a short while (natively, where no
 * report comes), kills the child and prints:
 *   under weft: what the report says — "cycle of N: NAME..." (the tasks'
 *   names, sorted), "objects: NAME..." (the objects the report names,
 *   sorted), "all asleep: N tasks" (deadlock=all's report) or "no
 *   report"; and the child's exit status (after a SIGTERM, the report
 *   read), when the test expects one;
 *   natively: the lines the test expects (expect_cycle, expect_objects),
 *   from its own knowledge, since natively no report can come.
 */
#ifndef DEADLOCK_UTIL_H
#define DEADLOCK_UTIL_H
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "weft_check.h"

#define DL_WAIT_MS 10000    /* a report comes 1-1.5 s after the cycle closes */
#define DL_QUIET_MS 2500    /* a negative test: no report within this */

__attribute__((unused)) static void dl_obj(const char *name, const void *addr)
{
	fprintf(stderr, "dl-obj %s %p\n", name, addr);
	fflush(stderr);
}

static long dl_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int dl_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void dl_print_sorted(const char *head, char **v, int n)
{
	qsort(v, n, sizeof *v, dl_cmp);
	printf("%s", head);
	for (int i = 0; i < n; i++)
		if (i == 0 || strcmp(v[i], v[i - 1]))
			printf(" %s", v[i]);
	printf("\n");
}

/* Returns main's exit status.  expect_cycle / expect_objects: the lines the
 * report must give ("cycle of 2: A B", "objects: m1 m2"), or NULL for a
 * test where no report may come ("no report").  expect_status: the
 * child's exit status the test expects (134 with deadlock=abort), or -1 for
 * a child that waits until killed. */
static int dl_main(int argc, char **argv, void (*child)(void), const char *debug,
		   const char *expect_cycle, const char *expect_objects, int expect_status)
{
	if (argc > 1 && !strcmp(argv[1], "dl-child")) {
		child();
		return 3; /* child() never returns */
	}
	weft_check_loaded();
	int weft = weft_loaded();
	int fd[2];
	if (pipe(fd))
		return 2;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		dup2(fd[1], 2);
		close(fd[0]);
		close(fd[1]);
		if (debug) {
			static char env[64];
			snprintf(env, sizeof env, "WEFTDEBUG=deadlock=%s", debug);
			putenv(env);
		}
		execl("/proc/self/exe", argv[0], "dl-child", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	static char buf[1 << 16];
	size_t len = 0;
	int status = -1;
	long end = dl_ms() + (weft ? (expect_cycle ? DL_WAIT_MS : DL_QUIET_MS) : 300);
	for (;;) {
		long left = end - dl_ms();
		if (left <= 0)
			break;
		struct pollfd p = { fd[0], POLLIN, 0 };
		int r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		ssize_t n = read(fd[0], buf + len, sizeof buf - 1 - len);
		if (n <= 0)
			break; /* the child exited (deadlock=abort) */
		len += n;
		buf[len] = 0;
		/* A child that exits after its report: read on to its end. */
		if (expect_status < 0 && strstr(buf, "weft: deadlock: end of report"))
			break;
	}
	buf[len] = 0;
	/* SIGTERM first: a child that waits for it (a daemon) exits 0. */
	if (waitpid(pid, &status, WNOHANG) != pid) {
		kill(pid, SIGTERM);
		for (int i = 0; i < 300 && waitpid(pid, &status, WNOHANG) != pid; i++)
			usleep(10000);
	}
	if (waitpid(pid, &status, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		status = -1;
	} else {
		status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	close(fd[0]);
	if (weft && expect_status >= 0 && status != expect_status)
		fprintf(stderr, "child exit %d; its stderr:\n%s", status, buf);
	if (!weft) {
		/* No report natively: what the test expects of weft's. */
		if (expect_cycle) {
			printf("%s\n", expect_cycle);
			if (expect_objects)
				printf("%s\n", expect_objects);
		} else {
			printf("no report\n");
		}
		if (expect_status >= 0)
			printf("exit %d\n", expect_status);
		return 0;
	}
	/* Under weft: from the report itself. */
	char *objn[64], *obja[64], *names[64], *found[64];
	int nobj = 0, nnames = 0, nfound = 0, cycle = 0, all = 0;
	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		char *sp;
		if (!strncmp(line, "dl-obj ", 7) && nobj < 64 && (sp = strchr(line + 7, ' '))) {
			*sp = 0;
			objn[nobj] = line + 7;
			obja[nobj++] = sp + 1;
			continue;
		}
		if (sscanf(line, "weft: deadlock: %d tasks wait", &cycle) == 1 ||
		    sscanf(line, "weft: deadlock: all %d tasks wait", &all) == 1)
			continue;
		if (strncmp(line, "weft: deadlock:   task ", 23))
			continue;
		/* weft: deadlock:   task N "NAME" waits ... */
		char *q = strchr(line, '"'), *q2 = q ? strchr(q + 1, '"') : NULL;
		if (q2 && nnames < 64)
			names[nnames++] = strndup(q + 1, q2 - q - 1);
		for (int i = 0; i < nobj; i++)
			if (strstr(line, obja[i]) && nfound < 64)
				found[nfound++] = objn[i];
		if (strstr(line, "waits to join"))
			found[nfound++] = "join";
	}
	if (all) {
		printf("all asleep: %d tasks\n", all);
	} else if (!cycle && !nnames) {
		printf("no report\n");
	} else {
		char head[32];
		snprintf(head, sizeof head, "cycle of %d:", cycle);
		dl_print_sorted(head, names, nnames);
		dl_print_sorted("objects:", found, nfound);
	}
	if (expect_status >= 0)
		printf("exit %d\n", status);
	if (strstr(buf, "weft: deadlock") && !expect_cycle)
		fprintf(stderr, "%s", buf); /* the report that should not be */
	return 0;
}

/* A child's last act: wait for ever (natively too) without a lock. */
__attribute__((unused)) static void dl_forever(void)
{
	for (;;)
		pause();
}
#endif
