/* 8,000 threads, 64 at a time, each drawing 16 random bytes with
 * arc4random_buf (the odd ones with getrandom) and ending.  From glibc
 * 2.41 on each thread takes a vDSO getrandom state at its first draw and
 * glibc takes it back when the thread exits, so the states' memory stays
 * that of the threads alive at once.  Under weft a task never runs
 * glibc's thread exit: weft keeps an ended task's state for the next
 * task.  Checks: the droppable mappings that hold the states (VmFlags
 * "dp" in /proc/self/smaps; none before 2.41) total under 1 MiB (8,000
 * states kept would be about 1.5 MiB), and no two threads drew the same
 * bytes (a state two threads shared would). */
#define _GNU_SOURCE
#include <sys/random.h>
#include "test_util.h"

#define BATCH 64

static unsigned char (*drawn)[16];

static void *draw(void *a)
{
	long i = (long)a;
	if (i & 1) {
		if (getrandom(drawn[i], 16, 0) != 16)
			memset(drawn[i], 0, 16);
	} else {
		arc4random_buf(drawn[i], 16);
	}
	return NULL;
}

static int cmp16(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

/* kB of mappings whose VmFlags have "dp" (droppable). */
static long droppable_kb(void)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	long size = 0, total = 0;
	while (f && fgets(line, sizeof line, f)) {
		if (!strncmp(line, "Size:", 5))
			size = atol(line + 5);
		else if (!strncmp(line, "VmFlags:", 8) && strstr(line, " dp"))
			total += size;
	}
	if (f)
		fclose(f);
	return total;
}

int main(void)
{
	weft_check_loaded();
	int n = test_threads(8000);
	drawn = calloc(n, 16);
	pthread_t t[BATCH];
	for (int i = 0; i < n; i += BATCH) {
		int k = n - i < BATCH ? n - i : BATCH;
		for (int j = 0; j < k; j++)
			if (pthread_create(&t[j], NULL, draw, (void *)(long)(i + j)) != 0) {
				printf("pthread_create: %s\n", en(errno));
				return 1;
			}
		for (int j = 0; j < k; j++)
			pthread_join(t[j], NULL);
	}
	long kb = droppable_kb();
	qsort(drawn, n, 16, cmp16);
	int same = 0;
	for (int i = 1; i < n; i++)
		same += !memcmp(drawn[i - 1], drawn[i], 16);
	printf("%d threads drew 16 random bytes each: equal draws %d; getrandom states' memory "
	       "under 1 MiB: %s\n", n, same, kb < 1024 ? "yes" : "no");
	if (kb >= 1024)
		fprintf(stderr, "droppable mappings: %ld kB\n", kb);
	return 0;
}
