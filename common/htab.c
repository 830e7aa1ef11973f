#include "htab.h"

#include <stdlib.h>
#include <string.h>
/* Inlined: most keys are short (symbols, frames, names), where a call
 * into the library and its dispatch on the length cost as much as the
 * hash. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "big_alloc.h"
#include "diag.h"

/* Keys are packed into blocks: per-key malloc would dominate both time
 * and RSS for the millions of short keys a fold can see.  The blocks start
 * small and double, since many tables stay small (prof-sample keeps one
 * per process it unwinds, hundreds at a time on a busy host), then take a
 * huge page at a time (big_alloc.h) once a quarter of one is in use.
 * Sizes count the block's header. */
#define ARENA_FIRST_BLOCK (1u << 12)
#define ARENA_BLOCK (2u << 20)

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	char data[];
};

/* Eight bytes, so that a slot miss brings in eight slots: the low half of
 * the hash tells a slot's home, and most other keys from this one,
 * without reading the entry. */
struct slot {
	uint32_t hash;
	uint32_t idx; /* entry index + 1; 0 marks an empty slot */
};

struct htab {
	struct slot *slots;
	size_t nslots; /* power of two */
	struct htab_entry *entries;
	size_t count, cap;
	struct arena_block *arena;
	size_t arena_bytes;
	size_t dead; /* key bytes of removed entries, still in the arena */
};

uint64_t htab_hash(const void *key, size_t len)
{
	return XXH3_64bits(key, len);
}

struct htab *htab_new(void)
{
	struct htab *h = xcalloc(1, sizeof(*h));

	h->nslots = 64;
	h->slots = big_zalloc(h->nslots * sizeof(*h->slots));
	return h;
}

void htab_free(struct htab *h)
{
	struct arena_block *b, *next;

	if (!h)
		return;
	for (b = h->arena; b; b = next) {
		next = b->next;
		big_free(b, sizeof(*b) + b->size);
	}
	big_free(h->slots, h->nslots * sizeof(*h->slots));
	big_free(h->entries, h->cap * sizeof(*h->entries));
	free(h);
}

void htab_free_values(struct htab *h, void (*free_value)(void *))
{
	if (!h)
		return;
	for (size_t i = 0; i < h->count; i++)
		free_value(h->entries[i].val.p);
	htab_free(h);
}

static size_t key_room(size_t len)
{
	return (len + 7) & ~(size_t)7;
}

static void *arena_copy(struct htab *h, const void *key, size_t len)
{
	struct arena_block *b = h->arena;
	size_t need = key_room(len);
	void *p;

	if (!b || b->size - b->used < need) {
		size_t size = h->arena_bytes < ARENA_FIRST_BLOCK ? ARENA_FIRST_BLOCK
			      : h->arena_bytes < ARENA_BLOCK / 4 ? h->arena_bytes
								 : ARENA_BLOCK;
		if (size - sizeof(*b) < need)
			size = sizeof(*b) + need;
		b = big_zalloc(size);
		b->size = size - sizeof(*b);
		b->used = 0;
		b->next = h->arena;
		h->arena = b;
		h->arena_bytes += size;
	}
	p = b->data + b->used;
	b->used += need;
	if (len)
		memcpy(p, key, len);
	return p;
}

/* Enough of the hash of s's key to find its home in nslots slots: past 2^32
 * slots, more than the slot keeps. */
static uint64_t home_hash(const struct htab *h, const struct slot *s, size_t nslots)
{
	return nslots >> 32 ? h->entries[s->idx - 1].hash : s->hash;
}

static struct slot *probe(struct htab *h, uint64_t hash, const void *key, size_t len)
{
	size_t mask = h->nslots - 1;

	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		struct slot *s = &h->slots[i];
		if (!s->idx)
			return s;
		if (s->hash == (uint32_t)hash) {
			struct htab_entry *e = &h->entries[s->idx - 1];
			if (e->hash == hash && e->len == len && memcmp(e->key, key, len) == 0)
				return s;
		}
	}
}

static void grow(struct htab *h)
{
	size_t n = h->nslots * 2, mask = n - 1;
	struct slot *slots = big_zalloc(n * sizeof(*slots));

	for (size_t i = 0; i < h->nslots; i++) {
		struct slot *s = &h->slots[i];
		if (!s->idx)
			continue;
		size_t j = home_hash(h, s, n) & mask;
		while (slots[j].idx)
			j = (j + 1) & mask;
		slots[j] = *s;
	}
	big_free(h->slots, h->nslots * sizeof(*h->slots));
	h->slots = slots;
	h->nslots = n;
}

struct htab_entry *htab_find(struct htab *h, const void *key, size_t len)
{
	struct slot *s = probe(h, htab_hash(key, len), key, len);

	return s->idx ? &h->entries[s->idx - 1] : NULL;
}

struct htab_entry *htab_upsert(struct htab *h, const void *key, size_t len,
			       bool *created)
{
	return htab_upsert_hashed(h, key, len, htab_hash(key, len), created);
}

struct htab_entry *htab_upsert_hashed(struct htab *h, const void *key, size_t len,
				      uint64_t hash, bool *created)
{
	struct slot *s = probe(h, hash, key, len);
	struct htab_entry *e;

	if (s->idx) {
		if (created)
			*created = false;
		return &h->entries[s->idx - 1];
	}
	if (len > UINT32_MAX)
		errx(EXIT_USAGE, "hash key of %zu bytes is too long", len);
	if (h->count == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 64;
		h->entries = big_zrealloc(h->entries, h->cap * sizeof(*h->entries),
					  cap * sizeof(*h->entries));
		h->cap = cap;
	}
	e = &h->entries[h->count++];
	e->key = arena_copy(h, key, len);
	e->len = (uint32_t)len;
	e->hash = hash;
	e->val.u = 0;
	s->hash = (uint32_t)hash;
	s->idx = (uint32_t)h->count;
	/* Keep the load factor under 1/2 so probes stay short. */
	if (h->count * 2 > h->nslots)
		grow(h);
	if (created)
		*created = true;
	return e;
}

/* The slot that points at entry index idx (there is exactly one). */
static struct slot *slot_of(struct htab *h, uint32_t idx)
{
	size_t mask = h->nslots - 1;

	for (size_t i = h->entries[idx].hash & mask;; i = (i + 1) & mask)
		if (h->slots[i].idx == idx + 1)
			return &h->slots[i];
}

/* A table that keeps removing and adding (prof-sample's processes, on a
 * host that forks all day) would grow its arena without end: once removed
 * keys hold most of it, the live ones move to a new arena of their own.
 * Each move copies fewer bytes than were removed since the last. */
static void compact(struct htab *h)
{
	struct arena_block *old = h->arena, *next;

	if (h->dead < ARENA_FIRST_BLOCK || h->dead < h->arena_bytes / 2)
		return;
	h->arena = NULL;
	h->arena_bytes = 0;
	h->dead = 0;
	for (size_t i = 0; i < h->count; i++)
		h->entries[i].key = arena_copy(h, h->entries[i].key, h->entries[i].len);
	for (; old; old = next) {
		next = old->next;
		big_free(old, sizeof(*old) + old->size);
	}
}

bool htab_remove(struct htab *h, const void *key, size_t len)
{
	struct slot *s = probe(h, htab_hash(key, len), key, len);
	size_t mask = h->nslots - 1, i, j;
	uint32_t idx, last = (uint32_t)h->count - 1;

	if (!s->idx)
		return false;
	idx = s->idx - 1;
	/* Backward-shift deletion keeps every probe sequence unbroken without
	 * tombstones: later slots of the cluster move up into the hole
	 * unless their home lies cyclically within (hole, slot]. */
	i = (size_t)(s - h->slots);
	h->slots[i].idx = 0;
	for (j = (i + 1) & mask; h->slots[j].idx; j = (j + 1) & mask) {
		size_t home = home_hash(h, &h->slots[j], h->nslots) & mask;
		if (((j - home) & mask) >= ((j - i) & mask)) {
			h->slots[i] = h->slots[j];
			h->slots[j].idx = 0;
			i = j;
		}
	}
	h->dead += key_room(h->entries[idx].len);
	/* Keep entries dense: the last one fills the gap. */
	if (idx != last) {
		slot_of(h, last)->idx = idx + 1;
		h->entries[idx] = h->entries[last];
	}
	h->count--;
	compact(h);
	return true;
}

size_t htab_remove_if(struct htab *h, bool (*drop)(struct htab_entry *e, void *arg), void *arg)
{
	size_t n = 0;

	for (size_t i = 0; i < h->count;) {
		struct htab_entry *e = &h->entries[i];
		char small[64];
		void *key;
		size_t len = e->len;

		if (!drop(e, arg)) {
			i++;
			continue;
		}
		/* The key is removed from a copy: the arena may move. */
		key = len <= sizeof(small) ? small : xmalloc(len);
		memcpy(key, e->key, len);
		htab_remove(h, key, len); /* moves the last entry to i */
		if (key != small)
			free(key);
		n++;
	}
	return n;
}

size_t htab_count(const struct htab *h)
{
	return h->count;
}

struct htab_entry *htab_entries(struct htab *h)
{
	return h->entries;
}

size_t htab_bytes(const struct htab *h)
{
	return h->arena_bytes + h->nslots * sizeof(struct slot) +
	       h->cap * sizeof(struct htab_entry);
}
