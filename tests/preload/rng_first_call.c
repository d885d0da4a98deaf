/* Threads whose first call into glibc's random numbers is getrandom,
 * getentropy, arc4random_buf, mkstemp, mkdtemp or tmpfile, while busy
 * processes keep the CPUs full (so the kernel switches threads often).
 * From glibc 2.41 on, a thread's first such call takes a vDSO getrandom
 * state with every signal blocked and, every few threads, maps and names a
 * new page of them: under weft's trap mode a kernel switch there once
 * killed the process with SIGSEGV.  Each thread also keeps 16 random bytes:
 * no two threads may draw the same (a state two threads shared would). */
#define _GNU_SOURCE
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "test_util.h"

#define BATCH 64

static char dir[] = "/tmp/weft-rng-XXXXXX";
static unsigned char (*drawn)[16];
static int failed[6];
static pthread_mutex_t fm = PTHREAD_MUTEX_INITIALIZER;

static void fail(int kind)
{
	pthread_mutex_lock(&fm);
	failed[kind]++;
	pthread_mutex_unlock(&fm);
}

static void *first_call(void *a)
{
	long i = (long)a;
	unsigned char *r = drawn[i];
	char path[64];
	int kind = (int)(i % 6), fd;
	switch (kind) {
	case 0:
		if (getrandom(r, 16, 0) != 16)
			fail(kind);
		return NULL;
	case 1:
		if (getentropy(r, 16) != 0)
			fail(kind);
		return NULL;
	case 2:
		arc4random_buf(r, 16);
		return NULL;
	case 3:
		snprintf(path, sizeof path, "%s/f%ld-XXXXXX", dir, i);
		if ((fd = mkstemp(path)) < 0)
			fail(kind);
		else
			close(fd), unlink(path);
		break;
	case 4:
		snprintf(path, sizeof path, "%s/d%ld-XXXXXX", dir, i);
		if (!mkdtemp(path) || rmdir(path) != 0)
			fail(kind);
		break;
	case 5: {
		FILE *f = tmpfile();
		if (!f)
			fail(kind);
		else
			fclose(f);
		break;
	}
	}
	arc4random_buf(r, 16); /* the second call of the temporary-name kinds */
	return NULL;
}

static int cmp16(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

int main(void)
{
	weft_check_loaded();
	int n = test_threads(3000);
	if (!mkdtemp(dir)) {
		printf("mkdtemp: %s\n", en(errno));
		return 1;
	}
	drawn = calloc(n, 16);
	/* Two busy processes per CPU, made before any thread; they die
	 * with this process however it ends. */
	pid_t self = getpid();
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int hogs = (int)(2 * (cpus < 1 ? 1 : cpus > 8 ? 8 : cpus));
	pid_t hog[16];
	for (int h = 0; h < hogs; h++)
		if ((hog[h] = fork()) == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != self)
				_exit(0);
			for (;;)
				__asm__ volatile("" ::: "memory");
		}
	pthread_t t[BATCH];
	for (int i = 0; i < n; i += BATCH) {
		int k = n - i < BATCH ? n - i : BATCH;
		for (int j = 0; j < k; j++)
			if (pthread_create(&t[j], NULL, first_call, (void *)(long)(i + j)) != 0) {
				printf("pthread_create: %s\n", en(errno));
				return 1;
			}
		for (int j = 0; j < k; j++)
			pthread_join(t[j], NULL);
	}
	for (int h = 0; h < hogs; h++) {
		kill(hog[h], SIGKILL);
		waitpid(hog[h], NULL, 0);
	}
	rmdir(dir);
	qsort(drawn, n, 16, cmp16);
	int same = 0;
	for (int i = 1; i < n; i++)
		same += !memcmp(drawn[i - 1], drawn[i], 16);
	printf("%d threads' first random calls: failed getrandom %d, getentropy %d, "
	       "arc4random_buf %d, mkstemp %d, mkdtemp %d, tmpfile %d; equal draws %d\n",
	       n, failed[0], failed[1], failed[2], failed[3], failed[4], failed[5], same);
	return 0;
}
