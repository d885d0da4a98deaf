/*
 * spawn_fresh — ten thousand threads that return at once, all created
 * before any is joined: under weft what the process's page tables grow
 * by (VmPTE) stays under 8 MB.  A task made while many others have not
 * run yet would take a stack slot nobody used before, each with a
 * page-table page of its own (40 MB for ten thousand at GOMAXPROCS=1),
 * unless the maker lets the new tasks run and their slots are reused.
 * Natively a joinable thread's stack is kept until its join, so the
 * tables grow by about as much (40 MB here): the bound is weft's alone,
 * and natively the line says yes whatever they grew by.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft_check.h"

#define N 10000

static long vm_pte_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "VmPTE:", 6) == 0)
			kb = atol(line + 6);
	if (f)
		fclose(f);
	return kb;
}

static void *nothing(void *arg)
{
	return arg;
}

int main(void)
{
	weft_check_loaded();
	static pthread_t th[N];
	long before = vm_pte_kb();
	int made = 0;
	for (int i = 0; i < N; i++)
		if (pthread_create(&th[i], NULL, nothing, (void *)(long)i) == 0)
			made++;
	long after = vm_pte_kb();
	long sum = 0;
	for (int i = 0; i < made; i++) {
		void *r;
		pthread_join(th[i], &r);
		sum += (long)r;
	}
	printf("threads made %d, joined values sum %ld\n", made, sum);
	long grew = after - before;
	int weft = weft_loaded();
	printf("page tables grew under 8 MB: %s\n",
	       !weft || (before >= 0 && grew < 8192) ? "yes" : "no");
	if (weft && grew >= 8192)
		fprintf(stderr, "spawn_fresh: VmPTE grew by %ld kB\n", grew);
	return 0;
}
