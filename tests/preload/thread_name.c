/*
 * Thread names (pthread_setname_np(3), prctl(2) PR_SET_NAME/PR_GET_NAME):
 * a name is the thread's own, at most 15 bytes (a longer one: ERANGE from
 * pthread_setname_np, cut to 15 by prctl); pthread_getname_np needs a
 * buffer of 16 bytes whatever the name's length (ERANGE); a new thread
 * starts with its creator's name; naming one thread renames no other.
 * Under weft a new thread started with the program's name, a 15-byte
 * buffer was accepted for a short name, and prctl renamed the OS thread
 * the task ran on, whichever tasks shared it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include "weft_check.h"

static const char *en(int e) { return e ? strerrorname_np(e) : "0"; }

static void show(const char *who, pthread_t th)
{
	char buf[16];
	int e = pthread_getname_np(th, buf, sizeof buf);
	printf("%s: %s \"%s\"\n", who, en(e), e ? "" : buf);
}

static void show_self(const char *who)
{
	char buf[16] = "";
	prctl(PR_GET_NAME, buf);
	printf("%s (prctl): \"%s\"\n", who, buf);
}

static sem_t named, done[2];

static void *child(void *arg)
{
	int i = (int)(long)arg;
	show(i ? "second thread, at start" : "first thread, at start", pthread_self());
	if (i == 0) {
		pthread_setname_np(pthread_self(), "worker-one");
	} else {
		/* Cut to 15 bytes. */
		prctl(PR_SET_NAME, "worker-two-with-a-long-name");
	}
	sem_post(&named);
	sem_wait(&done[i]);
	show(i ? "second thread, at the end" : "first thread, at the end", pthread_self());
	show_self(i ? "second thread, at the end" : "first thread, at the end");
	return NULL;
}

int main(int argc, char **argv)
{
	weft_check_loaded();
	(void)argc;
	(void)argv;
	sem_init(&named, 0, 0);
	sem_init(&done[0], 0, 0);
	sem_init(&done[1], 0, 0);
	show("main, at start", pthread_self());
	show_self("main, at start");
	printf("setname 16 bytes: %s\n", en(pthread_setname_np(pthread_self(), "0123456789abcdef")));
	printf("setname 15 bytes: %s\n", en(pthread_setname_np(pthread_self(), "0123456789abcde")));
	show("main", pthread_self());
	char small[15];
	printf("getname into 15 bytes: %s\n", en(pthread_getname_np(pthread_self(), small, 15)));
	pthread_setname_np(pthread_self(), "main-x");
	printf("getname into 15 bytes, short name: %s\n",
	       en(pthread_getname_np(pthread_self(), small, 15)));
	pthread_t t[2];
	for (long i = 0; i < 2; i++) {
		pthread_create(&t[i], NULL, child, (void *)i);
		sem_wait(&named);
	}
	show("main, after the threads named themselves", pthread_self());
	show_self("main, after the threads named themselves");
	show("first thread, seen by main", t[0]);
	show("second thread, seen by main", t[1]);
	printf("main renames the second: %s\n", en(pthread_setname_np(t[1], "renamed")));
	printf("too long for the second: %s\n",
	       en(pthread_setname_np(t[1], "0123456789abcdefg")));
	for (int i = 0; i < 2; i++) {
		sem_post(&done[i]);
		pthread_join(t[i], NULL);
	}
	show("main, at the end", pthread_self());
	return 0;
}
