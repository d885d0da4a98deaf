/* trace.h — WEFTDEBUG=schedtrace lines (trace.c). */
#ifndef WEFT_TRACE_H
#define WEFT_TRACE_H

#include "core/hooks.h"                   /* wt_sched_trace (sysmon) */

#endif
