/*
 * The cgroup (v2) a process runs in, from /proc/PID/cgroup.
 */
#ifndef PROF_SAMPLE_PROC_CGROUP_H
#define PROF_SAMPLE_PROC_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether line (len bytes, without its newline) is the unified
 * hierarchy's, "0::PATH", with a PATH prof-sample records: absolute, of 1
 * to CAP_CGROUP_PATH_MAX bytes, without NUL.  *path points into line. */
bool proc_cgroup_line(const char *line, size_t len, const char **path, size_t *path_len);

/* pid's cgroup v2 path (to free), or NULL: the process has gone, or has
 * no such line (only v1 hierarchies), or an unusable one. */
char *proc_cgroup_read(uint32_t pid);

#endif
