/* dump.h — the dump of every task (dump.c): SIGQUIT's, and weft stack's. */
#ifndef WEFT_DUMP_H
#define WEFT_DUMP_H

#include <signal.h>

#include "base/base.h"
#include "core/hooks.h"

/* si_value of weft stack's SIGURG: WT_STACK_MAGIC << 32 | the caller's
 * descriptor ("weft" in ASCII; tools/stack.py sends it). */
#define WT_STACK_MAGIC 0x77656674u
/* weft top's: WT_TOP_MAGIC << 32 | the caller's descriptor ("wtop"):
 * one line per task, no backtraces (dump.c; tools/top.py sends it). */
#define WT_TOP_MAGIC 0x77746f70u
/* WT_DUMP_QUIT, wt_dump_req and the calls the runtime makes: core/hooks.h. */

/* Context: sysmon.  Starts a report: head, then each task (ts[i], whose id
 * was ids[i]) as the dump shows it, with its backtrace, then tail, on fd
 * 2; then exit_group(exit_status) unless 0.  false: a dump or report is
 * under way (ask again later).  head and tail are copied (8 KiB and
 * 256 bytes at most). */
#define WT_DUMP_REPORT_MAX 64
struct wt_task;
bool wt_dump_report(const char *head, const char *tail, struct wt_task *const *ts,
		    const uint64_t *ids, int n, int exit_status);

#endif
