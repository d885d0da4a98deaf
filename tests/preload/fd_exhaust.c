/* With every descriptor in use (RLIMIT_NOFILE reached: open, dup and socket
 * fail with EMFILE), a program's threads need none of their own: natively
 * pthread_create succeeds, and blocking reads and writes on pipes made
 * before, poll, condition-variable and timed waits, sleeps, a blocking TCP
 * connect on a socket made before, and setgid (applied to every thread)
 * work as usual.  Run first thing after start, so nothing weft might open
 * lazily exists yet.  Afterwards the descriptors are closed and everything
 * is done once more. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "weft_check.h"
#include "test_util.h"

#define NT 8

static int pp[NT][2]; /* pipes made before the table fills */
static int lfd, cfd; /* a listener and a socket to connect with */
static struct sockaddr_in addr;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int arrived;

static void *reader(void *a)
{
	long i = (long)a;
	char c = 0;
	int pr = 1;
	if (i & 1) { /* half wait in poll, half in read itself */
		struct pollfd pf = { pp[i][0], POLLIN, 0 };
		pr = poll(&pf, 1, 10000);
	}
	ssize_t r = read(pp[i][0], &c, 1);
	pthread_mutex_lock(&mu);
	arrived++;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	return (void *)(long)(pr == 1 && r == 1 && c == 'a' + i);
}

static void *writer(void *a)
{
	(void)a;
	usleep(20000); /* the readers are waiting by now, most of them */
	for (int i = 0; i < NT; i++) {
		char c = 'a' + i;
		if (write(pp[i][1], &c, 1) != 1)
			return NULL;
	}
	struct timespec ts;
	deadline(CLOCK_REALTIME, &ts, 10000);
	pthread_mutex_lock(&mu);
	int e = 0;
	while (arrived < NT && e == 0)
		e = pthread_cond_timedwait(&cv, &mu, &ts);
	pthread_mutex_unlock(&mu);
	return (void *)(long)(e == 0);
}

static void *connector(void *a)
{
	(void)a;
	return (void *)(long)(connect(cfd, (struct sockaddr *)&addr, sizeof addr) == 0);
}

/* How many of the process's threads have gid as real, effective and saved
 * group id, and how many threads there are: "all" when every one has. */
static const char *threads_with_gid(gid_t gid)
{
	static char out[64];
	char want[64], path[300], line[256];
	snprintf(want, sizeof want, "Gid:\t%u\t%u\t%u\t", gid, gid, gid);
	DIR *d = opendir("/proc/self/task");
	int n = 0, ok = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		int has = 0, foreign = 0;
		while (fgets(line, sizeof line, f)) {
			if (!strncmp(line, want, strlen(want)))
				has = 1;
			/* Under qemu-user /proc lists the emulator's own threads
			 * too; they block SIGURG, which no thread here does. */
			if (emulated() && !strncmp(line, "SigBlk:", 7) &&
			    (strtoull(line + 7, NULL, 16) & (1ull << (SIGURG - 1))))
				foreign = 1;
		}
		fclose(f);
		if (foreign)
			continue;
		n++;
		ok += has;
	}
	if (d)
		closedir(d);
	if (n && ok == n)
		return "all";
	snprintf(out, sizeof out, "%d of %d", ok, n);
	return out;
}

/* One round: NT readers, a writer, a connector, then setgid(gid). */
static void round_(const char *what, gid_t gid)
{
	pthread_t r[NT], w, c;
	int created = 0, ok = 0, err = 0;
	arrived = 0;
	for (long i = 0; i < NT; i++) {
		if ((err = pthread_create(&r[i], NULL, reader, (void *)i)))
			break;
		created++;
	}
	int werr = pthread_create(&w, NULL, writer, NULL);
	int cerr = pthread_create(&c, NULL, connector, NULL);
	for (int i = 0; i < created; i++) {
		void *v;
		pthread_join(r[i], &v);
		ok += (long)v;
	}
	void *wv = NULL, *cv_ = NULL;
	if (!werr)
		pthread_join(w, &wv);
	if (!cerr)
		pthread_join(c, &cv_);
	struct timespec t0 = { 0, 5000000 };
	int sl = nanosleep(&t0, NULL);
	int sg = setgid(gid) ? errno : 0;
	printf("%s: created %d of %d readers (%s), writer %s, reads %d, connect %s, "
	       "sleep %d, setgid %s\n", what, created, NT, en(err), en(werr), ok,
	       cerr ? en(cerr) : wv && cv_ ? "ok" : "failed", sl, en(sg));
}

int main(void)
{
	weft_check_loaded();
	for (int i = 0; i < NT; i++)
		if (pipe(pp[i]))
			return 1;
	lfd = loopback_listen(&addr, 16);
	cfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || cfd < 0)
		return 1;
	struct rlimit rl = { 64, 64 };
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return 1;
	int filled[64], nf = 0;
	for (int d; (d = dup(0)) >= 0;)
		filled[nf++] = d;
	int e = errno;
	printf("descriptor table full: dup fails with %s\n", e == EMFILE ? "EMFILE" : "other");
	gid_t g0 = getgid(); /* as root, the gid changes and changes back */
	round_("no descriptor free", 4321);
	/* The same socket cannot connect twice: a fresh one for the round after. */
	for (int i = 0; i < nf; i++)
		close(filled[i]);
	close(cfd);
	int a = accept(lfd, NULL, NULL);
	if (a >= 0)
		close(a);
	cfd = socket(AF_INET, SOCK_STREAM, 0);
	printf("threads with the new gid: %s\n", getgid() == 4321 ? threads_with_gid(4321) : "none");
	round_("descriptors freed", g0);
	printf("threads with the first gid: %s\n", threads_with_gid(g0));
	int d = dup(0);
	printf("dup after: %s\n", d >= 0 ? "ok" : "failed");
	return 0;
}
