/*
 * real.h — the libc originals of the names weft interposes, resolved once
 * with dlsym(RTLD_NEXT) (real.c).  Runtime code calls real.* and never
 * an exported interposed name.
 */
#ifndef WEFT_REAL_H
#define WEFT_REAL_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>

struct wt_real {
	int (*pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	int (*pthread_join)(pthread_t, void **);
	int (*pthread_detach)(pthread_t);
	int (*pthread_attr_init)(pthread_attr_t *);
	int (*pthread_attr_destroy)(pthread_attr_t *);
	int (*pthread_attr_setdetachstate)(pthread_attr_t *, int);
	int (*pthread_attr_setstacksize)(pthread_attr_t *, size_t);
	int (*pthread_attr_setstack)(pthread_attr_t *, void *, size_t);
	int (*pthread_getattr_np)(pthread_t, pthread_attr_t *);
	int (*pthread_sigmask)(int, const sigset_t *, sigset_t *);
	int (*sigaction)(int, const struct sigaction *, struct sigaction *);
	int (*pthread_kill)(pthread_t, int);
	int (*pthread_setname_np)(pthread_t, const char *);
	int (*pthread_getname_np)(pthread_t, char *, size_t);
	int (*pthread_mutex_lock)(pthread_mutex_t *);
	int (*pthread_mutex_trylock)(pthread_mutex_t *);
	int (*pthread_mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
	int (*pthread_mutex_clocklock)(pthread_mutex_t *, clockid_t, const struct timespec *);
	int (*pthread_mutex_unlock)(pthread_mutex_t *);
	int (*pthread_mutex_init)(pthread_mutex_t *, const pthread_mutexattr_t *);
	int (*pthread_mutex_destroy)(pthread_mutex_t *);
	int (*pthread_mutex_consistent)(pthread_mutex_t *);
	int (*pthread_cond_wait)(pthread_cond_t *, pthread_mutex_t *);
	int (*pthread_cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
	int (*pthread_cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t,
				      const struct timespec *);
	int (*pthread_cond_signal)(pthread_cond_t *);
	int (*pthread_cond_broadcast)(pthread_cond_t *);
	int (*pthread_cond_init)(pthread_cond_t *, const pthread_condattr_t *);
	int (*pthread_cond_destroy)(pthread_cond_t *);
	void (*exit)(int);
	void (*pthread_exit)(void *);
	int (*libc_start_main)(int (*)(int, char **, char **), int, char **, void (*)(void),
			       void (*)(void), void (*)(void), void *);
};
extern struct wt_real real;
void wt_real_init(void);

#endif
