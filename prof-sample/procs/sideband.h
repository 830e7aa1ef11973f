/*
 * Process events from the kernel as they happen: executable mmaps (with the
 * file's build-id, read by the kernel at mmap time), forks and exits.  They
 * come from a perf "dummy" event per CPU with mmap and task tracking, as
 * perf record gets them, and keep the mappings of processes that exit
 * before prof-sample could read their /proc entries.
 *
 * Each CPU has its own ring, and a process may exec on one CPU and fork on
 * another: the events are handled in the order they happened (by their
 * CLOCK_MONOTONIC stamps), not in the order the rings are read, or a child
 * would inherit its parent's mappings from before its exec.
 */
#ifndef PROF_SAMPLE_SIDEBAND_H
#define PROF_SAMPLE_SIDEBAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "processes.h"

struct perf_buffer;

/* An event read but not handled yet: a copy at off in the sideband's
 * bytes. */
struct sideband_event {
	uint64_t time, seq;
	size_t off;
	uint32_t size;
	bool held; /* left for a later read: it may not be the oldest */
};

struct sideband {
	struct perf_buffer *pb;
	int map_fd;
	struct processes *ps;
	struct mapped_files *mf; /* identifies the files mapped */
	uint64_t lost; /* events the kernel dropped (ring full) */
	struct sideband_event *events;
	size_t nevents, events_cap;
	unsigned char *bytes;
	size_t nbytes, bytes_cap;
	uint64_t seq;
};

/* Returns 0, or a negative errno with a message printed. */
int sideband_open(struct sideband *sb, struct processes *ps, struct mapped_files *mf);
void sideband_close(struct sideband *sb);

/* Handles pending events, waiting up to timeout_ms for the first: those
 * stamped before the rings were read, oldest first; the others at the next
 * call (an event of another CPU may come before them). */
void sideband_poll(struct sideband *sb, int timeout_ms);

/* Handles every pending event without waiting (ctx is the sideband). */
void sideband_catch_up(void *ctx);

#endif
