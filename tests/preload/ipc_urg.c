/*
 * ipc_urg — System V IPC waits, which the kernel never restarts after a
 * handler (signal(7)), are not ended by SIGURGs the program never sees.
 *
 * A thread waits in semop, semtimedop (5 s), msgrcv and msgsnd (on a full
 * queue) in turn.  Meanwhile another process queues SIGURG to every
 * thread of this one, 20 times, with the si_value of `weft stack`'s
 * request (naming a descriptor that does not exist, so no dump is
 * written): under weft that signal is weft's own, taken by weft's
 * handler on whatever thread runs the wait; natively SIGURG is ignored.
 * Then the helper ends the wait (a semaphore post, a message, a message
 * read).  Each wait must end as it does natively: with success, not
 * EINTR.  A program handler (SIGUSR1, SA_RESTART) sent to the waiting
 * thread afterwards must still end a semop with EINTR, as natively.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "weft_check.h"

#define STACK_MAGIC 0x77656674ull /* weft stack's si_value tag */
#define MSGSZ 64

struct msg {
	long type;
	char text[MSGSZ];
};

static int sem, mq;
static pid_t me;

static void ms_sleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* In a child process: queues weft's SIGURG to every thread of pid, rounds
 * times, 10 ms apart. */
static void storm(pid_t pid, int rounds)
{
	char dir[64];
	snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
	for (int i = 0; i < rounds; i++) {
		DIR *d = opendir(dir);
		if (!d)
			return;
		struct dirent *e;
		while ((e = readdir(d))) {
			int tid = atoi(e->d_name);
			if (tid <= 0)
				continue;
			siginfo_t si;
			memset(&si, 0, sizeof si);
			si.si_signo = SIGURG;
			si.si_code = SI_QUEUE;
			si.si_pid = getpid();
			si.si_uid = getuid();
			si.si_value.sival_ptr = (void *)(uintptr_t)(STACK_MAGIC << 32 | 0x7ffffff0u);
			syscall(SYS_rt_tgsigqueueinfo, pid, tid, SIGURG, &si);
		}
		closedir(d);
		ms_sleep(10);
	}
}

/* Forks a helper that storms this process, then runs end() on its side. */
static pid_t helper(void (*end)(void))
{
	pid_t c = fork();
	if (c == 0) {
		ms_sleep(50); /* the waiter is in its call */
		storm(me, 20);
		end();
		_exit(0);
	}
	return c;
}

static void sem_up(void)
{
	struct sembuf op = { 0, 1, 0 };
	semop(sem, &op, 1);
}

static void msg_put(void)
{
	struct msg m = { 1, "hello" };
	msgsnd(mq, &m, MSGSZ, 0);
}

static void msg_take(void)
{
	struct msg m;
	msgrcv(mq, &m, MSGSZ, 0, 0);
}

static void report(const char *what, int r, int err)
{
	printf("%s: %s\n", what, r >= 0 ? "ok" : err == EINTR ? "EINTR" : strerror(err));
}

static void on_usr1(int s)
{
	(void)s;
}

static volatile int in_semop;

static void *waiter(void *arg)
{
	(void)arg;
	int r;
	pid_t h;

	h = helper(sem_up);
	struct sembuf down = { 0, -1, 0 };
	r = semop(sem, &down, 1);
	report("semop", r, errno);
	waitpid(h, NULL, 0);

	h = helper(sem_up);
	struct timespec ts = { 5, 0 };
	r = semtimedop(sem, &down, 1, &ts);
	report("semtimedop", r, errno);
	waitpid(h, NULL, 0);

	h = helper(msg_put);
	struct msg m;
	r = (int)msgrcv(mq, &m, MSGSZ, 0, 0);
	report("msgrcv", r, errno);
	waitpid(h, NULL, 0);

	/* Fill the queue until a send would block, then block in one. */
	struct msqid_ds ds;
	msgctl(mq, IPC_STAT, &ds);
	ds.msg_qbytes = 4 * MSGSZ;
	msgctl(mq, IPC_SET, &ds);
	struct msg fill = { 1, "x" };
	while (msgsnd(mq, &fill, MSGSZ, IPC_NOWAIT) == 0)
		;
	h = helper(msg_take);
	r = msgsnd(mq, &fill, MSGSZ, 0);
	report("msgsnd", r, errno);
	waitpid(h, NULL, 0);

	/* A program handler still ends a semop, SA_RESTART or not. */
	in_semop = 1;
	r = semop(sem, &down, 1);
	report("semop with the program's handler", r, errno);
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	me = getpid();
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	sem = semget(IPC_PRIVATE, 1, 0600);
	mq = msgget(IPC_PRIVATE, 0600);
	if (sem < 0 || mq < 0) {
		perror("ipc_urg: semget/msgget");
		return 1;
	}
	pthread_t w;
	pthread_create(&w, NULL, waiter, NULL);
	while (!in_semop)
		ms_sleep(5);
	ms_sleep(100); /* in its semop */
	pthread_kill(w, SIGUSR1);
	pthread_join(w, NULL);
	semctl(sem, 0, IPC_RMID);
	msgctl(mq, IPC_RMID, NULL);
	return 0;
}
