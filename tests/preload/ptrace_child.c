/*
 * ptrace_child — a program that traces its children: PTRACE_TRACEME in a
 * forked child, and PTRACE_ATTACH to another; waitpid for their stops,
 * PTRACE_GETREGS, PTRACE_PEEKUSER, PTRACE_GETSIGINFO, PTRACE_CONT and
 * PTRACE_DETACH.  The kernel answers a tracer's requests only from the
 * thread that became the tracer; under weft the task moves between
 * workers (here: two threads keep the procs busy, and a short sleep after
 * each stop lets the task resume on any worker), and the requests once
 * failed with ESRCH (gdb: "Couldn't get registers: No such process").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <elf.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include "weft_check.h"

#define ROUNDS 12

static atomic_int stop;

static void *spinner(void *arg)
{
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		;
	return arg;
}

/* waitpid until pid stops with SIGSTOP or ends; a stop for another signal
 * is continued with it, as a debugger that passes signals does (a child
 * that runs weft's code takes its faults as a stack grows: each stops it
 * under ptrace).  Returns waitpid's value, the status in *st; -1 when
 * such a stop could not be continued. */
static pid_t wait_stop(pid_t pid, int *st)
{
	for (;;) {
		pid_t r = waitpid(pid, st, 0);
		if (r != pid || !WIFSTOPPED(*st) || WSTOPSIG(*st) == SIGSTOP)
			return r;
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)WSTOPSIG(*st)) != 0)
			return -1; /* the caller kills it */
	}
}

/* The requests on a tracee in a signal-delivery-stop for SIGSTOP; a
 * string naming the first that failed, or NULL. */
static const char *inspect(pid_t pid)
{
	static char why[96];
	usleep(2000); /* resume on whichever worker */
#ifdef __x86_64__
	struct user_regs_struct regs;
	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) != 0) {
		snprintf(why, sizeof why, "GETREGS %s", strerrorname_np(errno));
		return why;
	}
	usleep(2000);
	errno = 0;
	long rip = ptrace(PTRACE_PEEKUSER, pid, (void *)offsetof(struct user, regs.rip), NULL);
	if (errno != 0 || (unsigned long)rip != regs.rip) {
		snprintf(why, sizeof why, "PEEKUSER %s", errno ? strerrorname_np(errno) : "differs");
		return why;
	}
#else /* no PTRACE_GETREGS or PEEKUSER: the register set */
	unsigned long regs[64];
	struct iovec v = { regs, sizeof regs };
	if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &v) != 0) {
		snprintf(why, sizeof why, "GETREGSET %s", strerrorname_np(errno));
		return why;
	}
#endif
	usleep(2000);
	siginfo_t si;
	if (ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) != 0 || si.si_signo != SIGSTOP) {
		snprintf(why, sizeof why, "GETSIGINFO %s", strerrorname_np(errno));
		return why;
	}
	return NULL;
}

/* A child that stops itself under PTRACE_TRACEME, is inspected, then
 * continued to its exit. */
static const char *traceme_round(int r)
{
	static char why[128];
	pid_t pid = fork();
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
			_exit(100);
		raise(SIGSTOP);
		_exit(r);
	}
	int st;
	if (wait_stop(pid, &st) != pid || !WIFSTOPPED(st)) {
		snprintf(why, sizeof why, "first wait: status %#x", st);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return why;
	}
	const char *bad = inspect(pid);
	usleep(2000);
	if (!bad && ptrace(PTRACE_CONT, pid, NULL, NULL) != 0) {
		snprintf(why, sizeof why, "CONT %s", strerrorname_np(errno));
		bad = why;
	}
	if (bad)
		kill(pid, SIGKILL);
	if (wait_stop(pid, &st) != pid) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return "a stop on the way to the exit could not be continued";
	}
	if (!bad && (!WIFEXITED(st) || WEXITSTATUS(st) != r)) {
		snprintf(why, sizeof why, "exit status %#x", st);
		bad = why;
	}
	return bad;
}

/* A child that waits; attached to, inspected, detached, killed. */
static const char *attach_round(void)
{
	static char why[128];
	pid_t pid = fork();
	if (pid == 0) {
		alarm(20); /* gone even if the test is killed first */
		for (;;)
			pause();
	}
	int st;
	const char *bad = NULL;
	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) != 0) {
		snprintf(why, sizeof why, "ATTACH %s", strerrorname_np(errno));
		bad = why;
	} else if (wait_stop(pid, &st) != pid || !WIFSTOPPED(st)) {
		snprintf(why, sizeof why, "wait after attach: status %#x", st);
		bad = why;
	} else {
		bad = inspect(pid);
		usleep(2000);
		if (!bad && ptrace(PTRACE_DETACH, pid, NULL, NULL) != 0) {
			snprintf(why, sizeof why, "DETACH %s", strerrorname_np(errno));
			bad = why;
		}
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return bad;
}

int main(void)
{
	weft_check_loaded();
	pthread_t s[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&s[i], NULL, spinner, NULL);
	int ok = 0;
	const char *first = NULL;
	for (int r = 0; r < ROUNDS; r++) {
		const char *bad = traceme_round(r);
		if (bad && !first)
			first = bad;
		ok += !bad;
	}
	printf("PTRACE_TRACEME children: %d of %d inspected and continued%s%s\n", ok, ROUNDS,
	       first ? "; first failure: " : "", first ? first : "");
	ok = 0;
	first = NULL;
	for (int r = 0; r < ROUNDS; r++) {
		const char *bad = attach_round();
		if (bad && !first)
			first = bad;
		ok += !bad;
	}
	printf("PTRACE_ATTACH children: %d of %d inspected and detached%s%s\n", ok, ROUNDS,
	       first ? "; first failure: " : "", first ? first : "");
	atomic_store(&stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(s[i], NULL);
	return 0;
}
