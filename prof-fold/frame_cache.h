/*
 * The frame cache's layout and its hot path, inline in the parser: most
 * frame lines are the line that followed the one before them last time,
 * and are found without a call.  frame_cache.c has the rest.
 */
#ifndef PROF_FRAME_CACHE_H
#define PROF_FRAME_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The hot path is inlined where it is used, which gcc does not do by
 * itself for a function this size used twice. */
#define FC_INLINE static inline __attribute__((always_inline))

/* 256 KiB of slots: twice as many slots missed the L2 cache more than
 * the lines they kept from being parsed again saved (13% on a capture
 * of a busy host), half as many were no faster. */
#define FC_SLOTS (1u << 15)
#define FC_LINE_MAX 4096 /* longer lines are not cached */
/* Nor are lines whose names are longer ("[unknown]->..." names the dso
 * once a piece): their names would stay in stack_ids' table. */
#define FC_NAMES_MAX (4 * FC_LINE_MAX)
#define FC_WINDOW 65536	    /* lookups between two hit-rate checks */
#define FC_PAUSE_WINDOWS 16 /* windows to stand aside after a poor one */

struct fc_slot {
	uint32_t tag; /* the hash's high half */
	uint32_t off; /* the entry's offset in the arena; 0: empty */
};

/* In the arena, followed by the line. */
struct fc_entry {
	uint32_t klen;	/* the line's length, with the flags below */
	uint32_t tlen;	/* its folded names' length */
	uint32_t id;	/* their id (stack_ids.c) */
	uint32_t next;	/* the entry of the line that followed it last; 0: none */
	uint32_t other; /* the one that followed it before that one */
	uint32_t next2; /* the entry of the line after the next */
};

#define FC_GROUP (1u << 31) /* the line adds a frame */
#define FC_JAVA (1u << 30)  /* the line is a java process's */

struct frame_cache {
	struct fc_slot *slots;
	char *arena;
	size_t used, cap;
	uint32_t lookups, hits, paused;
	/* The entries of the last two lines looked up, and on a miss, of
	 * the two before it, for the line's entry once it is put. */
	uint32_t prev, prev2, missed_after, missed_after2;
};

struct frame_cache *frame_cache_new(void);
void frame_cache_free(struct frame_cache *c);
/* The next line is the first of a stack: it follows no other. */
void frame_cache_restart(struct frame_cache *c);
/* Whether a line of len bytes, whose names are tlen bytes, would be kept
 * now: those that would not need no id. */
bool frame_cache_takes(const struct frame_cache *c, size_t len, size_t tlen);
/* Keeps a line that frame_cache_get() did not find, just after it. */
void frame_cache_put(struct frame_cache *c, bool java, const char *line,
		     size_t len, uint32_t id, size_t tlen, bool group);
/* frame_cache_get() by the line's hash, for a line that is not the one
 * that followed the one before. */
const struct fc_entry *frame_cache_lookup(struct frame_cache *c, bool java, const char *line,
					  size_t len, uint32_t prev, uint32_t prev2);

/* memcmp() == 0 for the short lengths of frame lines, without a call:
 * sixteen bytes at a time (eight without SSE2), the last ones
 * overlapping the others. */
FC_INLINE bool fc_same_bytes(const char *a, const char *b, size_t n)
{
	uint64_t x, y;

#ifdef __SSE2__
	if (n >= 16) {
		__m128i d = _mm_setzero_si128();
		for (size_t i = 0; i + 16 < n; i += 16)
			d = _mm_or_si128(d, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(a + i)),
							  _mm_loadu_si128((const __m128i *)(b + i))));
		d = _mm_or_si128(d, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(a + n - 16)),
						  _mm_loadu_si128((const __m128i *)(b + n - 16))));
		return _mm_movemask_epi8(_mm_cmpeq_epi8(d, _mm_setzero_si128())) == 0xffff;
	}
#endif
	if (n < 8) {
		for (size_t i = 0; i < n; i++)
			if (a[i] != b[i])
				return false;
		return true;
	}
	for (size_t i = 0; i + 8 < n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return false;
	}
	memcpy(&x, a + n - 8, 8);
	memcpy(&y, b + n - 8, 8);
	return x == y;
}

FC_INLINE struct fc_entry *fc_entry_at(const struct frame_cache *c, uint32_t off)
{
	return (struct fc_entry *)(c->arena + off);
}

FC_INLINE bool fc_is_entry_of(const struct fc_entry *e, uint32_t flags, const char *line,
			      size_t len)
{
	return (e->klen & ~FC_GROUP) == (flags | (uint32_t)len) &&
	       fc_same_bytes((const char *)(e + 1), line, len);
}

/* The line looked up is entry off's, after those of prev and prev2: the
 * entries learn what follows them, and what will follow this one is
 * fetched. */
FC_INLINE const struct fc_entry *fc_follows(struct frame_cache *c, uint32_t off, uint32_t prev,
					    uint32_t prev2)
{
	struct fc_entry *e = fc_entry_at(c, off);

	if (prev && fc_entry_at(c, prev)->next != off) {
		struct fc_entry *p = fc_entry_at(c, prev);
		p->other = p->next;
		p->next = off;
	}
	if (prev2 && fc_entry_at(c, prev2)->next2 != off)
		fc_entry_at(c, prev2)->next2 = off;
	c->prev = off;
	c->prev2 = prev;
	if (e->next2)
		__builtin_prefetch(c->arena + e->next2);
	return e;
}

/*
 * The entry of a frame line seen before, or NULL: its names' id and
 * length, and whether the line adds a frame at all (FC_GROUP).  Lines
 * come in the order of a stack, and the line after one is first guessed
 * from what followed it before.  On an input whose lines hardly repeat,
 * the cache stands aside for a while, and finds nothing.
 */
FC_INLINE const struct fc_entry *frame_cache_get(struct frame_cache *c, bool java, const char *line,
						 size_t len)
{
	uint32_t prev = c->prev, prev2 = c->prev2, flags = java ? FC_JAVA : 0, next;

	c->prev = c->prev2 = c->missed_after = c->missed_after2 = 0;
	if (len > FC_LINE_MAX)
		return NULL;
	if (c->paused) {
		c->paused--;
		return NULL;
	}
	if (++c->lookups == FC_WINDOW) {
		if (c->hits < FC_WINDOW / 8)
			c->paused = FC_PAUSE_WINDOWS * FC_WINDOW;
		c->lookups = c->hits = 0;
	}
	/* The line that followed the last one last time; the one two lines
	 * after the one before (a caller seen before, over a callee that
	 * was not); the line that followed the last one the time before (a
	 * function called from two places). */
	if (prev && (((next = fc_entry_at(c, prev)->next) &&
		      fc_is_entry_of(fc_entry_at(c, next), flags, line, len)) ||
		     (prev2 && (next = fc_entry_at(c, prev2)->next2) &&
		      fc_is_entry_of(fc_entry_at(c, next), flags, line, len)) ||
		     ((next = fc_entry_at(c, prev)->other) &&
		      fc_is_entry_of(fc_entry_at(c, next), flags, line, len)))) {
		c->hits++;
		return fc_follows(c, next, prev, prev2);
	}
	return frame_cache_lookup(c, java, line, len, prev, prev2);
}

#endif
