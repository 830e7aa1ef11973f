/*
 * What the file reader's two sides say to each other (file_reader.c, the
 * caller's; file_reader_serve.c, the reader process's): requests, replies,
 * and the progress the reader leaves in memory they share.  Private to
 * the two.
 */
#ifndef PROF_FILE_READER_WIRE_H
#define PROF_FILE_READER_WIRE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "file_reader.h"
#include "path_walk.h"

enum { OP_COPY = 1, OP_OPEN = 2 };


/* An OP_OPEN request holds the places of one or more files, a run of
 * paths for each, of which the first that can be opened is the file.  The
 * reader answers each run in order, with that file or none. */
struct read_request {
	uint64_t tag;
	uint32_t op, npaths, len, ndead;
	int32_t cpu; /* the caller waits on it, or -1 */
	uint32_t reserved;
	uint64_t dead[FILE_READER_MAX_STALLS]; /* mounts not to ask */
	uint8_t how[FILE_READER_MAX_PATHS];
	uint8_t run[FILE_READER_MAX_PATHS]; /* the run of each path: 0 or 1, in turn */
	/* OP_OPEN: npaths paths, each ended by a NUL, len bytes in all */
	char paths[FILE_READER_MAX_PATHS * PATH_MAX];
};

/* The answer for one run (or the one file of OP_COPY). */
struct run_answer {
	int32_t err;
	uint32_t which; /* the path opened; past its run if none was */
	struct opened_file info;
};

/* One reply answers a whole request, run by run, the descriptors of the
 * files opened going with it in order: a reply per run would wake the
 * caller once for each. */
struct read_reply {
	uint64_t tag;
	uint32_t nruns, reserved;
	struct run_answer run[FILE_READER_MAX_PATHS];
};

/* How far the reader got with the request in flight, in memory it shares
 * with the main process: what is known of a request when the reader is
 * killed. */
struct progress {
	struct walk_asking asking;
	uint32_t at;			    /* the path being opened */
	int32_t err[FILE_READER_MAX_PATHS]; /* why each was not */
};

/* The reader process: answers requests on sock until it closes; progress
 * is the memory shared with the caller. */
void file_reader_serve(int sock, void *progress);

/* Run in the reader process before it serves (helper_spawn's confine). */
bool file_reader_confine(void *arg);

#endif
