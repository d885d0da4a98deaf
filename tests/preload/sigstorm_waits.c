/*
 * Signal storms (sigstorm.h) on threads that wait: sem_wait and
 * sem_timedwait, nanosleep, clock_nanosleep (relative and absolute),
 * usleep, read and write on a pipe, poll.  A handler interrupts these
 * calls with EINTR (sem_wait, nanosleep and poll even under SA_RESTART, as
 * Linux does), and a read or write may return early with part of the
 * bytes; the bodies retry as a program must, and the counts must come out
 * whole: no post lost, no sleep ended before its time, no byte lost or
 * doubled.
 */
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include "sigstorm.h"

#define NT 4
#define FAR 60000 /* ms: a timed wait's deadline that is never met */

static atomic_long bad; /* an outcome that must not happen: printed */

/* Even victims post, odd ones take the same number: sem_wait, or
 * sem_timedwait with a deadline never met.  EINTR: wait again. */
static sem_t sem;
#define POSTS 4000

static long sem_body(int idx)
{
	long took = 0;
	for (int i = 0; i < POSTS; i++) {
		if (idx % 2 == 0) {
			sem_post(&sem);
			if (i % 16 == 0)
				sched_yield();
			continue;
		}
		int r;
		if (i % 2) {
			struct timespec ts = storm_deadline(FAR);
			while ((r = sem_timedwait(&sem, &ts)) != 0 && errno == EINTR)
				;
		} else {
			while ((r = sem_wait(&sem)) != 0 && errno == EINTR)
				;
		}
		if (r != 0)
			atomic_fetch_add(&bad, 1);
		else
			took++;
	}
	return took;
}

static void sem_reset(void)
{
	static int made;
	if (made)
		sem_destroy(&sem);
	sem_init(&sem, 0, 0);
	made = 1;
}

/* Sleeps of 30 µs: nanosleep resumed with the time it left, absolute
 * clock_nanosleep to the same deadline, usleep (EINTR: its own again).
 * The clock afterwards is never before the deadline. */
static long sleep_body(int idx)
{
	long done = 0;
	for (int i = 0; i < 150; i++) {
		struct timespec start, end, req = { 0, 30000 }, rem;
		clock_gettime(CLOCK_MONOTONIC, &start);
		struct timespec dl = start;
		dl.tv_nsec += 30000;
		if (dl.tv_nsec >= 1000000000) {
			dl.tv_sec++;
			dl.tv_nsec -= 1000000000;
		}
		int r;
		switch ((i + idx) % 4) {
		case 0:
			while ((r = nanosleep(&req, &rem)) != 0 && errno == EINTR)
				req = rem;
			break;
		case 1:
			while ((r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &dl, NULL)) == EINTR)
				;
			break;
		case 2:
			while ((r = clock_nanosleep(CLOCK_MONOTONIC, 0, &req, &rem)) == EINTR)
				req = rem;
			break;
		default:
			/* usleep gives no time left: sleep again to the deadline. */
			for (;;) {
				r = usleep(30);
				clock_gettime(CLOCK_MONOTONIC, &end);
				if (r == 0 || errno != EINTR || end.tv_sec > dl.tv_sec ||
				    (end.tv_sec == dl.tv_sec && end.tv_nsec >= dl.tv_nsec)) {
					r = 0;
					break;
				}
			}
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &end);
		if (r != 0 || end.tv_sec < dl.tv_sec || (end.tv_sec == dl.tv_sec && end.tv_nsec < dl.tv_nsec))
			atomic_fetch_add(&bad, 1);
		else
			done++;
		if (i % 50 == 0)
			sleep(0);
	}
	return done;
}

/* Pairs over pipes: victim 2k writes BYTES in chunks of 1 to 4000 bytes,
 * victim 2k+1 reads them, half the pairs after poll(-1).  Every byte
 * arrives, in order. */
#define BYTES (1 << 19)
static int pfd[NT / 2][2];

static long pipe_body(int idx)
{
	int *fd = pfd[idx / 2];
	unsigned char buf[4096];
	long moved = 0;
	unsigned seed = 12345u + (unsigned)idx / 2;
	if (idx % 2 == 0) {
		long pos = 0;
		while (pos < BYTES) {
			seed = seed * 1103515245u + 12345u;
			size_t n = 1 + (seed >> 8) % 4000;
			if (n > (size_t)(BYTES - pos))
				n = (size_t)(BYTES - pos);
			for (size_t j = 0; j < n; j++)
				buf[j] = (unsigned char)((pos + (long)j) * 7 + 3);
			size_t off = 0;
			while (off < n) {
				ssize_t w = write(fd[1], buf + off, n - off);
				if (w < 0 && errno == EINTR)
					continue;
				if (w <= 0) {
					atomic_fetch_add(&bad, 1);
					return moved;
				}
				off += (size_t)w;
			}
			pos += (long)n;
			moved += (long)n;
		}
		close(fd[1]);
		return moved;
	}
	for (;;) {
		if (idx % 4 == 3) {
			struct pollfd p = { fd[0], POLLIN, 0 };
			int r = poll(&p, 1, -1);
			if (r < 0 && errno == EINTR)
				continue;
			if (r != 1)
				atomic_fetch_add(&bad, 1);
		}
		ssize_t n = read(fd[0], buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			atomic_fetch_add(&bad, 1);
			break;
		}
		if (n == 0)
			break;
		for (ssize_t j = 0; j < n; j++)
			if (buf[j] != (unsigned char)((moved + j) * 7 + 3)) {
				atomic_fetch_add(&bad, 1);
				break;
			}
		moved += n;
	}
	close(fd[0]);
	return moved;
}

static void pipe_reset(void)
{
	for (int i = 0; i < NT / 2; i++)
		if (pipe(pfd[i]) != 0)
			atomic_fetch_add(&bad, 1);
}

int main(void)
{
	storm_init();
	storm("sem_wait/sem_timedwait, posts taken", sem_body, NT, sem_reset);
	storm("nanosleep/clock_nanosleep/usleep, sleeps to their end", sleep_body, NT, NULL);
	storm("pipe write/read/poll, bytes moved", pipe_body, NT, pipe_reset);
	printf("errors, early wake-ups or wrong bytes: %ld\n", atomic_load(&bad));
	return 0;
}
