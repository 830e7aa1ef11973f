/*
 * --rotate's capture files.  Each is written nameless (O_TMPFILE; where
 * the file system has none, under a hidden temporary name) in the
 * directory it is for, and linked into place once complete: whoever
 * watches the directory sees only whole captures.
 *
 * The files are made while sampling runs, after prof-sample has become
 * nobody (who may not write where root asked for them), so a helper
 * forked before (helper.h) makes, names and deletes them, as the user
 * prof-sample was started as but without capabilities.  It takes no name
 * from the main process: a request is only "a new file" or "that file is
 * complete"; names come from the pattern given at its start and the
 * clock.
 *
 * The directory may be one other users write in (/tmp), so nothing they
 * put there may end or redirect the capture: the directory is opened
 * once, at the start, without following a symbolic link, and every file
 * is made, named and deleted relative to it; a name already taken, by
 * anything, is never replaced nor followed, and the new file gets another
 * one that cannot be taken in advance; a path is printed only while it
 * leads to the file, and a file that cannot be made or named costs its
 * samples (said, and counted), not the capture.
 */
#ifndef PROF_SAMPLE_ROTATION_H
#define PROF_SAMPLE_ROTATION_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "helper.h"

struct rotation {
	struct helper h;
	char path[PATH_MAX]; /* the last file printed */
	bool started;	     /* a first file was made */
	bool discarding;     /* the file being written goes nowhere (none could be made) */
	uint64_t files_lost, samples_lost, files_unprinted;
};

/* Whether pattern can name --rotate's files: strftime(3) fields in its
 * last component only (a run's files go in one directory), which must
 * give a name; false with a message if not. */
bool rotation_pattern_ok(const char *pattern);

/* Starts the helper for files named by pattern (strftime(3) fields,
 * expanded with the local time at each file's start), of which it keeps
 * the newest keep it wrote (0: all).  Must run while prof-sample is still
 * the user it was started as.  False with a message if it cannot. */
bool rotation_start(struct rotation *r, const char *pattern, uint32_t keep);

/* A new file.  The first one is made or NULL is returned (the helper says
 * why); after that, when the directory does not take one, the samples
 * until the next go to a file that keeps nothing (counted as lost by
 * rotation_finish()), and NULL means the helper has gone (or, with a
 * message, that no FILE could be made of what it gave). */
FILE *rotation_next(struct rotation *r);

/* Closes f, the file rotation_next() gave, holding samples samples, names
 * it (a name already there is never replaced: ".1" to ".9", then a
 * random suffix, is added to the new one's), deletes the oldest past the
 * number kept, and prints its path on stdout.  A file that could not be
 * named, or whose path no longer leads to it, is counted and not printed.
 * False with a message if f could not be written, the helper has gone, or
 * the path could not be printed (its reader has gone: the file is in
 * place, and the capture should end). */
bool rotation_finish(struct rotation *r, FILE *f, uint64_t samples);

/* What was lost or not printed over the run, on stderr; whether any was. */
bool rotation_report(const struct rotation *r);

/* Stops the helper; a file not finished is named as it is (a capture cut
 * short, which readers take up to the cut), not printed. */
void rotation_stop(struct rotation *r);

#endif
