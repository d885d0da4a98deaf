/* A small default stack size: the program runs with RLIMIT_STACK at 64 KiB
 * (or glibc's least, where that is more), so every thread created without
 * a stack size gets a fixed stack of exactly that size, as glibc gives.
 * The program sets the limit and executes itself again, since glibc (and
 * weft) read it at start.  Under qemu-user, which keeps the host's limit,
 * weft gets the size from WEFT_STACK_SIZE instead.
 *
 * Checked, each of three rounds of 5,000 parked threads (NULL attribute,
 * and one attribute that sets only a guard size, for a quarter of them):
 *  - pthread_getattr_np reports the default size and the guard asked for;
 *  - 48 KiB of the stack is usable;
 *  - memory per parked thread (resident pages plus page tables): glibc
 *    lays such stacks side by side, 7-10 KB each here; weft packs
 *    them too and must stay at 6.5 KB, with no page-table page each;
 *  - pthread_setattr_default_np's stack size and guard are the new
 *    default;
 *  - a thread that recurses without end dies by SIGSEGV (in a child
 *    process), as a fixed stack does. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test_util.h"
#include "weft_check.h"

#define N_MAX 5000
static int N = N_MAX;
static size_t SIZE = 64 << 10;

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int waiting, go, bad;

static int endless(int depth)
{
	volatile char buf[512];
	buf[0] = (char)depth;
	if (depth < 0) /* never: the recursion has no end */
		return 0;
	return endless(depth + 1) + buf[0];
}

static void *waiter(void *arg)
{
	size_t want_guard = (size_t)arg & ~(size_t)1;
	pthread_attr_t a;
	size_t size = 0, guard = 0;
	void *addr;
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		pthread_attr_getstack(&a, &addr, &size);
		pthread_attr_getguardsize(&a, &guard);
		pthread_attr_destroy(&a);
	}
	if ((size_t)arg & 1)
		use_stack_kb(48);
	pthread_mutex_lock(&m);
	if (size != SIZE || guard != want_guard) {
		if (!bad)
			fprintf(stderr, "stack %zu guard %zu, want %zu %zu\n", size, guard, SIZE,
				want_guard);
		bad++;
	}
	park_counted(&m, &c, &waiting, &go);
	return NULL;
}

static void *overflow(void *arg)
{
	return (void *)(long)endless((int)(long)arg);
}

static int child(void)
{
	weft_check_loaded();
	if (skip_native_rss())
		return 0;
	N = test_threads(N_MAX);
	struct rlimit rl;
	getrlimit(RLIMIT_STACK, &rl);
	if (rl.rlim_cur != SIZE && !emulated()) {
		printf("RLIMIT_STACK is %lu, not %zu\n", (unsigned long)rl.rlim_cur, SIZE);
		return 1;
	}
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	pthread_attr_t ga;
	pthread_attr_init(&ga);
	pthread_attr_setguardsize(&ga, 4 * page);
	static pthread_t t[N_MAX];
	/* Under qemu-user weft packs nothing (no guard markers there). */
	long bound = weft_loaded() && !emulated() ? 6500 : 12000;
	for (int round = 1; round <= 3; round++) {
		long before = status_kb("VmRSS") + status_kb("VmPTE");
		int n = 0;
		for (; n < N; n++) {
			int g = n % 4 == 3;
			if (pthread_create(&t[n], g ? &ga : NULL, waiter,
					   (void *)(g ? 4 * page : page)))
				break;
		}
		wait_parked(&m, &waiting, n);
		long per = (status_kb("VmRSS") + status_kb("VmPTE") - before) * 1000 / (n ? n : 1);
		pthread_t deep[4];
		int nd = 0;
		for (; nd < 4; nd++)
			if (pthread_create(&deep[nd], NULL, waiter, (void *)(page | 1)))
				break;
		wait_parked(&m, &waiting, n + nd);
		release_parked(&m, &c, &go);
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		for (int i = 0; i < nd; i++)
			pthread_join(deep[i], NULL);
		printf("round %d: %s threads, %d deep, stacks as asked: %s, per parked thread: %s\n",
		       round, n == N ? "all" : "not all", nd, bad ? "no" : "yes",
		       per <= bound ? "within the bound" : "over the bound");
		if (per > bound || getenv("SMALL_STACK_VERBOSE"))
			fprintf(stderr, "round %d: %ld bytes per parked thread, bound %ld\n", round,
				per, bound);
		waiting = go = bad = 0;
	}
	/* A default set by the program: NULL-attribute threads get its size
	 * and guard, and threads with an attribute without a size its size
	 * and their attribute's guard. */
	pthread_attr_t d;
	pthread_attr_init(&d);
	pthread_attr_setstacksize(&d, 2 * SIZE);
	pthread_attr_setguardsize(&d, 2 * page);
	int r = pthread_setattr_default_np(&d);
	SIZE *= 2;
	pthread_t p[2];
	int np = 0;
	if (r == 0 && pthread_create(&p[np], NULL, waiter, (void *)(2 * page)) == 0)
		np++;
	if (r == 0 && pthread_create(&p[np], &ga, waiter, (void *)(4 * page)) == 0)
		np++;
	wait_parked(&m, &waiting, np);
	release_parked(&m, &c, &go);
	for (int i = 0; i < np; i++)
		pthread_join(p[i], NULL);
	printf("pthread_setattr_default_np: %s, %d threads, stacks as asked: %s\n", en(r), np,
	       bad ? "no" : "yes");
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		pthread_t o;
		if (pthread_create(&o, NULL, overflow, NULL) == 0)
			pthread_join(o, NULL);
		_exit(0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	printf("endless recursion: %s\n",
	       WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV ? "SIGSEGV" : "something else");
	if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV))
		fprintf(stderr, "child status %#x\n", st);
	return 0;
}

int main(int argc, char **argv)
{
	if ((size_t)sysconf(_SC_THREAD_STACK_MIN) > SIZE)
		SIZE = (size_t)sysconf(_SC_THREAD_STACK_MIN);
	if (argc > 1 && strcmp(argv[1], "small") == 0)
		return child();
	struct rlimit rl;
	getrlimit(RLIMIT_STACK, &rl);
	rl.rlim_cur = SIZE;
	if (setrlimit(RLIMIT_STACK, &rl) != 0) {
		perror("setrlimit");
		return 1;
	}
	/* qemu-user keeps the host's RLIMIT_STACK (it would limit the
	 * emulator): there weft is told the same size by WEFT_STACK_SIZE. */
	char env[64];
	snprintf(env, sizeof env, "%zu", SIZE);
	if (emulated())
		setenv("WEFT_STACK_SIZE", env, 1);
	fflush(stdout);
	char *av[] = { argv[0], "small", NULL };
	execv("/proc/self/exe", av);
	perror("execv");
	return 1;
}
