/* Which waiter a release wakes across processes, on one CPU (the program
 * pins itself; its children inherit the mask): main at SCHED_FIFO 1 holds
 * a process-shared mutex (then a process-shared semaphore at 0, then a
 * process-shared condition variable's predicate); three
 * forked children raise themselves to SCHED_FIFO 5, 10 and 20 and block
 * on it in that order (main waits until the kernel shows each child's
 * thread asleep on the object's futex word).  One release by main wakes
 * the highest priority first (the kernel's futex queue is ordered by the
 * sleeping threads' priorities), and each child passes it on.
 * Needs root (CI runs as root). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "prio_util.h"
#include "pshared_util.h"
#include "weft_check.h"

struct shared {
	pthread_mutex_t m;
	sem_t s;
	pthread_cond_t c;
	int go;
	_Atomic int noted;
	char log[256];
};
static struct shared *sh;

/* Some thread of pid sleeps in futex(2) on a word in [addr, addr + len):
 * /proc's syscall file names the call and its first argument. */
static int asleep_on(pid_t pid, const void *addr, size_t len)
{
	char path[320], buf[256];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	int found = 0;
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/%d/task/%s/syscall", (int)pid, e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		long nr;
		unsigned long a0;
		if (fgets(buf, sizeof buf, f) && sscanf(buf, "%ld %lx", &nr, &a0) == 2 &&
		    nr == SYS_futex && a0 - (unsigned long)(uintptr_t)addr < len)
			found = 1;
		fclose(f);
	}
	closedir(d);
	return found;
}

static void note(const char *name)
{
	strcat(sh->log, name);
	strcat(sh->log, " ");
	atomic_fetch_add(&sh->noted, 1);
}

static void child_mutex(const char *name)
{
	pthread_mutex_lock(&sh->m);
	note(name);
	pthread_mutex_unlock(&sh->m);
}

static void child_sem(const char *name)
{
	sem_wait(&sh->s);
	note(name);
	sem_post(&sh->s);
}

static void child_cond(const char *name)
{
	pthread_mutex_lock(&sh->m);
	while (!sh->go)
		pthread_cond_wait(&sh->c, &sh->m);
	sh->go--;
	note(name);
	pthread_mutex_unlock(&sh->m);
}

static void run(const char *what, void (*fn)(const char *), const void *word, size_t len,
		void (*release)(void))
{
	static const int prio[3] = { 5, 10, 20 };
	static const char *name[3] = { "F5", "F10", "F20" };
	pid_t pid[3];
	sh->log[0] = 0;
	atomic_store(&sh->noted, 0);
	for (int i = 0; i < 3; i++) {
		fflush(stdout);
		pid[i] = fork();
		if (pid[i] < 0) {
			perror("fork");
			exit(2);
		}
		if (pid[i] == 0) {
			struct sched_param sp = { prio[i] };
			if (sched_setscheduler(0, SCHED_FIFO, &sp))
				_exit(3);
			fn(name[i]);
			_exit(0);
		}
		while (!asleep_on(pid[i], word, len))
			usleep(1000);
	}
	release();
	int bad = 0;
	for (int i = 0; i < 3; i++)
		bad |= reap(pid[i]);
	printf("%s: %s(exits %d)\n", what, sh->log, bad);
}

static void release_mutex(void) { pthread_mutex_unlock(&sh->m); }
static void release_sem(void) { sem_post(&sh->s); }

/* One signal at a time, each once the last woken child has noted itself
 * (natively it runs at once, above main). */
static void release_cond(void)
{
	for (int i = 0; i < 3; i++) {
		pthread_mutex_lock(&sh->m);
		sh->go++;
		pthread_cond_signal(&sh->c);
		pthread_mutex_unlock(&sh->m);
		while (atomic_load(&sh->noted) < i + 1)
			usleep(1000);
	}
}

int main(void)
{
	weft_check_loaded();
	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(60);
	cpu_set_t all;
	printf("pin: %s\n", E(pin_first_cpu(&all) ? errno : 0));
	struct sched_param sp = { 1 };
	printf("main FIFO 1: %s\n", E(pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)));

	sh = shared_page(sizeof *sh);
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&sh->m, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_mutex_lock(&sh->m);
	run("shared mutex", child_mutex, &sh->m.__data.__lock, 4, release_mutex);

	sem_init(&sh->s, 1, 0);
	run("shared sem_post", child_sem, &sh->s, 4, release_sem);

	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_cond_init(&sh->c, &ca);
	pthread_condattr_destroy(&ca);
	run("shared cond_signal", child_cond, &sh->c, sizeof sh->c, release_cond);

	main_other(&all);
	return 0;
}
