#include "name_table.h"

#include <stdlib.h>
#include <string.h>
/* Inlined: names are short, where a call and its dispatch on the length
 * cost as much as the hash. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "big_alloc.h"
#include "diag.h"
#include "tagged_slots.h"

/* A record: this header, then the name's bytes, up to a multiple of 8.
 * A slot finds a record by its offset in units of 8 bytes: 32 bits of it
 * reach 32 GiB of names. */
struct record {
	uint32_t len;
	uint32_t id;
};

#define UNIT 8
/* Unit 0 marks an empty slot: the first record starts after it. */
#define FIRST_RECORD UNIT

struct name_table {
	/* A slot (tagged_slots.h): its name's hash, and its record's unit. */
	uint64_t *slots;
	size_t nslots;
	char *records;
	size_t used, cap; /* bytes */
	uint32_t *unit_of; /* id -> its record's unit */
	size_t count, ids_cap;
};

struct name_table *nt_new(void)
{
	struct name_table *t = xcalloc(1, sizeof(*t));

	t->nslots = 1024;
	t->slots = big_zalloc(t->nslots * sizeof(*t->slots));
	t->cap = 16 << 10;
	t->records = big_zalloc(t->cap);
	t->used = FIRST_RECORD;
	return t;
}

void nt_free(struct name_table *t)
{
	if (!t)
		return;
	big_free(t->slots, t->nslots * sizeof(*t->slots));
	big_free(t->records, t->cap);
	big_free(t->unit_of, t->ids_cap * sizeof(*t->unit_of));
	free(t);
}

/* Room for names names of bytes bytes in all, at once: grown a step at a
 * time, the slots and records of a deep profile's names went through
 * their sizes on the heap first, a page fault for each of their 4 KiB
 * pages, some 250 of them. */
void nt_reserve(struct name_table *t, size_t names, size_t bytes)
{
	size_t nslots = t->nslots, cap = t->cap;

	if (names > UINT32_MAX / 2)
		names = UINT32_MAX / 2;
	while (nslots < 2 * names)
		nslots *= 2;
	if (nslots > t->nslots) {
		t->slots = slots_resize(t->slots, t->nslots, nslots);
		t->nslots = nslots;
	}
	bytes += names * sizeof(struct record);
	while (cap < bytes && cap / UNIT < UINT32_MAX / 2)
		cap *= 2;
	if (cap > t->cap) {
		t->records = big_zrealloc(t->records, t->cap, cap);
		t->cap = cap;
	}
	if (names > t->ids_cap) {
		t->unit_of = big_zrealloc(t->unit_of, t->ids_cap * sizeof(*t->unit_of),
					  names * sizeof(*t->unit_of));
		t->ids_cap = names;
	}
}

static inline const struct record *record_at(const struct name_table *t, uint64_t slot)
{
	return (const struct record *)(t->records + (size_t)(uint32_t)slot * UNIT);
}

/* Adds the record of a name not there, for the empty slot i. */
static uint32_t add(struct name_table *t, size_t i, uint64_t h, const char *s, size_t len)
{
	size_t need = sizeof(struct record) + ((len + UNIT - 1) & ~(size_t)(UNIT - 1));
	struct record *r;

	if (len > UINT32_MAX || t->count >= UINT32_MAX)
		errx(EXIT_USAGE, "too many frame names");
	if (t->cap - t->used < need) {
		size_t cap = t->cap;
		while (cap - t->used < need)
			cap *= 2;
		if (cap / UNIT > UINT32_MAX)
			errx(EXIT_USAGE, "too many frame names");
		t->records = big_zrealloc(t->records, t->cap, cap);
		t->cap = cap;
	}
	if (t->count == t->ids_cap) {
		size_t n = t->ids_cap ? 2 * t->ids_cap : 1024;
		t->unit_of = big_zrealloc(t->unit_of, t->ids_cap * sizeof(*t->unit_of),
					  n * sizeof(*t->unit_of));
		t->ids_cap = n;
	}
	r = (struct record *)(t->records + t->used);
	r->len = (uint32_t)len;
	r->id = (uint32_t)t->count;
	memcpy(r + 1, s, len);
	t->unit_of[t->count] = (uint32_t)(t->used / UNIT);
	t->slots[i] = SLOT_TAG(h) | t->unit_of[t->count];
	t->used += need;
	/* The load stays under a half, so probes stay short. */
	if (++t->count * 2 > t->nslots) {
		t->slots = slots_grow(t->slots, t->nslots);
		t->nslots *= 2;
	}
	return r->id;
}

static uint32_t intern_hashed(struct name_table *t, const char *s, size_t len, uint64_t h,
			      bool *created)
{
	size_t mask = t->nslots - 1, i = slot_home(h, t->nslots);

	for (;; i = (i + 1) & mask) {
		uint64_t v = t->slots[i];
		if (!v)
			break;
		if (SLOT_TAG(v) != SLOT_TAG(h))
			continue;
		const struct record *r = record_at(t, v);
		if (r->len == len && memcmp(r + 1, s, len) == 0) {
			*created = false;
			return r->id;
		}
	}
	*created = true;
	return add(t, i, h, s, len);
}

uint32_t nt_intern(struct name_table *t, const char *s, size_t len, bool *created)
{
	return intern_hashed(t, s, len, XXH3_64bits(s, len), created);
}

void nt_intern_many(struct name_table *t, struct nt_key *keys, size_t n, uint32_t *ids,
		    bool *created)
{
	size_t i;

	for (i = 0; i < n; i++) {
		keys[i].hash = XXH3_64bits(keys[i].s, keys[i].len);
		__builtin_prefetch(&t->slots[slot_home(keys[i].hash, t->nslots)]);
	}
	for (i = 0; i < n; i++) {
		uint64_t v = t->slots[slot_home(keys[i].hash, t->nslots)];
		if (v && SLOT_TAG(v) == SLOT_TAG(keys[i].hash))
			__builtin_prefetch(record_at(t, v));
	}
	for (i = 0; i < n; i++)
		ids[i] = intern_hashed(t, keys[i].s, keys[i].len, keys[i].hash, &created[i]);
}

const char *nt_name(const struct name_table *t, uint32_t id, size_t *len)
{
	const struct record *r = record_at(t, t->unit_of[id]);

	*len = r->len;
	return (const char *)(r + 1);
}

size_t nt_count(const struct name_table *t)
{
	return t->count;
}
