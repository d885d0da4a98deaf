/*
 * futex_pshared [N] — a parent and its forked child pass a turn back and
 * forth N times (default 20,000) through a futex word in MAP_SHARED memory
 * (syscall(SYS_futex) without FUTEX_PRIVATE_FLAG); prints the time of one
 * round trip.
 */
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static void wait_while(_Atomic int *w, int v)
{
	while (atomic_load(w) == v)
		syscall(SYS_futex, w, FUTEX_WAIT, v, NULL, NULL, 0);
}

static void set_wake(_Atomic int *w, int v)
{
	atomic_store(w, v);
	syscall(SYS_futex, w, FUTEX_WAKE, 1, NULL, NULL, 0);
}

int main(int argc, char **argv)
{
	long rounds = arg_long(argc, argv, 1, 20000);
	_Atomic int *turn = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				 -1, 0);
	if (turn == MAP_FAILED)
		return perror("mmap"), 1;
	pid_t pid = fork();
	if (pid == 0) {
		for (long i = 0; i < rounds; i++) {
			wait_while(turn, (int)(2 * i));
			set_wake(turn, (int)(2 * i + 2));
		}
		_exit(0);
	}
	double t0 = now_s();
	for (long i = 0; i < rounds; i++) {
		set_wake(turn, (int)(2 * i + 1));
		wait_while(turn, (int)(2 * i + 1));
	}
	double t = now_s() - t0;
	waitpid(pid, NULL, 0);
	printf("round trips:       %ld\n", rounds);
	printf("shared futex, one round trip: %.0f ns\n", t * 1e9 / rounds);
	return 0;
}
