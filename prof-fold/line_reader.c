/*
 * Lines from a file descriptor, read in large blocks.
 *
 * The buffer holds whole lines: a line is returned as a pointer into it, so
 * no line is copied.  A line longer than the buffer grows it, up to
 * LINE_MAX_BYTES; past that the rest of the line is discarded, so a file
 * with no newline at all cannot exhaust memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "fold.h"

#define BLOCK (1u << 20)
/* Reads of this size stay in the cache between the copy and the parse. */
#define READ_MAX (128u << 10)

void lr_init(struct line_reader *r, int fd, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->name = name;
	r->cap = 4 * BLOCK;
	r->buf = xmalloc(r->cap);
}

void lr_free(struct line_reader *r)
{
	free(r->buf);
	r->buf = NULL;
}

/* Reads more input after the buffered bytes; false at end or on error. */
static bool fill(struct line_reader *r)
{
	ssize_t n;

	if (r->eof)
		return false;
	/* Moving the unread bytes to the front keeps the buffer in use small,
	 * and so in the cache. */
	if (r->start > 0 && (r->start == r->end || r->start >= 2 * READ_MAX ||
			     r->cap - r->end < BLOCK)) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	if (r->cap - r->end < BLOCK / 4) {
		if (r->cap < LINE_MAX_BYTES + BLOCK) {
			r->cap *= 2;
			if (r->cap > LINE_MAX_BYTES + 2 * BLOCK)
				r->cap = LINE_MAX_BYTES + 2 * BLOCK;
			r->buf = xrealloc(r->buf, r->cap);
		} else {
			/* A line longer than LINE_MAX_BYTES: keep its head
			 * and drop the rest up to its newline. */
			r->end = r->start + LINE_MAX_BYTES;
			r->skipping = true;
		}
	}
	do
		n = read(r->fd, r->buf + r->end,
			 r->cap - r->end < READ_MAX ? r->cap - r->end : READ_MAX);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		if (n < 0)
			r->error = errno;
		r->eof = true;
		return false;
	}
	r->end += (size_t)n;
	r->bytes += (uint64_t)n;
	return true;
}

const char *lr_peek(struct line_reader *r, size_t *len)
{
	while (!r->eof && r->end - r->start < BLOCK && fill(r))
		;
	*len = r->end - r->start;
	return r->buf + r->start;
}

const char *lr_next(struct line_reader *r, size_t *len)
{
	size_t scan = r->start, off;
	char *line, *nl;

	for (;;) {
		nl = memchr(r->buf + scan, '\n', r->end - scan);
		if (nl) {
			if (r->skipping) {
				/* Drop what lies between the cut and the
				 * newline. */
				size_t cut = r->start + LINE_MAX_BYTES;
				size_t at = (size_t)(nl - r->buf);
				memmove(r->buf + cut, nl, r->end - at);
				r->end = cut + (r->end - at);
				nl = r->buf + cut;
				r->skipping = false;
			}
			break;
		}
		if (r->skipping)
			r->end = r->start + LINE_MAX_BYTES;
		off = r->end - r->start; /* fill() may move start */
		if (!fill(r))
			goto last;
		scan = r->start + off;
		if (scan > r->end)
			scan = r->end;
	}
	line = r->buf + r->start;
	*len = (size_t)(nl - line);
	r->start = (size_t)(nl - r->buf) + 1;
	goto done;
last:
	/* The final line has no newline. */
	r->skipping = false;
	if (r->start == r->end)
		return NULL;
	line = r->buf + r->start;
	*len = r->end - r->start;
	r->start = r->end;
done:
	r->lineno++;
	if (*len && line[*len - 1] == '\r')
		(*len)--;
	return line;
}
