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
 * Most lines are not looked up at all: a function is called from one or
 * two places most of the time, so the frame line after a given one is
 * most often one of the last two that followed it.  Each entry remembers
 * them, and a line is first compared with them: no hash, and no slot to
 * wait for.  It remembers the line two after it too, which is fetched
 * then, two lines ahead of its use: one line's work is less than a fetch
 * from the last-level cache takes.  On a capture of a busy host, 97% of
 * the lines after a stack's first are found so.
 */
#include <stdlib.h>
#include <string.h>
/* Inlined: the lines hashed are short, where a call and its dispatch on
 * the length cost as much as the hash. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "big_alloc.h"
#include "diag.h"
#include "frame_cache.h"

#define ARENA_FIRST (64u << 10)
#define ARENA_MAX (16u << 20) /* past this the cache starts over */
/* Offset 0 marks an empty slot: the arena's first entry starts after. */
#define ARENA_START 8

struct frame_cache *frame_cache_new(void)
{
	struct frame_cache *c = xcalloc(1, sizeof(*c));

	c->slots = big_zalloc(FC_SLOTS * sizeof(*c->slots));
	c->cap = ARENA_FIRST;
	c->arena = big_zalloc(c->cap);
	c->used = ARENA_START;
	return c;
}

void frame_cache_free(struct frame_cache *c)
{
	if (!c)
		return;
	big_free(c->arena, c->cap);
	big_free(c->slots, FC_SLOTS * sizeof(*c->slots));
	free(c);
}

static uint64_t line_hash(bool java, const char *line, size_t len)
{
	return XXH3_64bits_withSeed(line, len, java);
}

void frame_cache_restart(struct frame_cache *c)
{
	c->prev = c->prev2 = c->missed_after = c->missed_after2 = 0;
}

const struct fc_entry *frame_cache_lookup(struct frame_cache *c, bool java, const char *line,
					  size_t len, uint32_t prev, uint32_t prev2)
{
	uint64_t h = line_hash(java, line, len);
	const struct fc_slot *s = &c->slots[h & (FC_SLOTS - 1)];

	if (!s->off || s->tag != (uint32_t)(h >> 32) ||
	    !fc_is_entry_of(fc_entry_at(c, s->off), java ? FC_JAVA : 0, line, len)) {
		c->missed_after = prev;
		c->missed_after2 = prev2;
		return NULL;
	}
	c->hits++;
	return fc_follows(c, s->off, prev, prev2);
}

bool frame_cache_takes(const struct frame_cache *c, size_t len, size_t tlen)
{
	return !c->paused && len <= FC_LINE_MAX && tlen <= FC_NAMES_MAX;
}

void frame_cache_put(struct frame_cache *c, bool java, const char *line,
		     size_t len, uint32_t id, size_t tlen, bool group)
{
	struct fc_entry e = {
		.klen = (uint32_t)len | (group ? FC_GROUP : 0) | (java ? FC_JAVA : 0),
		.tlen = (uint32_t)tlen,
		.id = id,
	};
	size_t need = (sizeof(e) + len + 7) & ~(size_t)7;
	uint32_t after = c->missed_after, after2 = c->missed_after2;
	uint64_t h;
	struct fc_slot *s;

	frame_cache_restart(c);
	if (!frame_cache_takes(c, len, tlen))
		return;
	if (c->cap - c->used < need) {
		if (c->cap < ARENA_MAX) {
			c->arena = big_zrealloc(c->arena, c->cap, 2 * c->cap);
			c->cap *= 2;
		} else {
			/* Every entry goes, and with them what followed
			 * what. */
			memset(c->slots, 0, FC_SLOTS * sizeof(*c->slots));
			c->used = ARENA_START;
			after = after2 = 0;
		}
	}
	h = line_hash(java, line, len);
	s = &c->slots[h & (FC_SLOTS - 1)];
	s->tag = (uint32_t)(h >> 32);
	s->off = (uint32_t)c->used;
	memcpy(c->arena + c->used, &e, sizeof(e));
	memcpy(c->arena + c->used + sizeof(e), line, len);
	c->used += need;
	fc_follows(c, s->off, after, after2);
}
