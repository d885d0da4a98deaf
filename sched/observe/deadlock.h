/*
 * deadlock.h — deadlock reports (deadlock.c): sysmon finds tasks that
 * wait for each other for ever and prints them.
 */
#ifndef WEFT_DEADLOCK_H
#define WEFT_DEADLOCK_H

#include "core/hooks.h"
#include "core/runtime.h"
#include "core/config.h"

/* wt_deadlock_look, wt_deadlock_fork_reset (sysmon): core/hooks.h. */

/* An rwlock read-held by the calling task (rdlock) or released by it
 * (rdunlock): the task's rdheld slots, the readers glibc does not record.
 * Context: a task or a foreign thread (nothing recorded); no lock, no
 * system call: two loads and a store when a slot is free. */
static inline void wt_deadlock_rdheld(const void *l, bool held)
{
	if (wt_cfg.deadlock == WT_DEADLOCK_OFF)
		return;
	struct wt_task *t = wt_cur();
	if (!t)
		return;
	const void *want = held ? NULL : l;
	for (int i = 0; i < 4; i++)
		if (atomic_load_explicit(&t->rdheld[i], memory_order_relaxed) == want) {
			atomic_store_explicit(&t->rdheld[i], held ? l : NULL, memory_order_relaxed);
			return;
		}
}

#endif
