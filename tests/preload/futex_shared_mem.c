/* Two processes wake each other through a futex word without
 * FUTEX_PRIVATE_FLAG in memory both map shared: anonymous MAP_SHARED memory
 * kept across fork, the same made by syscall(SYS_mmap), a System V segment
 * each attaches itself (shmat), and a file that an unrelated process (this
 * program exec'd again) maps shared on its own.  Under weft a flagless
 * futex on memory no other process maps parks its task; these words are
 * shared, so their waits must stay the kernel's: a waiter parked in weft
 * would never see the other process's wake.  Each wait is bounded (2 s)
 * and a wait that ends by its timeout is counted: a lost wake shows as a
 * count, not a hang.  Each side waits among other busy threads, so a
 * worker held in the kernel must not stop the rest.  Last, threads wait
 * on a flagless word on the heap (parked tasks under weft) while the
 * process maps 5,000 shared pages one by one (more ranges than weft keeps:
 * from then on it calls every word shared), and a flagless wake still
 * reaches them all. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include "test_util.h"

#define ROUNDS 30

static int timeouts;

static long futex(int *w, int op, int val, const struct timespec *ts)
{
	return syscall(SYS_futex, w, op, val, ts, NULL, 0);
}

/* Waits until *w == want, by flagless FUTEX_WAIT (given up after 5
 * timeouts: the other side may be gone). */
static void wait_for(int *w, int want)
{
	for (;;) {
		int v = __atomic_load_n(w, __ATOMIC_SEQ_CST);
		if (v == want || timeouts > 5)
			return;
		struct timespec ts = { 2, 0 };
		if (futex(w, FUTEX_WAIT, v, &ts) == -1 && errno == ETIMEDOUT)
			timeouts++;
	}
}

static void set_wake(int *w, int v)
{
	__atomic_store_n(w, v, __ATOMIC_SEQ_CST);
	futex(w, FUTEX_WAKE, 1, NULL);
}

/* The two sides of the ping-pong: odd values are the first side's, even
 * the second's.  Every few rounds the setter lets the other side fall
 * asleep first. */
static void side(int *w, int first)
{
	for (int i = 0; i < ROUNDS; i++) {
		if (first) {
			if (i % 5 == 0)
				usleep(3000);
			set_wake(w, 2 * i + 1);
			wait_for(w, 2 * i + 2);
		} else {
			wait_for(w, 2 * i + 1);
			if (i % 5 == 2)
				usleep(3000);
			set_wake(w, 2 * i + 2);
		}
	}
}

/* Busy threads beside the waiting one. */
static volatile int stop;
static void *spin(void *a)
{
	while (!stop)
		sched_yield();
	return a;
}

static void run_side(int *w, int first)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, spin, NULL);
	side(w, first);
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	stop = 0;
}

/* The parent runs the first side, a forked child the second on the same
 * word; the child's timeouts come back as its exit status. */
static void with_fork(const char *what, int *base, int off, int shmid)
{
	int *w = base + off;
	timeouts = 0;
	*w = 0;
	pid_t pid = fork();
	if (pid == 0) {
		if (shmid >= 0) { /* the child's own attachment */
			base = shmat(shmid, NULL, 0);
			if (base == (void *)-1)
				_exit(100);
			w = base + off;
		}
		run_side(w, 0);
		_exit(timeouts > 99 ? 99 : timeouts);
	}
	run_side(w, 1);
	int st;
	waitpid(pid, &st, 0);
	printf("%s: %d rounds, parent timeouts %d, child %s %d\n", what, ROUNDS, timeouts,
	       WIFEXITED(st) ? "timeouts" : "killed", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

static int peer(const char *path)
{
	int fd = open(path, O_RDWR);
	int *w = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (w == MAP_FAILED)
		return 100;
	run_side(w + 8, 0);
	return timeouts > 99 ? 99 : timeouts;
}

static int *heap_word;
static int heap_timeouts;
static pthread_mutex_t hm = PTHREAD_MUTEX_INITIALIZER;

static void *heap_waiter(void *a)
{
	while (__atomic_load_n(heap_word, __ATOMIC_SEQ_CST) == 0) {
		struct timespec ts = { 2, 0 };
		if (futex(heap_word, FUTEX_WAIT, 0, &ts) == -1 && errno == ETIMEDOUT) {
			pthread_mutex_lock(&hm);
			heap_timeouts++;
			pthread_mutex_unlock(&hm);
		}
	}
	return a;
}

static void overflow_then_wake(void)
{
	enum { WAITERS = 8, PAGES = 5000 };
	heap_word = calloc(1, sizeof *heap_word);
	pthread_t t[WAITERS];
	for (int i = 0; i < WAITERS; i++)
		pthread_create(&t[i], NULL, heap_waiter, NULL);
	usleep(50000);
	static void *pages[PAGES];
	int mapped = 0;
	for (int i = 0; i < PAGES; i++) {
		pages[i] = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		mapped += pages[i] != MAP_FAILED;
	}
	__atomic_store_n(heap_word, 1, __ATOMIC_SEQ_CST);
	int woken = 0;
	for (int tries = 0; tries < 100 && woken < WAITERS; tries++) {
		long r = futex(heap_word, FUTEX_WAKE, WAITERS, NULL);
		if (r > 0)
			woken += (int)r;
		else
			usleep(1000);
	}
	for (int i = 0; i < WAITERS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < PAGES; i++)
		if (pages[i] != MAP_FAILED)
			munmap(pages[i], 4096);
	printf("heap word woken after %d shared pages mapped: %d waiters, timeouts %d\n",
	       mapped, WAITERS, heap_timeouts);
	free(heap_word);
}

int main(int argc, char **argv)
{
	weft_check_loaded();
	if (argc == 3 && !strcmp(argv[1], "peer"))
		return peer(argv[2]);
	setvbuf(stdout, NULL, _IONBF, 0);

	int *anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	with_fork("MAP_SHARED anonymous", anon, 3, -1);
	munmap(anon, 4096);

	int *raw = (int *)syscall(SYS_mmap, NULL, 8192, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	with_fork("syscall(SYS_mmap) MAP_SHARED anonymous", raw, 1024 + 5, -1);
	syscall(SYS_munmap, raw, 8192);

	int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	int *seg = id < 0 ? (void *)-1 : shmat(id, NULL, 0);
	if (seg == (void *)-1) {
		printf("shmget/shmat failed\n");
	} else {
		with_fork("shmat segment", seg, 7, id);
		shmdt(seg);
	}
	if (id >= 0)
		shmctl(id, IPC_RMID, NULL);

	/* A file two unrelated processes map shared: the peer is this program
	 * run again (exec), which maps the file itself. */
	char path[] = "/tmp/weft-futex-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || ftruncate(fd, 4096) != 0) {
		printf("temporary file failed\n");
		return 1;
	}
	int *file = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	timeouts = 0;
	pid_t pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", argv[0], "peer", path, (char *)NULL);
		_exit(101);
	}
	run_side(file + 8, 1);
	int st;
	waitpid(pid, &st, 0);
	unlink(path);
	printf("file mapped shared by two processes: %d rounds, first timeouts %d, peer %s %d\n",
	       ROUNDS, timeouts, WIFEXITED(st) ? "timeouts" : "killed",
	       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));

	overflow_then_wake();
	return 0;
}
