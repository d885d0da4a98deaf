/*
 * spawn_util.h — for preload tests that run themselves again with other
 * weft settings (settings are read once, at start).
 *   spawn_self(argv0, args, set, unset, out, err)  posix_spawn of argv0 with
 *       args, environ plus the "K=V" strings in set (NULL-terminated) minus
 *       the names in unset, stdout and stderr to the files out and err;
 *   wait_exit(pid)       waitpid status;
 *   file_has(path, s)    whether the file contains s;
 *   count_in(path, s)    how many times it does.
 */
#ifndef WEFT_SPAWN_UTIL_H
#define WEFT_SPAWN_UTIL_H
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

static inline pid_t spawn_self(const char *argv0, char *const args[], const char *const set[],
			       const char *const unset[], const char *out, const char *err)
{
	static char *env[4096];
	int n = 0;
	for (char **e = environ; *e && n < 4000; e++) {
		int skip = 0;
		for (int i = 0; set && set[i]; i++)
			if (!strncmp(*e, set[i], strcspn(set[i], "=") + 1))
				skip = 1;
		for (int i = 0; unset && unset[i]; i++)
			if (!strncmp(*e, unset[i], strlen(unset[i])) && (*e)[strlen(unset[i])] == '=')
				skip = 1;
		if (!skip)
			env[n++] = *e;
	}
	for (int i = 0; set && set[i]; i++)
		env[n++] = (char *)set[i];
	env[n] = NULL;
	char *argv[16];
	int a = 0;
	argv[a++] = (char *)argv0;
	for (int i = 0; args[i] && a < 15; i++)
		argv[a++] = args[i];
	argv[a] = NULL;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	pid_t pid;
	int r = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	return r ? -1 : pid;
}

static inline int wait_exit(pid_t pid)
{
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		;
	return st;
}

static inline int count_in(const char *path, const char *s)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	int n = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		for (char *p = line; (p = strstr(p, s)); p += strlen(s))
			n++;
	fclose(f);
	return n;
}

static inline int file_has(const char *path, const char *s)
{
	return count_in(path, s) > 0;
}
#endif
