/* WEFT_MAXTHREADS: 20 tasks block in flock (a real-thread fallback call) on
 * a file this process holds locked.  Run again with WEFT_MAXTHREADS=5:
 *   policy wait: the child says once that it reached the cap, never has
 *     more than 5 threads, and once the lock is released all 20 finish;
 *   policy fail: the child dies by SIGABRT with
 *     "weft: program exceeds WEFT_MAXTHREADS=5 threads".
 * The threads that hold process-shared owner ids count too: 300 tasks
 * alive at once each lock a process-shared mutex (an owner id each: 255
 * from the process id, the rest from a holder thread), with GOMAXPROCS=1
 * (the initial thread and sysmon, no other worker).  At WEFT_MAXTHREADS=4
 * one holder starts (beside the thread that opens weft's files, which a
 * look at a blocked worker may start: io/privfd.c): 300 distinct ids, nothing
 * said.  At 2 none may: 255
 * distinct ids, and one line says that ids repeat.  Neither passes its cap.
 * Natively there is no cap to test: SKIP-NATIVE. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"
#include "spawn_util.h"
#include "test_util.h"

#define N 20
#define CAP 5

static const char *lockpath;
static _Atomic int got;

static void *locker(void *arg)
{
	int fd = open(lockpath, O_RDWR);
	if (fd >= 0 && flock(fd, LOCK_EX) == 0) {
		got++;
		flock(fd, LOCK_UN);
	}
	close(fd);
	return NULL;
}

#define NH 300
static pthread_mutex_t *smu;
static int owners[NH];
static pthread_barrier_t hold;

static void *owner(void *arg)
{
	int i = (int)(long)arg;
	pthread_mutex_lock(smu);
	owners[i] = smu->__data.__owner;
	pthread_mutex_unlock(smu);
	pthread_barrier_wait(&hold); /* every id stays taken meanwhile */
	pthread_barrier_wait(&hold);
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* NH tasks hold owner ids at once; prints whether the process's threads
 * then were within WEFT_MAXTHREADS, and how many ids were distinct. */
static int holders_child(void)
{
	smu = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(smu, &a);
	pthread_barrier_init(&hold, NULL, NH + 1);
	pthread_t t[NH];
	for (int i = 0; i < NH; i++)
		pthread_create(&t[i], NULL, owner, (void *)(long)i);
	pthread_barrier_wait(&hold);
	long threads = proc_threads("self");
	pthread_barrier_wait(&hold);
	for (int i = 0; i < NH; i++)
		pthread_join(t[i], NULL);
	qsort(owners, NH, sizeof owners[0], cmp);
	int distinct = 1;
	for (int i = 1; i < NH; i++)
		distinct += owners[i] != owners[i - 1];
	/* At most the cap (under qemu-user the count may leave out one of
	 * weft's threads: test_util.h). */
	const char *cap = getenv("WEFT_MAXTHREADS");
	printf("threads within the cap: %d, distinct %d\n",
	       threads > 0 && cap && threads <= atol(cap), distinct);
	return 0;
}

static int child(void)
{
	pthread_t t[N];
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, locker, NULL);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	printf("done %d\n", (int)got);
	return 0;
}

static int threads_of(pid_t pid)
{
	char p[32];
	snprintf(p, sizeof p, "%d", (int)pid);
	return (int)proc_threads(p);
}

/* Waits (up to ~60 s) until path contains s. */
static int eventually_has(const char *path, const char *s)
{
	for (int i = 0; i < 6000; i++) {
		if (file_has(path, s))
			return 1;
		usleep(10000);
	}
	return 0;
}

int main(int argc, char **argv)
{
	weft_check_loaded();
	if (argc > 2 && !strcmp(argv[1], "child")) {
		lockpath = argv[2];
		return child();
	}
	if (argc > 1 && !strcmp(argv[1], "holders"))
		return holders_child();
	if (!weft_loaded()) {
		printf("SKIP-NATIVE\n");
		return 0;
	}
	struct rlimit nocore = { 0, 0 };
	setrlimit(RLIMIT_CORE, &nocore); /* the fail child aborts */
	char dir[] = "/tmp/weft-maxthreads-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	char lock[64], out[64], err[64];
	snprintf(lock, sizeof lock, "%s/lock", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(err, sizeof err, "%s/err", dir);
	int fd = open(lock, O_CREAT | O_RDWR, 0600);
	char *args[] = { "child", lock, NULL };
	const char *unset[] = { "WEFT_MAXTHREADS_POLICY", NULL };
	int bad = 0;

	/* Policy wait. */
	flock(fd, LOCK_EX);
	const char *setw[] = { "WEFT_MAXTHREADS=5", NULL };
	pid_t pid = spawn_self("maxthreads", args, setw, unset, out, err);
	int reached = eventually_has(err, "WEFT_MAXTHREADS=5 threads reached");
	int most = 0;
	for (int i = 0; i < 20; i++) { /* the cap holds while the tasks wait */
		int n = threads_of(pid);
		if (n > most)
			most = n;
		usleep(5000);
	}
	flock(fd, LOCK_UN);
	int st = wait_exit(pid);
	printf("wait: cap reached: %d, said once: %d, threads <= %d: %d, exit 0: %d, %s",
	       reached, count_in(err, "threads reached") == 1, CAP, most <= CAP && most > 0,
	       WIFEXITED(st) && WEXITSTATUS(st) == 0, file_has(out, "done 20") ? "done 20\n" : "not done\n");
	bad |= !reached || most > CAP || !WIFEXITED(st) || WEXITSTATUS(st) || !file_has(out, "done 20");
	if (most > CAP)
		printf("  threads seen: %d\n", most);

	/* Policy fail. */
	flock(fd, LOCK_EX);
	const char *setf[] = { "WEFT_MAXTHREADS=5", "WEFT_MAXTHREADS_POLICY=fail", NULL };
	pid = spawn_self("maxthreads", args, setf, NULL, out, err);
	st = wait_exit(pid);
	flock(fd, LOCK_UN);
	int msg = file_has(err, "weft: program exceeds WEFT_MAXTHREADS=5 threads");
	if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT))
		printf("  fail child status %#x\n", st);
	printf("fail: message: %d, killed by SIGABRT: %d\n", msg,
	       WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	bad |= !msg || !WIFSIGNALED(st) || WTERMSIG(st) != SIGABRT;

	/* Holders of owner ids. */
	char *hargs[] = { "holders", NULL };
	for (int cap = 4; cap >= 2; cap -= 2) {
		char capv[32];
		snprintf(capv, sizeof capv, "WEFT_MAXTHREADS=%d", cap);
		const char *seth[] = { capv, "GOMAXPROCS=1", NULL };
		pid = spawn_self("maxthreads", hargs, seth, unset, out, err);
		st = wait_exit(pid);
		char want[64];
		snprintf(want, sizeof want, "threads within the cap: 1, distinct %d\n",
			 cap == 4 ? NH : 255);
		int ok = file_has(out, want);
		int said = count_in(err, "their owner ids repeat");
		printf("holders at %d: %s, ids repeat said: %d, exit 0: %d\n", cap,
		       ok ? "as expected" : "not as expected", said,
		       WIFEXITED(st) && WEXITSTATUS(st) == 0);
		bad |= !ok || said != (cap == 2) || !WIFEXITED(st) || WEXITSTATUS(st);
		if (!ok) {
			char cmd[128];
			snprintf(cmd, sizeof cmd, "cat %s", out);
			system(cmd);
		}
	}
	if (bad) {
		char cmd[128];
		snprintf(cmd, sizeof cmd, "cat %s >&2", err);
		system(cmd);
	}
	close(fd);
	unlink(lock);
	unlink(out);
	unlink(err);
	rmdir(dir);
	return bad;
}
