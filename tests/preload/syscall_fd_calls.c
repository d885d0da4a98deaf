/* dup2, dup3, close_range and sigaltstack made through syscall() behave as
 * the libc calls: a program that closes or reuses every number from 100
 * up, or sets its alternate signal stack, that way goes on waiting on
 * pipes and running handlers as natively.  Each round: a thread blocks
 * reading a pipe, main writes a byte 20 ms later, the reader prints what
 * it got; between rounds main makes the call under test. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "weft_check.h"

static int p[2];
static volatile sig_atomic_t handled;

static void *reader(void *arg)
{
	(void)arg;
	char c;
	ssize_t r = read(p[0], &c, 1);
	printf("  reader got %zd\n", r);
	return NULL;
}

static void round_trip(const char *after)
{
	if (pipe2(p, O_CLOEXEC) != 0)
		abort();
	pthread_t t;
	pthread_create(&t, NULL, reader, NULL);
	usleep(20000);
	if (write(p[1], "x", 1) != 1)
		abort();
	pthread_join(t, NULL);
	/* Two descriptors polled at once, nothing to read: a timeout. */
	int q[2];
	if (pipe(q) != 0)
		abort();
	struct pollfd f[2] = { { p[0], POLLIN, 0 }, { q[0], POLLIN, 0 } };
	printf("  poll of two quiet pipes: %d\n", poll(f, 2, 20));
	close(p[0]);
	close(p[1]);
	close(q[0]);
	close(q[1]);
	printf("after %s: done\n", after);
}

static void on_usr1(int sig)
{
	(void)sig;
	handled = 1;
}

static void *alt_thread(void *arg)
{
	(void)arg;
	stack_t ss = { .ss_sp = malloc(65536), .ss_size = 65536, .ss_flags = 0 };
	printf("syscall(SYS_sigaltstack): %ld\n", syscall(SYS_sigaltstack, &ss, NULL));
	struct sigaction sa = { 0 };
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	pthread_kill(pthread_self(), SIGUSR1);
	printf("handler ran: %s\n", handled ? "yes" : "no");
	stack_t off = { .ss_flags = SS_DISABLE };
	syscall(SYS_sigaltstack, &off, NULL);
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	setvbuf(stdout, NULL, _IOLBF, 0);
	round_trip("start");
	int z = open("/dev/null", O_RDONLY);
	for (int fd = 100; fd < 164; fd++)
#ifdef SYS_dup2
		syscall(SYS_dup2, z, fd); /* some may be refused: not printed */
#else /* aarch64 has dup3 only, which is dup2 with flags 0 here (z != fd) */
		syscall(SYS_dup3, z, fd, 0);
#endif
	for (int fd = 100; fd < 164; fd++)
		if (fd != z)
			syscall(SYS_close, fd);
	round_trip("syscall(SYS_dup2) onto 100-163");
	for (int fd = 100; fd < 164; fd++)
		syscall(SYS_dup3, z, fd, O_CLOEXEC);
	syscall(SYS_close_range, 100, ~0U, 0);
	round_trip("syscall(SYS_dup3) onto 100-163 and syscall(SYS_close_range, 100, ~0U)");
	pthread_t t;
	pthread_create(&t, NULL, alt_thread, NULL);
	pthread_join(t, NULL);
	round_trip("syscall(SYS_sigaltstack)");
	return 0;
}
