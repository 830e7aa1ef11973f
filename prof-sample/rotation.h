/*
 * --rotate's capture files.  Each is written under a temporary name in
 * the directory it is for, and renamed into place once complete: whoever
 * watches the directory sees only whole captures.
 *
 * The files are made while sampling runs, after prof-sample has become
 * nobody (who may not write where root asked for them), so a helper
 * forked before (helper.h) makes, renames and deletes them, as the user
 * prof-sample was started as but without capabilities.  It takes no name
 * from the main process: a request is only "a new file" or "that file is
 * complete"; names come from the pattern given at its start and the
 * clock, and it deletes only files it renamed into place itself, while
 * their names still lead to them.
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
	char path[PATH_MAX]; /* the last file completed */
};

/* Starts the helper for files named by pattern (strftime(3) fields,
 * expanded with the local time at each file's start), of which it keeps
 * the newest keep it wrote (0: all).  Must run while prof-sample is still
 * the user it was started as.  False with a message if it cannot. */
bool rotation_start(struct rotation *r, const char *pattern, uint32_t keep);

/* A new file, under its temporary name; NULL with a message if it
 * cannot be made. */
FILE *rotation_next(struct rotation *r);

/* Closes f, the file rotation_next() gave, renames it into place (a file
 * of that name already there is never replaced: ".1", ".2"... is added to
 * the new one's name), deletes the oldest past the number kept, and
 * prints its path on stdout.  False with a message if any of that fails,
 * printing the path included (its reader has gone: the file is in place,
 * and the capture should end). */
bool rotation_finish(struct rotation *r, FILE *f);

/* Stops the helper; a file not finished is renamed into place as it is
 * (a capture cut short, which readers take up to the cut), not printed. */
void rotation_stop(struct rotation *r);

#endif
