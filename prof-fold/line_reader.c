/*
 * Lines from a file descriptor, read in large blocks.
 *
 * The buffer holds whole lines: a line is returned as a pointer into it, so
 * no line is copied.  A line longer than the buffer grows it, up to
 * LINE_MAX_BYTES; past that the rest of the line is discarded, so a file
 * with no newline at all cannot exhaust memory.
 *
 * Most lines of perf script are short (a frame line is some 70 bytes), so
 * a call of memchr() a line costs more in its setup than in its search.
 * Instead the newlines are found 64 bytes at a time, into a bit mask,
 * and each line is then one bit: memchr() is left for the end of the
 * buffer and for long lines.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
		/* Modulo 2^64, the window's bits keep their meaning. */
		r->scanned -= r->start;
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

#ifdef __SSE2__
/* The newlines of p[0..64), bit i for p[i]. */
static inline uint64_t newline_mask(const char *p)
{
	const __m128i nl = _mm_set1_epi8('\n');
#define NL16(i) ((uint64_t)(unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8( \
	_mm_loadu_si128((const __m128i *)(p + 16 * (i))), nl)) << (16 * (i)))

	return NL16(0) | NL16(1) | NL16(2) | NL16(3);
#undef NL16
}
#endif

/* The next newline from the masks, at or after r->start; NULL when none
 * is within the whole 64-byte blocks buffered. */
static char *next_newline(struct line_reader *r)
{
#ifdef __SSE2__
	if (r->scanned < r->start) {
		r->scanned = r->start;
		r->newlines = 0;
	}
	while (!r->newlines) {
		if (r->end - r->scanned < 64)
			return NULL;
		r->newlines = newline_mask(r->buf + r->scanned);
		r->scanned += 64;
	}
	char *nl = r->buf + r->scanned - 64 + __builtin_ctzll(r->newlines);
	r->newlines &= r->newlines - 1;
	return nl;
#else
	(void)r;
	return NULL;
#endif
}

const char *lr_next_scan(struct line_reader *r, size_t *len)
{
	size_t scan, off;
	char *line, *nl;

	if ((nl = next_newline(r)) != NULL)
		goto found;
	/* What the masks saw holds no newline. */
	scan = r->scanned > r->start ? r->scanned : r->start;
	if (scan > r->end)
		scan = r->end;
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
	/* The masks start again after this line. */
	r->scanned = (size_t)(nl - r->buf) + 1;
	r->newlines = 0;
found:
	line = r->buf + r->start;
	*len = (size_t)(nl - line);
	r->start = (size_t)(nl - r->buf) + 1;
	goto done;
last:
	/* The final line has no newline. */
	r->skipping = false;
	r->scanned = r->end;
	r->newlines = 0;
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
