/*
 * lowlock.h — glibc's internal locks park tasks (lowlock.c).
 */
#ifndef WEFT_LOWLOCK_H
#define WEFT_LOWLOCK_H

#include "base/base.h"

void wt_lowlock_init(void);       /* start, on the initial thread, before any other */
void wt_lowlock_fork_child(void); /* fork child: no thread waits in the kernel */

#endif
