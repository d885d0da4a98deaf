/* An OpenMP team larger than GOMAXPROCS: libgomp's barriers spin and then
 * wait with raw futex system calls weft cannot intercept, so this needs
 * preemption and blocked-worker detection.  The sums must match. */
#include <omp.h>
#include <stdio.h>
#include "weft_check.h"

int main(void)
{
	weft_check_loaded();
	omp_set_num_threads(8);
	long total = 0;
	for (int round = 0; round < 20; round++) {
		long sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
		for (long i = 0; i < 200000; i++)
			sum += (i * (round + 1)) % 7;
		total += sum;
	}
	int team = 0;
#pragma omp parallel
	{
#pragma omp barrier
#pragma omp atomic
		team++;
#pragma omp barrier
	}
	printf("total %ld team %d\n", total, team);
	return 0;
}
