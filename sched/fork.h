/* fork.h — the runtime across fork (fork.c). */
#ifndef WEFT_FORK_H
#define WEFT_FORK_H
#include <stdbool.h>

void wt_fork_init(void);                   /* start: register the atfork handlers */
void wt_fork_child_tls(void);              /* in fork's wrapper, child, after libc's fork */
void wt_fork_child_nohandlers(void);       /* after _Fork, in the child */
void wt_fork_window(bool in);              /* forking task: holding glibc's fork locks or not */

#endif
