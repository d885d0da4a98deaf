/*
 * pshared_util.h — helpers for the tests that share memory with a forked
 * child.
 *   shared_page(n)            n zeroed bytes of MAP_SHARED anonymous memory
 *   sfutex(addr, op, val, t, addr2, val3)
 *                             syscall(SYS_futex, ...)
 *   reap(pid)                 waits for pid; its exit status, 128+signal if
 *                             a signal ended it
 * Every test arms alarm(): a wait that never ends fails the test in seconds
 * (SIGALRM's exit status differs from the native run's) instead of the
 * runner's two minutes.
 */
#ifndef WEFT_PSHARED_UTIL_H
#define WEFT_PSHARED_UTIL_H
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static inline void *shared_page(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

static inline long sfutex(void *addr, int op, int val, long t, void *addr2, int val3)
{
	return syscall(SYS_futex, addr, op, val, t, addr2, val3);
}

static inline int reap(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
#endif
