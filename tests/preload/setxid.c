/* Credentials are the process's (POSIX), though Linux keeps them per
 * thread: a daemon started as root drops to nobody with initgroups, setgid
 * and setuid while other threads are parked on a condvar, spinning, blocked
 * in flock (a call no poller can wait for) and in a raw read(2) (a call
 * nobody intercepts).  Every thread the kernel lists must then show the new
 * ids, threads created afterwards too, a file only root may read is
 * refused to every thread, setuid(0) fails with EPERM everywhere, a fork
 * child and an exec'd program see the new ids, and the threads blocked
 * through the change finish normally.  The seteuid/setreuid/setresuid
 * forms are checked the same way.  The test runs in a child of the main
 * process, which stays root to clean up.  Not root: nothing to check. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "weft_check.h"

#define NOBODY 65534
#define PARKED 6
#define SPIN 2

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go;
static char secret[256], lockfile[256];
static int pipefd[2];

static void *parked(void *a)
{
	pthread_mutex_lock(&mu);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return a;
}

static void *spinner(void *a)
{
	volatile unsigned long n = 0;
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		n++;
	(void)n;
	return a;
}

static void *flocker(void *a)
{
	int fd = open(lockfile, O_RDWR);
	long r = flock(fd, LOCK_EX); /* blocks until main unlocks */
	close(fd);
	return (void *)r;
}

static void *rawreader(void *a)
{
	char c;
	return (void *)syscall(SYS_read, pipefd[0], &c, 1);
}

/* Every thread's ids as /proc/self/task shows them: "yes" when all are
 * uid and gid (real, effective, saved, fs) with exactly one group, gid. */
static const char *all_threads(int uid, int gid, int *nthreads)
{
	char want_uid[64], want_gid[64], want_groups[64];
	snprintf(want_uid, sizeof want_uid, "Uid:\t%d\t%d\t%d\t%d\n", uid, uid, uid, uid);
	snprintf(want_gid, sizeof want_gid, "Gid:\t%d\t%d\t%d\t%d\n", gid, gid, gid, gid);
	snprintf(want_groups, sizeof want_groups, "Groups:\t%d \n", gid);
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0, bad = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char p[320], l[256];
		snprintf(p, sizeof p, "/proc/self/task/%s/status", e->d_name);
		FILE *f = fopen(p, "r");
		if (!f)
			continue; /* exited meanwhile */
		n++;
		int ok = 0;
		while (fgets(l, sizeof l, f))
			ok += !strcmp(l, want_uid) || !strcmp(l, want_gid) || !strcmp(l, want_groups);
		fclose(f);
		bad += ok != 3;
	}
	closedir(d);
	*nthreads = n;
	return bad ? "no" : "yes";
}

static void *newcomer(void *a)
{
	int fd = open(secret, O_RDONLY);
	long refused = fd < 0 && errno == EACCES;
	if (fd >= 0)
		close(fd);
	return (void *)(long)(refused && getuid() == NOBODY && geteuid() == NOBODY &&
			getgid() == NOBODY);
}

static int test(void)
{
	pthread_t t[PARKED + SPIN + 2];
	int k = 0;
	for (int i = 0; i < PARKED; i++)
		pthread_create(&t[k++], NULL, parked, NULL);
	for (int i = 0; i < SPIN; i++)
		pthread_create(&t[k++], NULL, spinner, NULL);
	int lfd = open(lockfile, O_RDWR);
	flock(lfd, LOCK_EX);
	pthread_create(&t[k++], NULL, flocker, NULL);
	if (pipe(pipefd))
		return 1;
	pthread_create(&t[k++], NULL, rawreader, NULL);
	usleep(200000); /* let them all block */

	/* A daemon's way down: groups, gid, uid. */
	if (initgroups("nobody", NOBODY) || setgid(NOBODY) || setuid(NOBODY)) {
		perror("dropping privileges");
		return 1;
	}
	int n;
	const char *all = all_threads(NOBODY, NOBODY, &n);
	printf("after setuid: every thread has the new ids: %s (%s threads)\n", all,
	       n > 1 ? "several" : "one");
	errno = 0;
	int r = setuid(0);
	printf("setuid(0) as nobody: %d %s\n", r, errno == EPERM ? "EPERM" : "other");
	printf("after the refusal: %s\n", all_threads(NOBODY, NOBODY, &n));

	pthread_t nt[4];
	long ok = 0;
	for (int i = 0; i < 4; i++)
		pthread_create(&nt[i], NULL, newcomer, NULL);
	for (int i = 0; i < 4; i++) {
		void *v;
		pthread_join(nt[i], &v);
		ok += (long)v;
	}
	printf("threads created later: %ld of 4 are nobody and refused root's file\n", ok);
	int fd = open(secret, O_RDONLY);
	printf("main opens root's file: %s\n", fd < 0 && errno == EACCES ? "EACCES" : "allowed");

	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		_exit(getuid() == NOBODY && getgid() == NOBODY ? 0 : 1);
	int st;
	waitpid(pid, &st, 0);
	printf("fork child is nobody: %s\n", WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "yes" : "no");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", "echo exec sees uid $(id -u) gid $(id -g)", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);

	/* The other forms, down from nobody to nobody: allowed, no change. */
	r = seteuid(NOBODY) | setegid(NOBODY) | setreuid(-1, NOBODY) | setregid(NOBODY, -1) |
	    setresuid(-1, -1, NOBODY) | setresgid(NOBODY, NOBODY, NOBODY);
	printf("seteuid..setresgid to the same ids: %d, every thread: %s\n", r,
	       all_threads(NOBODY, NOBODY, &n));
	errno = 0;
	r = seteuid((uid_t)-1);
	printf("seteuid(-1): %d %s\n", r, errno == EINVAL ? "EINVAL" : "other");

	/* Everybody that was blocked through the change finishes. */
	flock(lfd, LOCK_UN);
	if (write(pipefd[1], "x", 1) != 1)
		return 1;
	pthread_mutex_lock(&mu);
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	long sum = 0;
	for (int i = 0; i < k; i++) {
		void *v;
		pthread_join(t[i], &v);
		sum += (long)v;
	}
	printf("blocked threads joined: flock and read returned %ld\n", sum);
	return 0;
}

int main(void)
{
	weft_check_loaded();
	if (getuid() != 0) {
		printf("not root: nothing to check\n");
		return 0;
	}
	snprintf(secret, sizeof secret, "/tmp/weft-setxid-%d", (int)getpid());
	snprintf(lockfile, sizeof lockfile, "/tmp/weft-setxid-%d.lock", (int)getpid());
	int fd = open(secret, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	close(fd);
	fd = open(lockfile, O_CREAT | O_RDWR | O_TRUNC, 0666);
	fchmod(fd, 0666);
	close(fd);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int r = test();
		fflush(stdout);
		_exit(r);
	}
	int st;
	waitpid(pid, &st, 0);
	unlink(secret);
	unlink(lockfile);
	if (WIFSIGNALED(st))
		printf("test process killed by signal %d\n", WTERMSIG(st));
	else
		printf("test process exited %d\n", WEXITSTATUS(st));
	return 0;
}
