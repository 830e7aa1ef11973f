/*
 * A cache from frame lines to their folded names.
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
 */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "diag.h"
#include "fold.h"

#define SLOTS (1u << 16)
#define SLOT_MAX_BYTES 4096 /* longer lines are not cached */
#define ARENA_FIRST (64u << 10)
#define ARENA_MAX (16u << 20) /* past this the cache starts over */
#define WINDOW 65536          /* lookups between two hit-rate checks */
#define PAUSE_WINDOWS 16      /* windows to stand aside after a poor one */

struct slot {
	uint32_t tag; /* the hash's high half */
	uint32_t off; /* the entry's offset in the arena; 0: empty */
};

/* In the arena, followed by the line, then its folded names. */
struct entry {
	uint32_t klen, tlen;
	bool group;
};

struct frame_cache {
	struct slot *slots;
	char *arena;
	size_t used, cap;
	uint32_t lookups, hits, paused;
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

bool frame_cache_get(struct frame_cache *c, bool java, const char *line,
		     size_t len, const char **text, size_t *tlen, bool *group)
{
	uint64_t h;
	const struct slot *s;
	struct entry e;
	const char *key;

	if (len > SLOT_MAX_BYTES || !active(c))
		return false;
	h = line_hash(java, line, len);
	s = &c->slots[h & (SLOTS - 1)];
	if (!s->off || s->tag != (uint32_t)(h >> 32))
		return false;
	memcpy(&e, c->arena + s->off, sizeof(e));
	key = c->arena + s->off + sizeof(e);
	if (e.klen != len || memcmp(key, line, len) != 0)
		return false;
	c->hits++;
	*group = e.group;
	*tlen = e.tlen;
	*text = key + e.klen;
	return true;
}

void frame_cache_put(struct frame_cache *c, bool java, const char *line,
		     size_t len, const char *text, size_t tlen, bool group)
{
	struct entry e = { .klen = (uint32_t)len, .tlen = (uint32_t)tlen, .group = group };
	size_t need = (sizeof(e) + len + tlen + 7) & ~(size_t)7;
	uint64_t h;
	struct slot *s;

	if (c->paused || len > SLOT_MAX_BYTES || tlen > SLOT_MAX_BYTES * 4)
		return;
	if (c->cap - c->used < need) {
		if (c->cap < ARENA_MAX) {
			c->cap *= 2;
			c->arena = xrealloc(c->arena, c->cap);
		} else {
			memset(c->slots, 0, SLOTS * sizeof(*c->slots));
			c->used = ARENA_START;
		}
	}
	h = line_hash(java, line, len);
	s = &c->slots[h & (SLOTS - 1)];
	s->tag = (uint32_t)(h >> 32);
	s->off = (uint32_t)c->used;
	memcpy(c->arena + c->used, &e, sizeof(e));
	memcpy(c->arena + c->used + sizeof(e), line, len);
	if (tlen)
		memcpy(c->arena + c->used + sizeof(e) + len, text, tlen);
	c->used += need;
}
