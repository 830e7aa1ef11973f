/*
 * A cache from frame lines to their folded names, as the ids stack_ids.c
 * gives them.
 *
 * A profile repeats the same few thousand frame lines millions of times,
 * and a frame line's folded name depends only on the line, the options and
 * whether the process is "java".  Looking the line up costs one hash and
 * one compare, several times less than parsing and tidying it again.
 *
 * The cache is direct-mapped: a line goes to one slot chosen by its hash
 * and replaces what was there.  A lookup is bound by memory latency more
 * than by the hash, so a slot is 8 bytes (a tag and where its entry is),
 * a table that stays in the CPU's caches; the entries are packed in
 * insertion order into one arena, where the hot lines, seen first, sit
 * together.  A replaced entry stays in the arena until the arena is full;
 * then the cache starts over, empty, so its size is bounded.  On an input
 * whose lines hardly repeat, the cache notices that it misses and stands
 * aside for a while, so it costs next to nothing there.
 *
 * Most lines are not looked up at all: a function is called from the
 * same place most of the time, so the frame line after a given one is
 * most often the one that followed it last time.  Each entry remembers
 * that one, and a line is first compared with it, already fetched while
 * the line before was used: no hash, and no slot to wait for.
 */
#include <stdlib.h>
#include <string.h>
/* Inlined: the lines hashed are short, where a call and its dispatch on
 * the length cost as much as the hash. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "diag.h"
#include "fold.h"

#define SLOTS (1u << 16)
#define SLOT_MAX_BYTES 4096 /* longer lines are not cached */
/* Nor are lines whose names are longer ("[unknown]->..." names the dso
 * once a piece): their names would stay in stack_ids' table. */
#define NAMES_MAX_BYTES (4 * SLOT_MAX_BYTES)
#define ARENA_FIRST (64u << 10)
#define ARENA_MAX (16u << 20) /* past this the cache starts over */
#define WINDOW 65536          /* lookups between two hit-rate checks */
#define PAUSE_WINDOWS 16      /* windows to stand aside after a poor one */

struct slot {
	uint32_t tag; /* the hash's high half */
	uint32_t off; /* the entry's offset in the arena; 0: empty */
};

/* In the arena, followed by the line. */
struct entry {
	uint32_t klen; /* the line's length, with the flags below */
	uint32_t tlen; /* its folded names' length */
	uint32_t id;   /* their id */
	uint32_t next; /* the entry of the line that followed it last; 0: none */
};

#define ENTRY_GROUP (1u << 31) /* the line adds a frame */
#define ENTRY_JAVA (1u << 30)  /* the line is a java process's */

struct frame_cache {
	struct slot *slots;
	char *arena;
	size_t used, cap;
	uint32_t lookups, hits, paused;
	/* The entry of the line looked up last, and on a miss, the one
	 * before it, for the line's entry once it is put. */
	uint32_t prev, missed_after;
};

/* Offset 0 marks an empty slot: the arena's first entry starts after. */
#define ARENA_START 8

struct frame_cache *frame_cache_new(void)
{
	struct frame_cache *c = xcalloc(1, sizeof(*c));

	c->slots = xcalloc(SLOTS, sizeof(*c->slots));
	c->cap = ARENA_FIRST;
	c->arena = xmalloc(c->cap);
	c->used = ARENA_START;
	return c;
}

void frame_cache_free(struct frame_cache *c)
{
	if (!c)
		return;
	free(c->arena);
	free(c->slots);
	free(c);
}

static uint64_t line_hash(bool java, const char *line, size_t len)
{
	return XXH3_64bits_withSeed(line, len, java);
}

/* memcmp() == 0 for the short lengths of frame lines, without a call:
 * sixteen bytes at a time (eight without SSE2), the last ones
 * overlapping the others. */
static bool same_bytes(const char *a, const char *b, size_t n)
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

/* Counts a lookup; returns false while the cache stands aside. */
static bool active(struct frame_cache *c)
{
	if (c->paused) {
		c->paused--;
		return false;
	}
	if (++c->lookups == WINDOW) {
		if (c->hits < WINDOW / 8)
			c->paused = PAUSE_WINDOWS * WINDOW;
		c->lookups = c->hits = 0;
	}
	return true;
}

static struct entry *entry_at(const struct frame_cache *c, uint32_t off)
{
	return (struct entry *)(c->arena + off);
}

static bool is_entry_of(const struct entry *e, uint32_t flags, const char *line, size_t len)
{
	return (e->klen & ~ENTRY_GROUP) == (flags | (uint32_t)len) &&
	       same_bytes((const char *)(e + 1), line, len);
}

/* The line of entry off is the one looked up: it follows c->prev's. */
static const struct entry *hit(struct frame_cache *c, uint32_t off)
{
	const struct entry *e = entry_at(c, off);

	c->hits++;
	c->prev = off;
	if (e->next)
		__builtin_prefetch(c->arena + e->next);
	return e;
}

void frame_cache_restart(struct frame_cache *c)
{
	c->prev = c->missed_after = 0;
}

bool frame_cache_get(struct frame_cache *c, bool java, const char *line,
		     size_t len, uint32_t *id, size_t *tlen, bool *group)
{
	uint32_t flags = java ? ENTRY_JAVA : 0, prev = c->prev;
	const struct entry *e = NULL;
	uint64_t h;
	const struct slot *s;

	c->prev = c->missed_after = 0;
	if (len > SLOT_MAX_BYTES || !active(c))
		return false;
	if (prev) {
		uint32_t next = entry_at(c, prev)->next;
		if (next && is_entry_of(entry_at(c, next), flags, line, len))
			e = hit(c, next);
	}
	if (!e) {
		h = line_hash(java, line, len);
		s = &c->slots[h & (SLOTS - 1)];
		if (!s->off || s->tag != (uint32_t)(h >> 32) ||
		    !is_entry_of(entry_at(c, s->off), flags, line, len)) {
			c->missed_after = prev;
			return false;
		}
		if (prev)
			entry_at(c, prev)->next = s->off;
		e = hit(c, s->off);
	}
	*group = e->klen & ENTRY_GROUP;
	*id = e->id;
	*tlen = e->tlen;
	return true;
}

bool frame_cache_takes(const struct frame_cache *c, size_t len, size_t tlen)
{
	return !c->paused && len <= SLOT_MAX_BYTES && tlen <= NAMES_MAX_BYTES;
}

void frame_cache_put(struct frame_cache *c, bool java, const char *line,
		     size_t len, uint32_t id, size_t tlen, bool group)
{
	struct entry e = {
		.klen = (uint32_t)len | (group ? ENTRY_GROUP : 0) | (java ? ENTRY_JAVA : 0),
		.tlen = (uint32_t)tlen,
		.id = id,
	};
	size_t need = (sizeof(e) + len + 7) & ~(size_t)7;
	uint32_t after = c->missed_after;
	uint64_t h;
	struct slot *s;

	c->prev = c->missed_after = 0;
	if (!frame_cache_takes(c, len, tlen))
		return;
	if (c->cap - c->used < need) {
		if (c->cap < ARENA_MAX) {
			c->cap *= 2;
			c->arena = xrealloc(c->arena, c->cap);
		} else {
			/* Every entry goes, and with them what followed
			 * what. */
			memset(c->slots, 0, SLOTS * sizeof(*c->slots));
			c->used = ARENA_START;
			after = 0;
		}
	}
	h = line_hash(java, line, len);
	s = &c->slots[h & (SLOTS - 1)];
	s->tag = (uint32_t)(h >> 32);
	s->off = (uint32_t)c->used;
	memcpy(c->arena + c->used, &e, sizeof(e));
	memcpy(c->arena + c->used + sizeof(e), line, len);
	if (after)
		entry_at(c, after)->next = s->off;
	c->prev = s->off;
	c->used += need;
}
