/*
 * cgroup.h — the GOMAXPROCS default from the affinity mask and the cgroup
 * v2 cpu.max limit, and its updates (cgroup.c).
 */
#ifndef WEFT_CGROUP_H
#define WEFT_CGROUP_H

void wt_cgroup_init(const char *root);
void wt_cgroup_defer(const char *root); /* start: sysmon looks (wt_cgroup_first) */
void wt_cgroup_first(void);            /* sysmon, as it starts */
long wt_cgroup_parse_max(const char *s);
long wt_cgroup_limit(void);
int wt_procs_default(int ncpu, long limit);
void wt_procs_update(void);            /* sysmon, about once a second */

#endif
