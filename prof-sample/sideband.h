/*
 * Process events from the kernel as they happen: executable mmaps (with the
 * file's build-id, read by the kernel at mmap time), forks and exits.  They
 * come from a perf "dummy" event per CPU with mmap and task tracking, as
 * perf record gets them, and keep the mappings of processes that exit
 * before prof-sample could read their /proc entries.
 */
#ifndef PROF_SAMPLE_SIDEBAND_H
#define PROF_SAMPLE_SIDEBAND_H

#include <stdint.h>

#include "processes.h"

struct perf_buffer;

struct sideband {
	struct perf_buffer *pb;
	int map_fd;
	struct processes *ps;
	uint64_t lost;		  /* events the kernel dropped (ring full) */
};

/* Returns 0, or a negative errno with a message printed. */
int sideband_open(struct sideband *sb, struct processes *ps);
void sideband_close(struct sideband *sb);

/* Handles pending events, waiting up to timeout_ms for the first. */
void sideband_poll(struct sideband *sb, int timeout_ms);

/* Handles every pending event without waiting (ctx is the sideband). */
void sideband_catch_up(void *ctx);

#endif
