/*
 * Lines from a file descriptor, read in large blocks and returned in
 * place (line_reader.c): prof-fold's perf script and folded input, and
 * prof-svg's folded stacks.
 */
#ifndef PROF_LINE_READER_H
#define PROF_LINE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct line_reader {
	int fd;
	const char *name; /* for diagnostics */
	char *buf;
	size_t cap, start, end;
	bool eof, skipping; /* skipping: discarding the rest of a huge line */
	uint64_t lineno;    /* number of the line last returned */
	int error;          /* errno of a failed read, 0 if none */
	uint64_t bytes;     /* bytes read so far */
	uint64_t cut;       /* lines cut to LINE_MAX_BYTES so far */
	/* Bit i of newlines[k]: buf[64 * k + i] is a newline, for the
	 * bytes before end. */
	uint64_t *newlines;
};

/* Longer lines are cut to this, and counted in cut: a reader of a format
 * whose lines end in what matters (a count) skips a line cut short. */
#define LINE_MAX_BYTES (16u << 20)

void lr_init(struct line_reader *r, int fd, const char *name);
void lr_free(struct line_reader *r);
/* lr_free(), once the input was read to its end: a read error ends the
 * program (status 2), naming the input. */
void lr_finish(struct line_reader *r);
/* Returns the next line without its "\n" (and without a trailing "\r"), or
 * NULL at the end of input or on a read error (r->error). */
const char *lr_next_scan(struct line_reader *r, size_t *len);

/* lr_next_scan(), inline while the newline is one already read. */
static inline const char *lr_next(struct line_reader *r, size_t *len)
{
	size_t k = r->start / 64, nl;
	uint64_t m;
	char *line;

	if (r->start >= r->end)
		return lr_next_scan(r, len);
	m = r->newlines[k] >> (r->start % 64);
	if (m) {
		nl = r->start + (size_t)__builtin_ctzll(m);
	} else {
		do
			if (++k * 64 >= r->end)
				return lr_next_scan(r, len);
		while (!(m = r->newlines[k]));
		nl = k * 64 + (size_t)__builtin_ctzll(m);
	}
	line = r->buf + r->start;
	*len = nl - r->start;
	r->start = nl + 1;
	r->lineno++;
	if (*len && line[*len - 1] == '\r')
		(*len)--;
	return line;
}

/* Fills the buffer and returns what is buffered, for format detection. */
const char *lr_peek(struct line_reader *r, size_t *len);

#endif
