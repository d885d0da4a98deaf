/* Cancellation points that libc makes (glibc's list, pthreads(7)), each in
 * two ways: the cancel is already pending when the call starts (the thread
 * had cancellation disabled, then enabled it: deferred, so nothing acts
 * before the call), and the cancel arrives while the call blocks.  Either
 * way the call does not return: the thread's cleanup handler runs and the
 * join returns PTHREAD_CANCELED.  Under weft the calls made through libc
 * (open of a FIFO, waitpid, fcntl(F_SETLKW), pause, msgrcv, sigwait, ...)
 * did not see the request: they returned, or blocked forever. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/msg.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"

static char fifo[64], lockfile[64];
static pid_t child;       /* pauses until killed: waitpid & co. block on it */
static int lockfd = -1;   /* the child holds a write lock on it */
static int msq = -1;
static int pipefd[2];
static sigset_t usr1;

/* Each returns normally only if it was not cancelled. */
static void c_open(void) { open(fifo, O_RDONLY); }
static void c_openat(void) { openat(AT_FDCWD, fifo, O_RDONLY); }
static void c_waitpid(void) { int st; waitpid(child, &st, 0); }
static void c_wait4(void) { int st; wait4(child, &st, 0, NULL); }
static void c_waitid(void) { siginfo_t si; waitid(P_PID, (id_t)child, &si, WEXITED); }
static void c_wait(void) { int st; wait(&st); }
static void c_fcntl(void)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	fcntl(lockfd, F_SETLKW, &fl);
}
static void c_lockf(void) { lockf(lockfd, F_LOCK, 0); }
static void c_pause(void) { pause(); }
static void c_sigsuspend(void)
{
	sigset_t none;
	sigfillset(&none);
	sigdelset(&none, SIGUSR2);
	sigsuspend(&none);
}
static void c_sigwait(void) { int s; sigwait(&usr1, &s); }
static void c_sigtimedwait(void)
{
	struct timespec ts = { 60, 0 };
	sigtimedwait(&usr1, NULL, &ts);
}
static void c_msgrcv(void)
{
	struct { long type; char b[8]; } m;
	msgrcv(msq, &m, sizeof m.b, 0, 0);
}
static void c_ppoll_mask(void)
{
	struct pollfd p = { pipefd[0], POLLIN, 0 };
	sigset_t none;
	sigemptyset(&none);
	ppoll(&p, 1, NULL, &none);
}
static void c_pselect_mask(void)
{
	fd_set r;
	FD_ZERO(&r);
	FD_SET(pipefd[0], &r);
	sigset_t none;
	sigemptyset(&none);
	pselect(pipefd[0] + 1, &r, NULL, NULL, NULL, &none);
}
static void c_read_pipe(void) { char b; read(pipefd[0], &b, 1); }
static void c_nanosleep(void) { struct timespec ts = { 60, 0 }; nanosleep(&ts, NULL); }

/* Calls that do not block here: only the pending case. */
static void c_close(void) { close(dup(0)); }
static void c_creat(void) { char p[80]; snprintf(p, sizeof p, "%s.c", lockfile); close(creat(p, 0600)); unlink(p); }
static void c_fsync(void) { fsync(lockfd); }
static void c_fdatasync(void) { fdatasync(lockfd); }
static void c_pread(void) { char b; pread(lockfd, &b, 1, 0); }
static void c_pwrite(void) { pwrite(lockfd, "x", 1, 0); }

struct cp { const char *name; void (*fn)(void); bool blocks; };
static const struct cp cps[] = {
	{ "open(FIFO)", c_open, true },
	{ "openat(FIFO)", c_openat, true },
	{ "waitpid", c_waitpid, true },
	{ "wait4", c_wait4, true },
	{ "waitid", c_waitid, true },
	{ "wait", c_wait, true },
	{ "fcntl(F_SETLKW)", c_fcntl, true },
	{ "lockf(F_LOCK)", c_lockf, true },
	{ "pause", c_pause, true },
	{ "sigsuspend", c_sigsuspend, true },
	{ "sigwait", c_sigwait, true },
	{ "sigtimedwait", c_sigtimedwait, true },
	{ "msgrcv", c_msgrcv, true },
	{ "ppoll(mask)", c_ppoll_mask, true },
	{ "pselect(mask)", c_pselect_mask, true },
	{ "read(pipe)", c_read_pipe, true },
	{ "nanosleep", c_nanosleep, true },
	{ "close", c_close, false },
	{ "creat", c_creat, false },
	{ "fsync", c_fsync, false },
	{ "fdatasync", c_fdatasync, false },
	{ "pread", c_pread, false },
	{ "pwrite", c_pwrite, false },
};

static sem_t ready, go;
static atomic_int cleaned;
static const struct cp *cur;
static bool pending;

static void cleanup(void *a) { (void)a; atomic_store(&cleaned, 1); }

static void *thread(void *a)
{
	(void)a;
	pthread_cleanup_push(cleanup, NULL);
	if (pending) {
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		sem_post(&ready);
		sem_wait(&go); /* not cancelable now; main has cancelled us */
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	} else {
		sem_post(&ready);
	}
	cur->fn();
	pthread_cleanup_pop(0);
	return NULL;
}

static void run(const struct cp *c, bool pend)
{
	pthread_t t;
	void *r = NULL;
	cur = c;
	pending = pend;
	atomic_store(&cleaned, 0);
	pthread_create(&t, NULL, thread, NULL);
	sem_wait(&ready);
	if (pend) {
		pthread_cancel(t);
		sem_post(&go);
	} else {
		usleep(50000); /* blocked by now (or about to be: the same result) */
		pthread_cancel(t);
	}
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 10;
	int j = pthread_timedjoin_np(t, &r, &dl);
	if (j) {
		printf("%-16s %-8s not cancelled within 10 s\n", c->name, pend ? "pending" : "blocked");
		kill(child, SIGKILL);
		exit(1);
	}
	printf("%-16s %-8s %s, cleanup handler %s\n", c->name, pend ? "pending" : "blocked",
	       r == PTHREAD_CANCELED ? "cancelled" : "RETURNED", atomic_load(&cleaned) ? "ran" : "did not run");
}

int main(void)
{
	weft_check_loaded();
	setvbuf(stdout, NULL, _IOLBF, 0);
	sem_init(&ready, 0, 0);
	sem_init(&go, 0, 0);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL); /* threads inherit it: sigwait's set */
	snprintf(fifo, sizeof fifo, "/tmp/cancel_points.%d.fifo", (int)getpid());
	snprintf(lockfile, sizeof lockfile, "/tmp/cancel_points.%d.lock", (int)getpid());
	if (mkfifo(fifo, 0600) != 0 || pipe(pipefd) != 0)
		return 2;
	lockfd = open(lockfile, O_RDWR | O_CREAT | O_TRUNC, 0600);
	msq = msgget(IPC_PRIVATE, 0600);
	int sync[2];
	if (lockfd < 0 || msq < 0 || pipe(sync) != 0)
		return 2;
	child = fork();
	if (child == 0) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		fcntl(lockfd, F_SETLK, &fl);
		write(sync[1], "x", 1);
		for (;;)
			pause();
	}
	char b;
	read(sync[0], &b, 1);
	for (size_t i = 0; i < sizeof cps / sizeof cps[0]; i++) {
		run(&cps[i], true);
		if (cps[i].blocks)
			run(&cps[i], false);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	msgctl(msq, IPC_RMID, NULL);
	unlink(fifo);
	unlink(lockfile);
	return 0;
}
