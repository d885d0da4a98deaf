/*
 * test_util.h — helpers the preload tests share.
 *   en(e)                     a pthread-style error number by name, "0" for 0
 *   deadline(clk, ts, ms)     *ts = now on clk + ms milliseconds
 *   status_kb(key)            a "Key:" line of /proc/self/status (kB), or -1
 *   os_threads()              the kernel's count of this process's threads
 *   proc_threads(pid)         the same for /proc/PID (under qemu-user, both
 *                             less the emulator's own threads)
 *   now_s()                   CLOCK_MONOTONIC in seconds
 *   procs()                   GOMAXPROCS if set, else the online CPUs
 *   loopback_listen(a, n)     a TCP listener on 127.0.0.1 (port in *a), backlog n
 *   have_io_uring()           the kernel makes io_uring rings here (not under
 *                             qemu-user, nor where io_uring is disabled): weft's
 *                             blocking accept and connect park on one
 *   emulated()                the run is under qemu-user (WEFT_EMULATED=1, set by
 *                             make test-aarch64): RSS and thread counts there
 *                             include the emulator's own
 *   skip_native_rss()         under qemu-user, natively: SKIP-NATIVE, end the test
 *   gate_open(g), gate_wait(g)  a flag one thread sets and others wait for
 *   test_threads(n)           n, or fewer where WEFT_TEST_THREADS says so (qemu-user
 *                             7.2 spends 24 bytes of its own per mapped guest page,
 *                             so make test-aarch64 caps weft's stack arena)
 */
#ifndef WEFT_TEST_UTIL_H
#define WEFT_TEST_UTIL_H
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "weft_check.h"

static inline const char *en(int e)
{
	switch (e) {
	case 0: return "0";
	case EBUSY: return "EBUSY";
	case EDEADLK: return "EDEADLK";
	case EPERM: return "EPERM";
	case EINVAL: return "EINVAL";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EAGAIN: return "EAGAIN";
	case ESRCH: return "ESRCH";
	case ERANGE: return "ERANGE";
	case ENOENT: return "ENOENT";
	case EOWNERDEAD: return "EOWNERDEAD";
	case ENOTRECOVERABLE: return "ENOTRECOVERABLE";
	default: return "other";
	}
}

static inline void deadline(clockid_t clk, struct timespec *ts, long ms)
{
	clock_gettime(clk, ts);
	ts->tv_nsec += ms * 1000000;
	while (ts->tv_nsec >= 1000000000) {
		ts->tv_nsec -= 1000000000;
		ts->tv_sec++;
	}
}
static inline double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline long status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	size_t n = strlen(key);
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, key, n) && line[n] == ':')
			v = atol(line + n + 1);
	if (f)
		fclose(f);
	return v;
}

static inline int emulated(void);

/* Threads of process `pid` ("self" or a number) by the kernel's count.
 * Under qemu-user /proc counts the emulator's own threads too: they are
 * the ones that block SIGURG, which weft never lets a program's thread do
 * (and no test here does natively); they are left out. */
static inline long proc_threads(const char *pid)
{
	char path[600], line[256];
	snprintf(path, sizeof path, "/proc/%s/status", pid);
	FILE *f = fopen(path, "r");
	long n = -1;
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "Threads:", 8))
			n = atol(line + 8);
	if (f)
		fclose(f);
	snprintf(path, sizeof path, "/proc/%s/task", pid);
	DIR *d = emulated() && n > 0 ? opendir(path) : NULL;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/%s/task/%s/status", pid, e->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof line, f))
			if (!strncmp(line, "SigBlk:", 7) &&
			    (strtoull(line + 7, NULL, 16) & (1ull << (SIGURG - 1))))
				n--;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

static inline long os_threads(void)
{
	return proc_threads("self");
}

static inline long procs(void)
{
	const char *g = getenv("GOMAXPROCS");
	return g && atol(g) > 0 ? atol(g) : sysconf(_SC_NPROCESSORS_ONLN);
}

static inline int have_io_uring(void)
{
	long u = syscall(SYS_io_uring_setup, 0, NULL); /* EINVAL: 0 entries */
	return !(u < 0 && (errno == ENOSYS || errno == EPERM));
}

static inline int emulated(void)
{
	const char *e = getenv("WEFT_EMULATED");
	return e && *e == '1';
}

/* Under qemu-user the native RSS counts the emulator's memory for each
 * thread it ran, so a test that compares RSS has no native reference
 * there: natively it prints SKIP-NATIVE and should end at once (returns
 * 1), and its output under weft must equal NAME.expected (run-preload.sh). */
static inline int skip_native_rss(void)
{
	if (!emulated() || weft_loaded())
		return 0;
	printf("SKIP-NATIVE\n");
	return 1;
}

static inline int test_threads(int n)
{
	const char *e = getenv("WEFT_TEST_THREADS");
	return e && atoi(e) > 0 && atoi(e) < n ? atoi(e) : n;
}

/* The memory tests' parked threads: each bumps *waiting under m, then
 * waits on c until *go.  wait_parked returns once n of them counted
 * themselves; release_parked lets them all go. */
static inline void wait_parked(pthread_mutex_t *m, int *waiting, int n)
{
	pthread_mutex_lock(m);
	while (*waiting < n) {
		pthread_mutex_unlock(m);
		usleep(1000);
		pthread_mutex_lock(m);
	}
	pthread_mutex_unlock(m);
}

/* A parked thread, holding m: counts itself and waits until *go; returns
 * with m released. */
static inline void park_counted(pthread_mutex_t *m, pthread_cond_t *c, int *waiting, int *go)
{
	(*waiting)++;
	while (!*go)
		pthread_cond_wait(c, m);
	pthread_mutex_unlock(m);
}

static inline void release_parked(pthread_mutex_t *m, pthread_cond_t *c, int *go)
{
	pthread_mutex_lock(m);
	*go = 1;
	pthread_cond_broadcast(c);
	pthread_mutex_unlock(m);
}

/* A one-way signal between threads: gate_open sets it, gate_wait waits
 * until it is set.  GATE_INIT, or gate_reset before each use. */
struct gate {
	pthread_mutex_t m;
	pthread_cond_t c;
	int open;
};
#define GATE_INIT { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 }

static inline void gate_reset(struct gate *g)
{
	g->open = 0;
}

static inline void gate_open(struct gate *g)
{
	pthread_mutex_lock(&g->m);
	g->open = 1;
	pthread_cond_broadcast(&g->c);
	pthread_mutex_unlock(&g->m);
}

static inline void gate_wait(struct gate *g)
{
	pthread_mutex_lock(&g->m);
	while (!g->open)
		pthread_cond_wait(&g->c, &g->m);
	pthread_mutex_unlock(&g->m);
}

/* Uses about depth KiB of stack. */
static inline int use_stack_kb(int depth)
{
	volatile char buf[1024];
	memset((char *)buf, depth, sizeof buf);
	return depth ? use_stack_kb(depth - 1) + buf[7] : buf[3];
}

/* A listening TCP socket on 127.0.0.1 with backlog n; *a gets its address.
 * Returns the descriptor, or -1 (perror says why). */
static inline int loopback_listen(struct sockaddr_in *a, int n)
{
	int l = socket(AF_INET, SOCK_STREAM, 0);
	memset(a, 0, sizeof *a);
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t al = sizeof *a;
	if (l < 0 || bind(l, (struct sockaddr *)a, sizeof *a) || listen(l, n) ||
	    getsockname(l, (struct sockaddr *)a, &al)) {
		perror("listen");
		return -1;
	}
	return l;
}

#endif
