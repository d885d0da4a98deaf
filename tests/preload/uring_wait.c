/* A thread waits for io_uring completions through liburing (its own
 * system calls, not libc's), as MariaDB's asynchronous I/O thread does,
 * while other threads must go on: here the one that writes what the read
 * waits for, and one that sleeps.  Each wait way liburing has:
 * io_uring_wait_cqe, io_uring_wait_cqe_timeout (timing out first, then
 * completing), io_uring_submit_and_wait and io_uring_enter.  Printed lines
 * are the same natively and under weft (which once let a proc sit in the
 * wait: with GOMAXPROCS=1 the writer never ran). */
#define _GNU_SOURCE
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"

static int pfd[2];
static char buf[64];

static void *writer(void *arg)
{
	const char *msg = arg;
	struct timespec ts = { 0, 20000000 }; /* after the reader is waiting */
	nanosleep(&ts, NULL);
	if (write(pfd[1], msg, strlen(msg)) < 0)
		perror("write");
	return NULL;
}

static void prep_read(struct io_uring *ring)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	memset(buf, 0, sizeof buf);
	io_uring_prep_read(sqe, pfd[0], buf, sizeof buf - 1, 0);
}

static void report(const char *how, int r, struct io_uring_cqe *cqe, struct io_uring *ring)
{
	if (r < 0) {
		printf("%s: %s\n", how, strerror(-r));
		return;
	}
	printf("%s: read %d bytes: %s\n", how, cqe->res, buf);
	io_uring_cqe_seen(ring, cqe);
}

int main(void)
{
	weft_check_loaded();
	struct io_uring ring;
	int r = io_uring_queue_init(4, &ring, 0);
	if (r < 0) {
		printf("io_uring_queue_init: %s\n", strerror(-r));
		return 1;
	}
	if (pipe(pfd) != 0)
		return 1;
	struct io_uring_cqe *cqe;
	pthread_t w;

	prep_read(&ring);
	io_uring_submit(&ring);
	pthread_create(&w, NULL, writer, "wait_cqe");
	r = io_uring_wait_cqe(&ring, &cqe);
	report("io_uring_wait_cqe", r, cqe, &ring);
	pthread_join(w, NULL);

	prep_read(&ring);
	io_uring_submit(&ring);
	struct __kernel_timespec to = { 0, 5000000 };
	r = io_uring_wait_cqe_timeout(&ring, &cqe, &to); /* nothing written yet */
	printf("io_uring_wait_cqe_timeout, nothing to read: %s\n", r == -ETIME ? "ETIME" : strerror(-r));
	pthread_create(&w, NULL, writer, "wait_cqe_timeout");
	struct __kernel_timespec longer = { 5, 0 };
	r = io_uring_wait_cqe_timeout(&ring, &cqe, &longer);
	report("io_uring_wait_cqe_timeout", r, cqe, &ring);
	pthread_join(w, NULL);

	prep_read(&ring);
	pthread_create(&w, NULL, writer, "submit_and_wait");
	r = io_uring_submit_and_wait(&ring, 1);
	if (r >= 0)
		r = io_uring_peek_cqe(&ring, &cqe);
	report("io_uring_submit_and_wait", r, cqe, &ring);
	pthread_join(w, NULL);

	prep_read(&ring);
	io_uring_submit(&ring);
	pthread_create(&w, NULL, writer, "enter");
	r = io_uring_enter(ring.ring_fd, 0, 1, IORING_ENTER_GETEVENTS, NULL);
	if (r >= 0)
		r = io_uring_peek_cqe(&ring, &cqe);
	report("io_uring_enter", r, cqe, &ring);
	pthread_join(w, NULL);

	io_uring_queue_exit(&ring);
	return 0;
}
