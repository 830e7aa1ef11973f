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

/* What the time lines of timed folded stacks said so far. */
struct folded_time {
	bool timed;	  /* a time line came: the stacks are slot's */
	uint64_t slot;	  /* the last one's start */
	uint64_t slot_ns; /* the first one's length */
};

/* Called with each stack line: its stack is line's first l->stack_len
 * bytes; before is 0 but in two columns.  Returns false to stop. */
typedef bool (*folded_stack_fn)(void *ctx, const char *line, const struct folded_line *l,
				double before, double after, const struct folded_time *time,
				size_t lineno);

/* Calls fn with every stack line of r, counting the others in st;
 * false if fn stopped it. */
bool folded_read_each(struct line_reader *r, enum folded_role role, struct folded_stats *st,
		      struct folded_time *time, folded_stack_fn fn, void *ctx);

/* Reads every line of r into t; with tl, the time of timed folded stacks
 * into tl too. */
void folded_read(struct line_reader *r, struct frame_tree *t, enum folded_role role, bool reverse,
		 struct folded_stats *st, struct timeline *tl);

#endif
