/*
 * Folded stacks (docs/FORMATS.md section 3), "root;...;leaf COUNT" lines:
 * their syntax, for the programs that read them (prof-fold, to merge or
 * filter folded files again, and prof-svg) and the one that writes them
 * (prof-fold).  What a reader accepts of that syntax is its own policy:
 * prof-fold sums whole counts of one column, prof-svg also reads decimal
 * counts and the two columns of difffolded.pl.
 */
#ifndef PROF_FOLDED_H
#define PROF_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A longer number is no count; a longer word is no unit. */
#define FOLDED_COUNT_MAX 63
#define FOLDED_UNIT_MAX	 63

enum folded_kind {
	FOLDED_BLANK,	  /* nothing but white space */
	FOLDED_COMMENT,	  /* starts with '#', or the unit line "[count: UNIT] 0", or
			   * a time line "[time: START LENGTH] 0" */
	FOLDED_STACK,	  /* STACK COUNT, or STACK BEFORE AFTER */
	FOLDED_NO_COUNT,  /* a single field: no count at all */
	FOLDED_BAD_COUNT, /* the last field is not a count */
};

/* A count as written: digits, with at most one '.' after the first. */
struct folded_count {
	const char *s;
	size_t len;
	bool whole; /* no '.' */
};

struct folded_line {
	size_t stack_len;	      /* STACK: the stack is the line's first stack_len bytes */
	size_t ncounts;		      /* STACK: 1, or 2 (BEFORE AFTER) */
	struct folded_count count[2]; /* in line order: the last is count[ncounts - 1] */
	const char *unit;	      /* COMMENT: the UNIT of a "[count: UNIT] 0" or
				       * "# count: UNIT" line, else NULL */
	size_t unit_len;
	bool timed;		      /* COMMENT: a time line; the stacks after it
				       * were taken in [time_ns, time_ns + slot_ns) */
	uint64_t time_ns, slot_ns;
};

/* Parses one line (without its newline) into *l.  A stack line ends in
 * up to max_counts counts (1, or 2 to read two columns); the stack is
 * what precedes them, without the white space and the ';'s at its end. */
enum folded_kind folded_parse(const char *line, size_t len, size_t max_counts,
			      struct folded_line *l);

/* The value of a whole count; false if it has a '.' or passes
 * UINT64_MAX. */
bool folded_count_u64(const struct folded_count *c, uint64_t *v);
double folded_count_double(const struct folded_count *c);

/* Whether unit[0..len) may say what the counts are: a word of ASCII
 * letters, digits and "-_.:", at most FOLDED_UNIT_MAX bytes (it reaches a
 * graph's tooltips). */
bool folded_unit_ok(const char *unit, size_t len);

/* The unit line, "[count: UNIT] 0", which comes first; unit is
 * folded_unit_ok(). */
void folded_write_unit(FILE *out, const char *unit);
/* The time line "[time: START LENGTH] 0" (seconds, 9 decimals) that
 * starts the stacks of a slot of time in timed folded stacks. */
void folded_write_time(FILE *out, uint64_t start_ns, uint64_t slot_ns);
void folded_write_stack(FILE *out, const char *stack, size_t len, uint64_t count);

#endif
