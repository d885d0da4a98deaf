/* The real-thread fallback (shim/fallback.c): return values and errno as
 * libc's, and more tasks blocked in these calls than there are procs while
 * the task that releases them (main) still runs: weft must take the procs
 * from the blocked workers.  Blocking cases: a FIFO's open, flock, System V
 * semaphores and message queues, POSIX message queues. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "weft_check.h"

#define N 6

static char dir[64];
static char path[128];

static const char *ename(int e)
{
	switch (e) {
	case 0: return "0";
	case ENOENT: return "ENOENT";
	case EAGAIN: return "EAGAIN";
	case ECHILD: return "ECHILD";
	case ENOMSG: return "ENOMSG";
	case EBADF: return "EBADF";
	case EINVAL: return "EINVAL";
	case EWOULDBLOCK == EAGAIN ? -1 : EWOULDBLOCK: return "EWOULDBLOCK";
	case EACCES: return "EACCES";
	default: return "other";
	}
}

#define SHOW(what, expr)                                                    \
	do {                                                                \
		errno = 0;                                                  \
		long r_ = (long)(expr);                                     \
		printf("%-28s -> %ld errno=%s\n", what, r_, ename(errno));  \
	} while (0)

static void errno_cases(void)
{
	char p[160];
	snprintf(p, sizeof p, "%s/nosuch", dir);
	SHOW("open missing", open(p, O_RDONLY));
	SHOW("openat missing", openat(AT_FDCWD, p, O_RDONLY));
	SHOW("open64 missing", open64(p, O_RDONLY));
	snprintf(p, sizeof p, "%s/made", dir);
	mode_t old = umask(022);
	int fd = open(p, O_CREAT | O_RDWR, 0741);
	struct stat st;
	fstat(fd, &st);
	printf("open O_CREAT mode %o\n", (unsigned)(st.st_mode & 0777));
	close(fd);
	snprintf(p, sizeof p, "%s/made2", dir);
	fd = openat(AT_FDCWD, p, O_CREAT | O_WRONLY, 0604);
	fstat(fd, &st);
	printf("openat O_CREAT mode %o\n", (unsigned)(st.st_mode & 0777));
	close(fd);
	snprintf(p, sizeof p, "%s/made3", dir);
	fd = creat(p, 0777);
	fstat(fd, &st);
	printf("creat mode %o\n", (unsigned)(st.st_mode & 0777));
	SHOW("creat is write-only", fcntl(fd, F_GETFL) & O_ACCMODE);
	close(fd);
	umask(old);
	fd = open(p, O_RDWR);
	SHOW("write 10", write(fd, "0123456789", 10));
	SHOW("fcntl F_GETFL accmode", fcntl(fd, F_GETFL) & O_ACCMODE);
	SHOW("fcntl F_SETFL O_APPEND", fcntl(fd, F_SETFL, O_APPEND));
	SHOW("fcntl F_GETFL append", (fcntl(fd, F_GETFL) & O_APPEND) != 0);
	SHOW("fcntl F_SETFL 0", fcntl(fd, F_SETFL, 0));
	SHOW("fcntl F_SETFD", fcntl(fd, F_SETFD, FD_CLOEXEC));
	SHOW("fcntl F_GETFD", fcntl(fd, F_GETFD));
	int d = fcntl(fd, F_DUPFD, 100);
	printf("fcntl F_DUPFD >= 100: %d\n", d >= 100);
	close(d);
	SHOW("fcntl bad fd", fcntl(-1, F_GETFD));
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 5 };
	SHOW("fcntl F_SETLKW", fcntl(fd, F_SETLKW, &lk));
	struct flock q = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	SHOW("fcntl F_GETLK", fcntl(fd, F_GETLK, &q));
	printf("F_GETLK own lock shows unlocked: %d\n", q.l_type == F_UNLCK);
	lk.l_type = F_UNLCK;
	SHOW("fcntl F_SETLK unlock", fcntl(fd, F_SETLK, &lk));
	SHOW("fcntl F_SETLKW bad fd", fcntl(-1, F_SETLKW, &lk));
	SHOW("fcntl64 F_GETFD", fcntl64(fd, F_GETFD));
	SHOW("lockf F_LOCK", lockf(fd, F_LOCK, 0));
	SHOW("lockf F_TEST", lockf(fd, F_TEST, 0));
	SHOW("lockf F_ULOCK", lockf(fd, F_ULOCK, 0));
	SHOW("lockf bad fd", lockf(-1, F_LOCK, 0));
	SHOW("flock LOCK_EX", flock(fd, LOCK_EX));
	SHOW("flock LOCK_UN", flock(fd, LOCK_UN));
	SHOW("flock bad", flock(-1, LOCK_EX));
	SHOW("fdatasync", fdatasync(fd));
	SHOW("fdatasync bad", fdatasync(-1));
	SHOW("syncfs", syncfs(fd));
	errno = 1234;
	sync();
	printf("sync keeps errno: %d\n", errno == 1234);
	SHOW("ftruncate 4", ftruncate(fd, 4));
	SHOW("truncate 3", truncate(p, 3));
	SHOW("truncate missing", truncate("/nonexistent/x", 3));
	fstat(fd, &st);
	printf("size %ld\n", (long)st.st_size);
	int pfd[2], pfd2[2];
	pipe(pfd);
	pipe(pfd2);
	off_t off = 0;
	SHOW("sendfile to pipe", sendfile(pfd[1], fd, &off, 3));
	SHOW("tee", tee(pfd[0], pfd2[1], 3, 0));
	SHOW("splice to file", splice(pfd[0], NULL, fd, NULL, 3, 0));
	SHOW("splice bad", splice(-1, NULL, fd, NULL, 3, 0));
	loff_t io = 0, oo = 10;
	SHOW("copy_file_range", copy_file_range(fd, &io, fd, &oo, 2, 0));
	close(pfd[0]);
	close(pfd[1]);
	close(pfd2[0]);
	close(pfd2[1]);
	close(fd);
	int status;
	SHOW("wait4 no child", wait4(-1, &status, 0, NULL));
	SHOW("wait3 no child", wait3(&status, WNOHANG, NULL));
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	struct timespec ts = { 0, 20000000 };
	SHOW("sigtimedwait timeout", sigtimedwait(&set, NULL, &ts));
	int msq = msgget(IPC_PRIVATE, 0600);
	struct { long type; char text[8]; } m;
	SHOW("msgrcv IPC_NOWAIT", msgrcv(msq, &m, sizeof m.text, 0, IPC_NOWAIT));
	msgctl(msq, IPC_RMID, NULL);
	SHOW("msgsnd bad id", msgsnd(-1, &m, 1, 0));
	SHOW("semop bad id", semop(-1, NULL, 0));
	SHOW("mq_receive bad", mq_receive((mqd_t)-1, (char *)&m, 8, NULL));
}

/* ---- blocking cases: N tasks blocked, main releases them ---- */

static int semid, msqid;
static mqd_t mq;
static char fifo[128];
static _Atomic int got;

static pthread_barrier_t fifo_bar;

static void *fifo_reader(void *arg)
{
	int fd = open(fifo, O_RDONLY); /* blocks until main opens for writing */
	char c;
	if (fd >= 0 && read(fd, &c, 1) == 1)
		got++;
	/* No reader closes before all have their byte: the writer then never
	 * finds the FIFO without readers (SIGPIPE). */
	pthread_barrier_wait(&fifo_bar);
	close(fd);
	return NULL;
}

static void *flocker(void *arg)
{
	int fd = open(path, O_RDWR);
	if (flock(fd, LOCK_EX) == 0) /* main holds it */
		got++;
	flock(fd, LOCK_UN);
	close(fd);
	return NULL;
}

static void *sem_waiter(void *arg)
{
	struct sembuf op = { 0, -1, 0 };
	if (semop(semid, &op, 1) == 0)
		got++;
	return NULL;
}

static void *msg_waiter(void *arg)
{
	struct { long type; char text[4]; } m;
	if (msgrcv(msqid, &m, sizeof m.text, 0, 0) == 1)
		got++;
	return NULL;
}

static void *mq_waiter(void *arg)
{
	char buf[64];
	if (mq_receive(mq, buf, sizeof buf, NULL) == 1)
		got++;
	return NULL;
}

static void run(const char *name, void *(*fn)(void *), void (*release)(void))
{
	pthread_t t[N];
	got = 0;
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, fn, NULL);
	usleep(30000); /* let them block (the result does not depend on it) */
	release();
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	printf("%s: %d of %d returned\n", name, (int)got, N);
}

static int main_lock_fd, fifo_wfd;

static void release_fifo(void)
{
	/* The write end stays open until every reader returned: a reader
	 * whose open comes late still finds a writer and its byte. */
	fifo_wfd = open(fifo, O_WRONLY);
	for (int i = 0; i < N; i++)
		write(fifo_wfd, "x", 1);
}

static void release_flock(void)
{
	flock(main_lock_fd, LOCK_UN);
}

static void release_sem(void)
{
	struct sembuf op = { 0, N, 0 };
	semop(semid, &op, 1);
}

static void release_msg(void)
{
	struct { long type; char text[4]; } m = { 1, "a" };
	for (int i = 0; i < N; i++)
		msgsnd(msqid, &m, 1, 0);
}

static void release_mq(void)
{
	for (int i = 0; i < N; i++)
		mq_send(mq, "b", 1, 0);
}

int main(void)
{
	weft_check_loaded();
	snprintf(dir, sizeof dir, "/tmp/weft-fallback-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	errno_cases();

	/* FIFO: with N readers and one writer, the readers' opens may return
	 * in any order; the writer's open returns once any reader is there. */
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	mkfifo(fifo, 0600);
	pthread_barrier_init(&fifo_bar, NULL, N);
	run("fifo open", fifo_reader, release_fifo);
	close(fifo_wfd);

	snprintf(path, sizeof path, "%s/lock", dir);
	main_lock_fd = open(path, O_CREAT | O_RDWR, 0600);
	flock(main_lock_fd, LOCK_EX);
	run("flock", flocker, release_flock);

	semid = semget(IPC_PRIVATE, 1, 0600);
	run("semop", sem_waiter, release_sem);
	semctl(semid, 0, IPC_RMID);

	msqid = msgget(IPC_PRIVATE, 0600);
	run("msgrcv", msg_waiter, release_msg);
	msgctl(msqid, IPC_RMID, NULL);

	char qname[64];
	snprintf(qname, sizeof qname, "/weft-fallback-%d", (int)getpid());
	struct mq_attr qa = { .mq_maxmsg = 8, .mq_msgsize = 64 };
	mq = mq_open(qname, O_CREAT | O_RDWR, 0600, &qa);
	if (mq == (mqd_t)-1)
		printf("mq_open failed\n");
	else
		run("mq_receive", mq_waiter, release_mq);
	mq_close(mq);
	mq_unlink(qname);

	char cmd[160];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd);
}
