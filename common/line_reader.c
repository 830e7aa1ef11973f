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
 * Instead the newlines of each read are marked in a bit map as it comes,
 * 64 bytes at a time (four SSE2 compares), and each line is then the
 * next bit set: inline, a load and a count of trailing zeros.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "big_alloc.h"
#include "diag.h"
#include "line_reader.h"

#define BLOCK (1u << 20)
/* Reads of this size stay in the cache between the copy and the parse. */
#define READ_MAX (128u << 10)
/* The bit map reads whole 64-byte blocks, the last one past the end. */
#define SLACK 64

/* The buffer grows from old bytes (0: none yet) to r->cap.  It is a big
 * array (big_alloc.h): the part in use, some hundreds of KiB, is one huge
 * page, where 4 KiB pages took a hundred faults of microseconds each in a
 * VM, for every input.  The bit map is small. */
static void alloc(struct line_reader *r, size_t old)
{
	r->buf = big_zrealloc(r->buf, old ? old + SLACK : 0, r->cap + SLACK);
	r->newlines = xreallocarray(r->newlines, r->cap / 64 + 1, sizeof(*r->newlines));
}

void lr_init(struct line_reader *r, int fd, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->name = name;
	r->cap = 4 * BLOCK;
	alloc(r, 0);
}

void lr_finish(struct line_reader *r)
{
	if (r->error) {
		errno = r->error;
		err(EXIT_USAGE, "%s", r->name);
	}
	lr_free(r);
}

void lr_free(struct line_reader *r)
{
	big_free(r->buf, r->cap + SLACK);
	free(r->newlines);
	r->buf = NULL;
	r->newlines = NULL;
}

/* The newlines of p[0..64), bit i for p[i]. */
static uint64_t newline_mask(const char *p)
{
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n');
#define NL16(i) ((uint64_t)(unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8( \
	_mm_loadu_si128((const __m128i *)(p + 16 * (i))), nl)) << (16 * (i)))

	return NL16(0) | NL16(1) | NL16(2) | NL16(3);
#undef NL16
#else
	uint64_t m = 0;

	for (int i = 0; i < 64; i++)
		m |= (uint64_t)(p[i] == '\n') << i;
	return m;
#endif
}

/* Marks the newlines of the blocks from the one holding buf[from] to the
 * end; none past it. */
static void mark(struct line_reader *r, size_t from)
{
	for (size_t k = from / 64; k * 64 < r->end; k++) {
		uint64_t m = newline_mask(r->buf + k * 64);
		if (r->end - k * 64 < 64)
			m &= (1ull << (r->end - k * 64)) - 1;
		r->newlines[k] = m;
	}
}

/* Reads more input after the buffered bytes; false at end or on error. */
static bool fill(struct line_reader *r)
{
	ssize_t n;

	if (r->eof)
		return false;
	/* Moving the unread bytes to the front keeps the buffer in use small,
	 * and so in the cache.  They end at a 64-byte boundary, where the
	 * next read lands: the kernel's copy to an unaligned address took
	 * prof-fold's reads twice cat's system time on an AMD EPYC.
	 * The newline bits of the bytes before them are stale, and are never
	 * looked at: a scan starts at start. */
	if (r->start > 0 && (r->start == r->end || r->start >= 2 * READ_MAX ||
			     r->cap - r->end < BLOCK)) {
		size_t unread = r->end - r->start, pad = (64 - unread % 64) % 64;
		memmove(r->buf + pad, r->buf + r->start, unread);
		r->start = pad;
		r->end = pad + unread;
		mark(r, 0);
	}
	if (r->cap - r->end < BLOCK / 4) {
		if (r->cap < LINE_MAX_BYTES + BLOCK) {
			size_t old = r->cap;
			r->cap *= 2;
			if (r->cap > LINE_MAX_BYTES + 2 * BLOCK)
				r->cap = LINE_MAX_BYTES + 2 * BLOCK;
			alloc(r, old);
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
	size_t was = r->end;
	r->end += (size_t)n;
	r->bytes += (uint64_t)n;
	mark(r, was);
	return true;
}

const char *lr_peek(struct line_reader *r, size_t *len)
{
	while (!r->eof && r->end - r->start < BLOCK && fill(r))
		;
	*len = r->end - r->start;
	return r->buf + r->start;
}

/* The first newline in buf[from..end), or NULL. */
static char *find_newline(const struct line_reader *r, size_t from)
{
	size_t k = from / 64;
	uint64_t m;

	if (from >= r->end)
		return NULL;
	m = r->newlines[k] & (~0ull << (from % 64));
	while (!m) {
		if (++k * 64 >= r->end)
			return NULL;
		m = r->newlines[k];
	}
	return r->buf + k * 64 + (size_t)__builtin_ctzll(m);
}

const char *lr_next_scan(struct line_reader *r, size_t *len)
{
	size_t scan = r->start, off;
	char *line, *nl;

	while ((nl = find_newline(r, scan)) == NULL) {
		if (r->skipping) {
			r->end = r->start + LINE_MAX_BYTES;
			mark(r, r->end);
		}
		off = r->end - r->start; /* fill() may move start */
		if (!fill(r))
			goto last;
		scan = r->start + off;
	}
	if (r->skipping) {
		/* Drop what lies between the cut and the newline. */
		size_t cut = r->start + LINE_MAX_BYTES;
		size_t at = (size_t)(nl - r->buf);
		memmove(r->buf + cut, nl, r->end - at);
		r->end = cut + (r->end - at);
		mark(r, cut);
		nl = r->buf + cut;
		r->skipping = false;
		r->cut++;
	}
	line = r->buf + r->start;
	*len = (size_t)(nl - line);
	r->start = (size_t)(nl - r->buf) + 1;
	goto done;
last:
	/* The final line has no newline. */
	r->cut += r->skipping;
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
