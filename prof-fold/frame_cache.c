/*
 * A cache from frame lines to their folded names.
 *
 * A profile repeats the same few thousand frame lines millions of times,
 * and a frame line's folded name depends only on the line, the options and
 * whether the process is "java".  Looking the line up costs one hash and
 * one compare, several times less than parsing and tidying it again.
 *
 * The cache is direct-mapped: a line goes to one slot chosen by its hash
 * and replaces what was there, so its size is fixed.  On an input whose
 * lines hardly repeat, the cache notices that it misses and stands aside
 * for a while, so it costs next to nothing there.
 */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "diag.h"
#include "fold.h"

#define SLOTS (1u << 16)
#define SLOT_MAX_BYTES 4096 /* longer lines are not cached */
#define WINDOW 65536        /* lookups between two hit-rate checks */
#define PAUSE_WINDOWS 16    /* windows to stand aside after a poor one */

struct slot {
	uint64_t hash;
	uint32_t klen, tlen, cap;
	bool used, group;
	char *data; /* the line, then its folded names */
};

struct frame_cache {
	struct slot *slots;
	uint32_t lookups, hits, paused;
};

struct frame_cache *frame_cache_new(void)
{
	struct frame_cache *c = xcalloc(1, sizeof(*c));

	c->slots = xcalloc(SLOTS, sizeof(*c->slots));
	return c;
}

void frame_cache_free(struct frame_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < SLOTS; i++)
		free(c->slots[i].data);
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
	struct slot *s;

	if (len > SLOT_MAX_BYTES || !active(c))
		return false;
	h = line_hash(java, line, len);
	s = &c->slots[h & (SLOTS - 1)];
	if (!s->used || s->hash != h || s->klen != len ||
	    memcmp(s->data, line, len) != 0)
		return false;
	c->hits++;
	*group = s->group;
	*tlen = s->tlen;
	*text = s->data + s->klen;
	return true;
}

void frame_cache_put(struct frame_cache *c, bool java, const char *line,
		     size_t len, const char *text, size_t tlen, bool group)
{
	uint64_t h;
	struct slot *s;

	if (c->paused || len > SLOT_MAX_BYTES || tlen > SLOT_MAX_BYTES * 4)
		return;
	h = line_hash(java, line, len);
	s = &c->slots[h & (SLOTS - 1)];
	if (s->cap < len + tlen) {
		s->cap = (uint32_t)(len + tlen);
		free(s->data);
		s->data = xmalloc(s->cap);
	}
	s->used = true;
	s->hash = h;
	s->klen = (uint32_t)len;
	s->tlen = (uint32_t)tlen;
	s->group = group;
	memcpy(s->data, line, len);
	if (tlen)
		memcpy(s->data + len, text, tlen);
}
