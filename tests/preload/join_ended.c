/* pthread_join, pthread_tryjoin_np, pthread_timedjoin_np, pthread_detach,
 * pthread_kill and pthread_cancel on threads that have ended: exited and
 * not yet joined, joined, detached after they exited, created detached.
 * glibc 2.36 keeps an ended thread's descriptor in its stack cache and
 * answers from it: a joined thread (its tid set to -1) gives ESRCH to join,
 * timedjoin and detach and EBUSY to tryjoin; a detached one (joinid set)
 * gives EINVAL to join and detach; pthread_kill sends nothing to a thread
 * that has exited and returns 0; pthread_cancel returns 0.  glibc 2.43
 * keeps one state word that says "exited" for both: join, tryjoin,
 * timedjoin and detach all return 0 there.  (POSIX leaves
 * the use of a joined or detached thread's ID undefined; this is what
 * glibc deterministically does while no new thread reuses the
 * descriptor, which no thread is created here to do.)  A second join used
 * to hang. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "weft_check.h"

static void *ret_arg(void *a) { return a; }

static const char *name(int e)
{
	switch (e) {
	case 0: return "0";
	case ESRCH: return "ESRCH";
	case EINVAL: return "EINVAL";
	case EBUSY: return "EBUSY";
	default: return strerror(e);
	}
}

#define SAY(what, call) printf("%-40s %s\n", what, name(call))

/* Time for a thread that returns at once to have exited (the answers
 * below are the same before it has). */
static void settle(void) { usleep(50000); }

int main(void)
{
	weft_check_loaded();
	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(30); /* a hanging join fails the test instead of the run */
	pthread_t t;
	void *r = NULL;
	struct timespec past = { 0, 0 };

	/* Exited, joinable, then joined. */
	pthread_create(&t, NULL, ret_arg, (void *)7);
	settle();
	SAY("kill(0) exited, not joined", pthread_kill(t, 0));
	SAY("kill(SIGUSR1) exited, not joined", pthread_kill(t, SIGUSR1));
	SAY("cancel exited, not joined", pthread_cancel(t));
	SAY("join", pthread_join(t, &r));
	printf("%-40s %ld\n", "its value", (long)r);
	SAY("kill(0) after join", pthread_kill(t, 0));
	SAY("cancel after join", pthread_cancel(t));
	SAY("tryjoin after join", pthread_tryjoin_np(t, &r));
	SAY("timedjoin after join", pthread_timedjoin_np(t, &r, &past));
	SAY("join after join", pthread_join(t, &r));
	SAY("detach after join", pthread_detach(t));

	/* Exited, then detached (which frees it). */
	pthread_create(&t, NULL, ret_arg, NULL);
	settle();
	SAY("detach exited", pthread_detach(t));
	SAY("kill(0) after detach", pthread_kill(t, 0));
	SAY("detach after detach", pthread_detach(t));
	SAY("join after detach", pthread_join(t, &r));

	/* Created detached, exited. */
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_create(&t, &a, ret_arg, NULL);
	settle();
	SAY("kill(0) detached, exited", pthread_kill(t, 0));
	SAY("join detached, exited", pthread_join(t, &r));
	SAY("detach detached, exited", pthread_detach(t));
	return 0;
}
