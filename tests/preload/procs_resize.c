/* GOMAXPROCS follows the cgroup CPU limit at run time.  The test runs
 * itself again with a fake cgroup tree (WEFT_CGROUP_ROOT), 4 CPUs assumed
 * (WEFT_NCPU=4), GOMAXPROCS unset and schedtrace on, while the child keeps
 * 8 threads handing a token around and counting under a mutex.  It
 * rewrites cpu.max and waits (generously) for schedtrace to show each
 * value, with no worker left on the procs beyond it: max -> 4, 1.5 CPUs -> 2, 3 CPUs -> 3, 0.5 -> 2 (the floor),
 * max -> 4.  The child's counts must add up.  Natively: SKIP-NATIVE. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "weft_check.h"
#include "spawn_util.h"

#define T 8

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long turn, total;
static const char *stop;

static void *worker(void *arg)
{
	long me = (long)arg, mine = 0;
	for (;;) {
		pthread_mutex_lock(&mu);
		while (turn % T != me && turn >= 0)
			pthread_cond_wait(&cv, &mu);
		if (turn < 0) {
			pthread_mutex_unlock(&mu);
			break;
		}
		turn++;
		total++;
		mine++;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
		volatile double x = 0; /* a little CPU between hand-offs */
		for (int i = 0; i < 2000; i++)
			x += i * 0.5;
		(void)x;
	}
	return (void *)mine;
}

static int child(void)
{
	pthread_t t[T];
	for (long i = 0; i < T; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	while (access(stop, F_OK) != 0)
		usleep(10000);
	pthread_mutex_lock(&mu);
	long at = turn;
	turn = -1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	long sum = 0;
	for (int i = 0; i < T; i++) {
		void *r;
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	printf("counts %s (%d)\n", sum == total && sum == at && sum > 0 ? "add up" : "WRONG", sum > 0);
	return 0;
}

/* The gomaxprocs= of the last SCHED line in path, -1 if none, -2 if a
 * proc beyond it still has a worker (not yet given up). */
static int last_gomaxprocs(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	int v = -1, off = 1;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		char *p = strstr(line, "gomaxprocs=");
		if (p && !strncmp(line, "SCHED", 5)) {
			v = atoi(p + 11);
			off = 1;
		}
		int id;
		/* scheddetail: a proc beyond gomaxprocs must have no worker. */
		if (sscanf(line, "  P%d:", &id) == 1 && id >= v && !strstr(line, " m=-1 "))
			off = 0;
	}
	fclose(f);
	return off ? v : -2;
}

static char cpumax[512], tmp[520];

static void set_limit(const char *v)
{
	FILE *f = fopen(tmp, "w");
	fprintf(f, "%s\n", v);
	fclose(f);
	rename(tmp, cpumax); /* sysmon never reads half a file */
}

/* Waits up to ~30 s for schedtrace to show want. */
static int eventually(const char *err, int want)
{
	for (int i = 0; i < 3000; i++) {
		if (last_gomaxprocs(err) == want)
			return 1;
		usleep(10000);
	}
	return 0;
}

int main(int argc, char **argv)
{
	weft_check_loaded();
	if (argc > 2 && !strcmp(argv[1], "child")) {
		stop = argv[2];
		return child();
	}
	if (!weft_loaded()) {
		printf("SKIP-NATIVE\n");
		return 0;
	}
	static char dir[] = "/tmp/weft-procs-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	/* Our cgroup's directory under the fake root, as the kernel names it. */
	char cg[256] = "/", line[256];
	FILE *f = fopen("/proc/self/cgroup", "r");
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(cg, sizeof cg, "%s", line + 3);
		}
	if (f)
		fclose(f);
	char cgdir[400], cmd[512];
	snprintf(cgdir, sizeof cgdir, "%s%s", dir, cg);
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", cgdir);
	system(cmd);
	snprintf(cpumax, sizeof cpumax, "%s/cpu.max", cgdir);
	snprintf(tmp, sizeof tmp, "%s.new", cpumax);
	set_limit("max 100000");

	char out[64], err[64], stopf[64], root[64];
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(err, sizeof err, "%s/err", dir);
	snprintf(stopf, sizeof stopf, "%s/stop", dir);
	snprintf(root, sizeof root, "WEFT_CGROUP_ROOT=%s", dir);
	const char *set[] = { root, "WEFT_NCPU=4", "WEFTDEBUG=schedtrace=20,scheddetail=1", NULL };
	const char *unset[] = { "GOMAXPROCS", NULL };
	char *args[] = { "child", stopf, NULL };
	pid_t pid = spawn_self("procs_resize", args, set, unset, out, err);

	static const struct { const char *max; int want; } steps[] = {
		{ "max 100000", 4 },      { "150000 100000", 2 }, { "300000 100000", 3 },
		{ "50000 100000", 2 },    { "max 100000", 4 },
	};
	int bad = 0;
	for (unsigned i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		set_limit(steps[i].max);
		int ok = eventually(err, steps[i].want);
		printf("cpu.max %-14s -> gomaxprocs=%d: %s\n", steps[i].max, steps[i].want,
		       ok ? "seen" : "NOT seen");
		bad |= !ok;
	}
	FILE *s = fopen(stopf, "w");
	fclose(s);
	int st = wait_exit(pid);
	int added = file_has(out, "counts add up (1)");
	printf("child: exit 0: %d, counts add up: %d\n", WIFEXITED(st) && WEXITSTATUS(st) == 0, added);
	bad |= !added || !WIFEXITED(st) || WEXITSTATUS(st);
	if (bad) {
		snprintf(cmd, sizeof cmd, "tail -5 %s >&2; cat %s >&2", err, out);
		system(cmd);
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	system(cmd);
	return bad;
}
