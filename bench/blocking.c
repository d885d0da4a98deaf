/*
 * blocking KIND [N [STALL_MS]] — what does a blocked thread cost in OS threads?
 * Starts N threads (default 100) that all get stuck the same way, and
 * prints the process's OS threads (the kernel's Threads: count) before,
 * while they are stuck, and after they were released and joined.  KIND:
 *   sleep    usleep(100 ms) in a loop until released
 *   cond     pthread_cond_wait on one condition variable
 *   socket   read(2) on its own socketpair(AF_UNIX, SOCK_STREAM)
 *   pipe     read(2) on its own pipe
 *   spin     a CPU loop until released (use a few: e.g. 8)
 *   rawread  syscall(SYS_read, ...) on its own pipe: a system call made
 *            without going through libc's read, as Go's syscall.Read
 *   flock    flock(LOCK_EX) on a file main holds locked: a call that can
 *            block and cannot be polled
 *   stdio    fputs to a FILE main holds (flockfile): a wait for one of
 *            glibc's own locks, inside libc
 * Go's table of what blocks a thread, in C.  If main
 * stops getting the CPU (a scheduler that cannot take a CPU loop or a raw
 * system call off its threads), the watchdog (bench.h) releases the
 * threads after STALL_MS (default 2000) and the "during" line says
 * "stalled".
 */
#define _GNU_SOURCE /* pipe2 */
#include <pthread.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "bench.h"

enum kind { SLEEP, COND, SOCKET, PIPE, SPIN, RAWREAD, FLOCK, STDIO };
static const char *const kinds[] = {"sleep", "cond", "socket", "pipe", "spin", "rawread", "flock", "stdio"};
static const char *const what[] = {
	"in usleep", "on a condvar", "in read(2) on a socket", "in read(2) on a pipe",
	"spinning on the CPU", "in a raw read system call", "in flock(2)",
	"in fputs on a locked FILE"};

static enum kind kind;
static long n;
static atomic_int ready;        /* threads about to block */
static atomic_int stop;         /* sleep and spin: release */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int released;            /* cond: under mu */
static FILE *held;              /* stdio: the FILE main holds locked */
static atomic_int unheld;       /* stdio: released once */
static int (*fds)[2];           /* socket, pipe, rawread: [i][0] read end */
static int lockfd = -1;         /* flock: main's descriptor holding the lock */
static char lockpath[64];
static volatile unsigned long spins[64];
static long stalled_ready;      /* ready when the watchdog fired */

/* Releases every thread; async-signal-safe (the watchdog calls it too).
 * Each thread's descriptor gets one byte: a second call adds a second
 * byte that nobody reads, which is harmless.  The bytes are written with
 * raw system calls: from the watchdog's handler, a write() that a
 * user-level scheduler wraps could switch the interrupted thread away in
 * the middle of the handler, and with every OS thread stuck it would not
 * come back to finish the loop. */
static void release(void)
{
	if (wd_fired && !stalled_ready)
		stalled_ready = atomic_load(&ready);
	atomic_store(&stop, 1);
	if (fds)
		for (long i = 0; i < n; i++)
			if (syscall(SYS_write, fds[i][1], "x", 1) != 1)
				_exit(3);
	if (lockfd >= 0)
		flock(lockfd, LOCK_UN);
	if (held && !atomic_exchange(&unheld, 1))
		funlockfile(held);
}

/* A thread is about to block: progress for the watchdog too. */
static void arrive(void)
{
	atomic_fetch_add(&ready, 1);
	atomic_fetch_add(&wd_beat, 1);
}

static void *blocker(void *arg)
{
	long i = (long)arg;
	char c;
	switch (kind) {
	case SLEEP:
		arrive();
		while (!atomic_load(&stop))
			usleep(100000);
		break;
	case COND:
		pthread_mutex_lock(&mu);
		arrive();
		while (!released)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		break;
	case SOCKET:
	case PIPE:
		arrive();
		if (read(fds[i][0], &c, 1) != 1)
			perror("read"), exit(1);
		break;
	case RAWREAD:
		arrive();
		while (syscall(SYS_read, fds[i][0], &c, 1) != 1)
			if (errno != EINTR)
				perror("SYS_read"), exit(1);
		break;
	case SPIN:
		arrive();
		while (!atomic_load_explicit(&stop, memory_order_relaxed))
			spins[i % 64]++;
		break;
	case FLOCK: {
		int fd = open(lockpath, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			perror("open"), exit(1);
		arrive();
		while (flock(fd, LOCK_EX))
			if (errno != EINTR)
				perror("flock"), exit(1);
		flock(fd, LOCK_UN);
		close(fd);
		break;
	}
	case STDIO:
		arrive();
		fputs("x\n", held);
		break;
	}
	return NULL;
}

static int setup(void)
{
	if (kind == SOCKET || kind == PIPE || kind == RAWREAD) {
		fds = calloc(n, sizeof *fds);
		for (long i = 0; fds && i < n; i++) {
			int r = kind == SOCKET ? socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds[i])
					       : pipe2(fds[i], O_CLOEXEC);
			if (r) {
				printf("descriptors failed at %ld of %ld: %s\n", i + 1, n, strerror(errno));
				return -1;
			}
		}
		if (!fds)
			return -1;
	}
	if (kind == FLOCK) {
		snprintf(lockpath, sizeof lockpath, "/tmp/bench-flock-%d", (int)getpid());
		lockfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (lockfd < 0 || flock(lockfd, LOCK_EX))
			return perror(lockpath), -1;
	}
	if (kind == STDIO) {
		held = tmpfile();
		if (!held)
			return perror("tmpfile"), -1;
		flockfile(held);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		goto usage;
	for (kind = 0; kind <= STDIO && strcmp(argv[1], kinds[kind]); kind++)
		;
	if (kind > STDIO)
		goto usage;
	n = arg_long(argc, argv, 2, 100);
	long stall_ms = arg_long(argc, argv, 3, 2000);
	raise_nofile();
	pthread_t *th = calloc(n, sizeof *th);
	if (!th || setup())
		return 1;
	long before = proc_status("Threads");
	printf("OS threads before: %ld\n", before);
	fflush(stdout);

	watchdog_start(stall_ms, release);
	wd_stage = 1;
	long ok = 0;
	for (long i = 0; i < n; i++, ok++) {
		int e = pthread_create(&th[i], NULL, blocker, (void *)i);
		atomic_fetch_add(&wd_beat, 1);
		if (e) {
			printf("thread %ld of %ld failed: %s\n", i + 1, n, strerror(e));
			break;
		}
	}
	/* Wait until every thread reached its blocking call, then give the
	 * last ones time to get into it. */
	double t0 = now_s();
	while (atomic_load(&ready) < ok && !wd_fired && now_s() - t0 < 30) {
		usleep(1000);
		atomic_fetch_add(&wd_beat, 1);
	}
	long got = atomic_load(&ready);
	if (!wd_fired)
		usleep(50000 + 50 * ok);
	long during = proc_status("Threads");
	if (wd_fired)
		printf("OS threads during: stalled (main got no CPU for %ld ms; %ld of %ld threads "
		       "had started; OS threads then: %ld)\n", stall_ms, stalled_ready, ok, wd_threads);
	else if (got < ok)
		printf("OS threads during: %ld (only %ld of %ld threads blocked after 30 s)\n",
		       during, got, ok);
	else
		printf("OS threads during: %ld (%ld threads %s)\n", during, ok, what[kind]);
	fflush(stdout);

	wd_stage = 2;
	pthread_mutex_lock(&mu);
	released = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	release(); /* again after the watchdog's: harmless */
	for (long i = 0; i < ok; i++) {
		pthread_join(th[i], NULL);
		atomic_fetch_add(&wd_beat, 1);
	}
	watchdog_stop();
	if (kind == FLOCK)
		unlink(lockpath);
	printf("OS threads after: %ld (all %ld joined)\n", proc_status("Threads"), ok);
	if (wd_fired == 2)
		printf("stalled while joining: main got no CPU for %ld ms\n", stall_ms);
	return 0;
usage:
	fprintf(stderr, "usage: blocking sleep|cond|socket|pipe|spin|rawread|flock|stdio [N [STALL_MS]]\n");
	return 2;
}
