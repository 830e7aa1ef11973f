/*
 * JIT symbols from a live process's /tmp/perf-PID.map, for captures that
 * carry none for it (an older writer, or code emitted after the last
 * drain).  Only while the capture's host is this one, and, as perf
 * requires, only a regular file owned by the process's user or root.
 */
#ifndef PROF_SYMBOLIZE_PERF_MAP_H
#define PROF_SYMBOLIZE_PERF_MAP_H

#include <stddef.h>
#include <stdint.h>

enum perf_map_result {
	PERF_MAP_ABSENT,  /* no such file (or no such process) */
	PERF_MAP_REFUSED, /* owned by someone else: not read */
	PERF_MAP_LOADED,
};

typedef void perf_map_add_fn(void *ctx, uint64_t start, uint64_t size, const char *name,
			     size_t len);

/* Reads /tmp/perf-PID.map (the directory is a parameter for tests; NULL
 * means /tmp), calling add for each "START SIZE NAME" line. */
enum perf_map_result perf_map_load(const char *dir, uint32_t pid, perf_map_add_fn *add, void *ctx);

#endif
