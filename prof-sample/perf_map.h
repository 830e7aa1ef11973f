/*
 * JIT symbols from /tmp/perf-PID.map, the file JITs (node
 * --perf-basic-prof, the JVM's perf-map-agent, ...) write for perf.
 */
#ifndef PROF_SAMPLE_PERF_MAP_H
#define PROF_SAMPLE_PERF_MAP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture.h"

enum perf_map_status {
	PERF_MAP_NONE,	  /* no such file */
	PERF_MAP_READ,	  /* read (maybe nothing new) */
	PERF_MAP_REFUSED, /* owned by someone else than the process or root */
};

/* Writes a JSYM record for every line of pid's perf map past byte *offset,
 * and advances *offset past the last complete line.  A map owned by
 * neither uid nor root is refused, as perf refuses it: another user could
 * otherwise put names of their choice on this process's frames. */
enum perf_map_status perf_map_read(struct cap_writer *w, uint32_t pid, uid_t uid, off_t *offset);

#endif
