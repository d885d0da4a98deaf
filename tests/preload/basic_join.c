#include <stdio.h>
#include <pthread.h>
#include <errno.h>
#include <unistd.h>
#include "weft_check.h"
__thread int tv = 5;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER; pthread_cond_t c = PTHREAD_COND_INITIALIZER;
int cnt = 0;
void *f(void *a) { long i = (long)a; tv += i; errno = i; pthread_mutex_lock(&m); cnt++; pthread_cond_signal(&c); pthread_mutex_unlock(&m); usleep(1000); return (void*)(i*2); }
int main() { weft_check_loaded();
  pthread_t t[4]; for (long i=0;i<4;i++) pthread_create(&t[i],0,f,(void*)i);
  pthread_mutex_lock(&m); while (cnt<4) pthread_cond_wait(&c,&m); pthread_mutex_unlock(&m);
  for (int i=0;i<4;i++){ void *r; pthread_join(t[i],&r); printf("joined %d -> %ld\n", i, (long)r);} 
  printf("main tv=%d\n", tv); return 3; }
