/* fork.h — the runtime across fork (fork.c). */
#ifndef WEFT_FORK_H
#define WEFT_FORK_H

void wt_fork_init(void);                   /* start: register the atfork handlers */
void wt_fork_child_tls(void);              /* in fork's wrapper, child, after libc's fork */
void wt_fork_child_nohandlers(void);       /* after _Fork, in the child */

#endif
