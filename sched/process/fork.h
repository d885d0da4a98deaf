/* fork.h — the runtime across fork (fork.c). */
#ifndef WEFT_FORK_H
#define WEFT_FORK_H
#include <stdbool.h>

void wt_fork_init(void);                   /* start: register the atfork handlers */
/* __register_atfork for the program: weft's handlers registered first. */
int wt_fork_register(void (*prepare)(void), void (*parent)(void), void (*child)(void), void *dso);
void wt_fork_child_tls(void);              /* in fork's wrapper, child, after libc's fork */
void wt_fork_child_nohandlers(void);       /* after _Fork, in the child */
void wt_fork_window(bool in);              /* forking task: holding glibc's fork locks or not */

#endif
