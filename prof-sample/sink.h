/*
 * Where the capture goes: one file (-o, or stdout), or with --rotate a
 * file after another (rotation.h).  The one owner of the file being
 * written, so that the session asks for the next file and main() for the
 * last, and neither keeps a FILE of its own.
 */
#ifndef PROF_SAMPLE_SINK_H
#define PROF_SAMPLE_SINK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rotation.h"

struct options;

struct sink {
	const char *path; /* -o FILE, --rotate's pattern, or NULL: stdout */
	bool rotating;
	uint32_t keep; /* --keep */
	FILE *f; /* the file being written; NULL before the first, after the last */
	struct rotation rot;
};

/* -o's file (stdout without one) is opened at once, before anything runs,
 * exiting EXIT_USAGE if it cannot be; --rotate's are made from
 * sink_start() on. */
void sink_init(struct sink *k, const struct options *o);

/* Whether what prof-sample writes on stdout (the capture, or --rotate's
 * file names) is its own, and a command it runs must not share it. */
bool sink_owns_stdout(const struct sink *k);

/* The first file: with --rotate, the helper that makes them started (as
 * the user prof-sample was started as) and a file made.  False with a
 * message if not. */
bool sink_start(struct sink *k);

/* The file being written (NULL if there is none: sink_failed()). */
FILE *sink_file(const struct sink *k);

/* --rotate: the file being written, which holds samples samples, ended
 * and named, and the next one made.  False with a message if that fails
 * (sink_file() is then NULL). */
bool sink_next(struct sink *k, uint64_t samples);

/* Whether the capture can no longer be written (a write failed, or no
 * file could be had): an error, where samples that could not be read
 * only cut it short. */
bool sink_failed(const struct sink *k);

/* The last file, holding samples samples, closed (with --rotate, named
 * and printed).  False with a message if what was written did not all
 * reach it. */
bool sink_finish(struct sink *k, uint64_t samples);

/* --rotate's files lost or not printed over the run, said on stderr;
 * whether there were any. */
bool sink_report(const struct sink *k);

/* Lets go of everything: a file not finished is closed as it is (with
 * --rotate, named, not printed: readers take it up to the cut). */
void sink_close(struct sink *k);

#endif
