/*
 * pingpong.h — two threads passing a token over one condvar as fast as they
 * can (pingpong_fair, signal_sem): start pingpong_player((void *)0L) and
 * pingpong_player((void *)1L), end them with pingpong_stop() and join.
 */
#ifndef WEFT_PINGPONG_H
#define WEFT_PINGPONG_H
#include <pthread.h>

static pthread_mutex_t pp_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pp_cv = PTHREAD_COND_INITIALIZER;
static int pp_turn, pp_stop;
static long pp_handoffs; /* [pp_mu] */

static void *pingpong_player(void *arg)
{
	int me = (int)(long)arg;
	for (;;) {
		pthread_mutex_lock(&pp_mu);
		while (pp_turn != me && !pp_stop)
			pthread_cond_wait(&pp_cv, &pp_mu);
		if (pp_stop) {
			pthread_mutex_unlock(&pp_mu);
			return NULL;
		}
		pp_turn = !me;
		pp_handoffs++;
		pthread_cond_broadcast(&pp_cv);
		pthread_mutex_unlock(&pp_mu);
	}
}

static void pingpong_stop(void)
{
	pthread_mutex_lock(&pp_mu);
	__atomic_store_n(&pp_stop, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&pp_cv);
	pthread_mutex_unlock(&pp_mu);
}
#endif
