/*
 * timer.h — the clock and the one heap of deadlines (timer.c).
 */
#ifndef WEFT_TIMER_H
#define WEFT_TIMER_H

#include <time.h>

#include "base/base.h"

int64_t wt_nanotime(void);                 /* CLOCK_MONOTONIC, ns */
int64_t wt_abs_to_mono(clockid_t clk, const struct timespec *abs); /* deadline in mono ns */

struct wt_timer {
	int64_t when;                       /* [T.lock, timer.c] mono ns */
	int idx;                            /* [T.lock, timer.c] heap index, -1 = not queued */
	_Atomic int running;                /* [atomic] callback in flight */
	void (*fn)(struct wt_timer *, struct wt_m *); /* on a g0 (m) or sysmon (NULL), no lock held */
};
void wt_timer_add(struct wt_timer *t, int64_t when);
void wt_timer_del(struct wt_timer *t);     /* returns once fn is not running */
int64_t wt_timer_next(void);               /* earliest deadline or INT64_MAX */
int wt_timer_run(int64_t now, struct wt_m *m); /* fire expired timers; returns count */
int wt_timer_count(void);
void wt_timer_fork_reset(void);

#endif
