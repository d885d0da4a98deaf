/* trace.h — WEFTDEBUG=schedtrace lines (trace.c). */
#ifndef WEFT_TRACE_H
#define WEFT_TRACE_H

#include <stdint.h>

void wt_sched_trace(int64_t now);          /* sysmon */

#endif
