/*
 * tls_static.h — how much static TLS a task keeps, and keeping live tasks
 * right when dlopen adds some (tls_static.c).
 */
#ifndef WEFT_TLS_STATIC_H
#define WEFT_TLS_STATIC_H

#include "core/runtime.h"

void wt_tls_static_init(void);
char *wt_tls_stack_hi(uintptr_t tp, bool compact); /* a task's stack start */
void wt_tls_static_sync(void);             /* after a dlopen */
void wt_tls_static_check(struct wt_task *t); /* a new task, once linked */
void wt_tls_static_fork_reset(void);
extern const char *wt_tls_layout;          /* "compact" or "full ..." */

#endif
