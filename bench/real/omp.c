/* OpenMP: many short parallel regions (fork/join and barriers each time)
 * with reductions, as a numeric kernel run in small steps does.  Integer
 * arithmetic, so the result does not depend on the order of the sums. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N     20000
#define STEPS 1500

int main(void)
{
	long *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
	for (int i = 0; i < N; i++)
		a[i] = i % 97, b[i] = 0;
	long check = 0;
	for (int s = 0; s < STEPS; s++) {
		long sum = 0;
#pragma omp parallel for reduction(+:sum) schedule(static)
		for (int i = 1; i < N - 1; i++) {
			b[i] = (a[i - 1] + a[i] + a[i + 1] + s) % 1009;
			sum += b[i];
		}
		long *t = a; a = b; b = t;
		a[0] = a[N - 1] = 0;
		check = (check * 31 + sum) % 1000000007;
	}
	printf("steps %d, check %ld\n", STEPS, check);
	free(a);
	free(b);
	return 0;
}
