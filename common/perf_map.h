/*
 * /tmp/perf-PID.map, the file JIT compilers (node --perf-basic-prof, the
 * JVM's perf-map-agent, ...) write for perf: one "START SIZE NAME" line per
 * function, numbers in hex.  prof-sample reads it at each drain for the
 * processes sampled in it, prof-symbolize for a live process the capture
 * has none for.  The profiled process writes it, so it is hostile input:
 * only a regular file owned by the process's user or root is read (perf's
 * rule), never through a symbolic link; lines are bounded, and so is what
 * one call reads.
 */
#ifndef PROF_PERF_MAP_H
#define PROF_PERF_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A line (a name) longer than this is skipped, and counted. */
#define PERF_MAP_MAX_LINE 4096
/* One call reads at most this much; the rest is for the next call. */
#define PERF_MAP_MAX_READ (16u << 20)

enum perf_map_status {
	PERF_MAP_NONE,	  /* no such file */
	PERF_MAP_READ,	  /* read (maybe nothing new) */
	PERF_MAP_REFUSED, /* not a regular file owned by the process's user or root */
};

/* Where the reading of one map stands, between calls. */
struct perf_map_cursor {
	off_t offset;	   /* of the first byte not yet consumed */
	bool skipping;	   /* inside a line too long, to skip to its end */
	uint64_t skipped;  /* lines too long or not START SIZE NAME */
	bool more;	   /* the last call stopped at PERF_MAP_MAX_READ */
};

typedef void perf_map_add_fn(void *ctx, uint64_t start, uint64_t size, const char *name,
			     size_t len);

/* The user pid's perf map must belong to (or root): the process's effective
 * user, from /proc/PID/status (the /proc/PID directory is root's when the
 * process is not dumpable).  False if the process is gone. */
bool perf_map_owner(uint32_t pid, uid_t *uid);

/* Reads pid's perf map in dir (NULL: /tmp) from c->offset, calling add for
 * each complete line, and moves c past them; a line still being written is
 * left for the next call. */
enum perf_map_status perf_map_read(const char *dir, uint32_t pid, uid_t owner,
				   struct perf_map_cursor *c, perf_map_add_fn *add, void *ctx);

/* The same from the map open as fd, by whoever opened it more carefully
 * (prof-sample: without walking a path). */
enum perf_map_status perf_map_read_fd(int fd, uid_t owner, struct perf_map_cursor *c,
				      perf_map_add_fn *add, void *ctx);

#endif
