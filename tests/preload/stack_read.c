/* read, pread, readv and recv into a local array the thread has not
 * touched yet, 2 MiB down a thread's stack: the kernel fills the array
 * (the stack is 8 MiB, RLIMIT_STACK: every page of it is the thread's, and
 * the kernel faults untouched ones in), as natively.  Under weft that depth
 * is where a growing stack's first guard lies (sched/stack/stack.c); its
 * wrappers move the guard before the kernel writes. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include "weft_check.h"

#define BUF (128 << 10)
#define LEN (100 << 10)
static int file = -1, dg[2];
static char data[LEN];

enum { READ, PREAD, READV, RECV, NCALLS };
static const char *names[] = { "read", "pread", "readv", "recv" };

struct job { int call; char *top; long got; int err, same; };

__attribute__((noinline)) static void fill(struct job *j)
{
	char buf[BUF]; /* untouched before the call */
	long r = -1;
	switch (j->call) {
	case READ:
		r = lseek(file, 0, SEEK_SET) == 0 ? read(file, buf, LEN) : -1;
		break;
	case PREAD:
		r = pread(file, buf, LEN, 0);
		break;
	case READV: {
		struct iovec v[2] = { { buf, LEN / 2 }, { buf + LEN / 2, LEN / 2 } };
		r = lseek(file, 0, SEEK_SET) == 0 ? readv(file, v, 2) : -1;
		break;
	}
	case RECV:
		r = send(dg[0], data, LEN, 0) == LEN ? recv(dg[1], buf, LEN, 0) : -1;
		break;
	}
	j->got = r;
	j->err = r < 0 ? errno : 0;
	j->same = r == LEN && memcmp(buf, data, LEN) == 0;
}

/* Down to 2 MiB - 64 KiB under the thread's first frame, then the array
 * lies across the 2 MiB line. */
__attribute__((noinline)) static void down(struct job *j)
{
	volatile char pad[1024];
	pad[0] = 1;
	if (j->top - (char *)pad < (2l << 20) - (68 << 10))
		down(j);
	else
		fill(j);
	pad[1] = pad[0];
}

static void *run(void *arg)
{
	struct job *j = arg;
	char here;
	j->top = &here;
	down(j);
	return NULL;
}

int main(void)
{
	weft_check_loaded();
	for (int i = 0; i < LEN; i++)
		data[i] = (char)(i * 7 + i / 4096);
	char path[] = "/tmp/weft-stack-read-XXXXXX";
	file = mkstemp(path);
	if (file < 0 || write(file, data, LEN) != LEN)
		return 1;
	unlink(path);
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, dg))
		return 1;
	int bad = 0;
	for (int c = 0; c < NCALLS; c++) {
		struct job j = { .call = c };
		pthread_t th;
		pthread_create(&th, NULL, run, &j);
		pthread_join(th, NULL);
		printf("%s into an untouched stack array: %ld bytes%s%s, data %s\n", names[c],
		       j.got, j.err ? ", " : "", j.err ? strerror(j.err) : "",
		       j.same ? "right" : "wrong");
		bad |= !j.same;
	}
	return bad;
}
