/*
 * Reading folded stacks ("a;b;c COUNT", docs/FORMATS.md section 3, parsed
 * by common/folded.c) into a frame tree.  Counts may be decimal, as
 * flamegraph.pl takes them; the two-column form "a;b;c BEFORE AFTER" that
 * difffolded.pl writes is recognised from the first stack line of an
 * input.
 */
#ifndef PROF_SVG_FOLDED_READ_H
#define PROF_SVG_FOLDED_READ_H

#include <stdbool.h>
#include <stddef.h>
#include "folded.h"
#include "frame_tree.h"
#include "line_reader.h"
#include "timeline.h"

enum folded_role {
	FOLDED_ANY,    /* one column, or two columns (differential) */
	FOLDED_BEFORE, /* --diff: the counts are the "before" profile */
	FOLDED_AFTER,  /* --diff: the counts are the "after" profile */
};

struct folded_stats {
	size_t lines;	  /* stack lines accepted */
	size_t bad;	  /* lines skipped as malformed */
	size_t first_bad; /* line number of the first of them */
	int columns;	  /* 1 or 2 once a valid line was seen, else 0 */
	size_t indented;  /* of the skipped lines, those indented (frame lines) */
	char first_bad_text[32]; /* the start of the first skipped line */
	size_t first_bad_len;
	char unit[FOLDED_UNIT_MAX + 1]; /* from a "# count: UNIT" line, or "" */
};

/* Reads every line of r into t; with tl, the time of timed folded stacks
 * into tl too. */
void folded_read(struct line_reader *r, struct frame_tree *t, enum folded_role role, bool reverse,
		 struct folded_stats *st, struct timeline *tl);

#endif
