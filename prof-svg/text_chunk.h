/*
 * Text made in a buffer of its own and written to its file at once: a
 * frame's markup, names and numbers, which a stdio call for each piece
 * made a fifth of prof-svg's time on a busy host's fold.
 */
#ifndef PROF_SVG_TEXT_CHUNK_H
#define PROF_SVG_TEXT_CHUNK_H

#include <stdio.h>
#include <string.h>

#include "number_text.h"

struct text_chunk {
	FILE *f;
	size_t n;
	char b[4 * NUMBER_TEXT_MAX];
};

static inline void chunk_flush(struct text_chunk *k)
{
	fwrite(k->b, 1, k->n, k->f);
	k->n = 0;
}

static inline void chunk_put(struct text_chunk *k, const char *s, size_t n)
{
	if (!n) /* (an empty name may have no bytes at all: s NULL) */
		return;
	if (sizeof(k->b) - k->n < n) {
		chunk_flush(k);
		if (n > sizeof(k->b)) {
			fwrite(s, 1, n, k->f);
			return;
		}
	}
	memcpy(k->b + k->n, s, n);
	k->n += n;
}

#define chunk_lit(k, s) chunk_put(k, s, sizeof(s) - 1)

static inline void chunk_str(struct text_chunk *k, const char *s)
{
	chunk_put(k, s, strlen(s));
}

/* Room for one number's text. */
static inline char *chunk_room(struct text_chunk *k)
{
	if (sizeof(k->b) - k->n < NUMBER_TEXT_MAX)
		chunk_flush(k);
	return k->b + k->n;
}

static inline void chunk_fixed(struct text_chunk *k, double v, int decimals)
{
	k->n += fixed_text(chunk_room(k), v, decimals);
}

static inline void chunk_g15(struct text_chunk *k, double v)
{
	k->n += g15_text(chunk_room(k), v);
}

static inline void chunk_int(struct text_chunk *k, long v)
{
	k->n += int_text(chunk_room(k), v);
}

/* The file, for what is written to it directly: after the chunk. */
static inline FILE *chunk_file(struct text_chunk *k)
{
	chunk_flush(k);
	return k->f;
}

#endif
