/*
 * Stacks by the ids of their frames' names, so that a sample seen before
 * finds its stack's entry in the aggregate without its text being built.
 *
 * A sample's folded stack is some 1.5 KB of text on a real system-wide
 * profile: building it, hashing it and comparing it with the stack in
 * the aggregate cost more than all its frame lines' lookups.  The frame
 * cache gives each frame line the id of its folded names instead, and a
 * sample is then the ids of its thread's name and of its frames: a tenth
 * of the bytes to hash and compare.  The text is built, and added to the
 * aggregate, only the first time a sequence of ids is seen; what the
 * sequence maps to is that text's entry there, so counts, their
 * saturation and the stacks' order stay the aggregate's alone.
 *
 * The sequence is hashed as it comes, an id at a time.  A slot leads
 * straight to the sequence, stored with the aggregate index: two memory
 * accesses a sample, where a general table takes three.  (Fetching the
 * slot ahead at each frame, for a stack that might end there, was tried:
 * no faster.)
 *
 * The names are interned for the run: ids stay valid when the frame cache
 * starts over.  Both tables grow with what is distinct in the input (frame
 * names, stacks), not with its length.
 */
#include <stdlib.h>
#include <string.h>

#include "big_alloc.h"
#include "diag.h"
#include "fold.h"

/* A record in s->recs: the sequence's length, its aggregate index, then
 * its ids.  A slot holds a tag (the hash's low half, mixed) and the
 * record's offset in s->recs; 0 is an empty slot. */
enum { REC_N, REC_AGG, REC_IDS };

static size_t nslots(const struct stack_ids *s)
{
	return (size_t)1 << (64 - s->shift);
}

struct stack_ids *stack_ids_new(void)
{
	struct stack_ids *s = xcalloc(1, sizeof(*s));

	s->names = htab_new();
	s->shift = 64 - 10;
	s->slots = big_zalloc(nslots(s) * sizeof(*s->slots));
	s->recs_cap = 1024;
	s->recs = big_zalloc(s->recs_cap * sizeof(*s->recs));
	s->recs_len = 1; /* offset 0 is no record */
	return s;
}

void stack_ids_free(struct stack_ids *s)
{
	if (!s)
		return;
	htab_free(s->names);
	big_free(s->slots, nslots(s) * sizeof(*s->slots));
	big_free(s->recs, s->recs_cap * sizeof(*s->recs));
	free(s);
}

uint32_t stack_ids_name(struct stack_ids *s, const char *text, size_t len)
{
	const struct htab_entry *e = htab_upsert(s->names, text, len, NULL);

	if (htab_count(s->names) > STACK_IDS_MAX)
		errx(EXIT_USAGE, "more than %u distinct frame names", STACK_IDS_MAX);
	return (uint32_t)(e - htab_entries(s->names));
}

const char *stack_ids_text(struct stack_ids *s, uint32_t id, size_t *len)
{
	const struct htab_entry *e = &htab_entries(s->names)[id];

	*len = e->len;
	return e->key;
}

/* The tag of hash h: its low half is what the multiplications mixed
 * least, so it is mixed again. */
static uint32_t tag_of(uint64_t h)
{
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(h >> 32) | 1; /* never 0 */
}

static void grow(struct stack_ids *s)
{
	unsigned shift = s->shift - 1;
	size_t n = (size_t)1 << (64 - shift), mask = n - 1;
	uint64_t *slots = big_zalloc(n * sizeof(*slots));

	for (size_t i = 0; i < nslots(s); i++) {
		if (!s->slots[i])
			continue;
		const uint32_t *r = s->recs + (uint32_t)s->slots[i];
		uint64_t h = STACK_IDS_SEED;
		for (uint32_t k = 0; k < r[REC_N]; k++)
			h = stack_ids_mix(h, r[REC_IDS + k]);
		size_t j = (size_t)(h >> shift);
		while (slots[j])
			j = (j + 1) & mask;
		slots[j] = s->slots[i];
	}
	big_free(s->slots, nslots(s) * sizeof(*s->slots));
	s->slots = slots;
	s->shift = shift;
}

uint32_t *stack_ids_find(struct stack_ids *s, const uint32_t *ids, size_t n, uint64_t h,
			 bool *created)
{
	size_t mask = nslots(s) - 1, i = (size_t)(h >> s->shift);
	uint64_t tag = tag_of(h);
	uint32_t *r;

	for (;; i = (i + 1) & mask) {
		uint64_t slot = s->slots[i];
		if (!slot)
			break;
		r = s->recs + (uint32_t)slot;
		if (slot >> 32 == tag && r[REC_N] == n &&
		    memcmp(r + REC_IDS, ids, n * sizeof(*ids)) == 0) {
			*created = false;
			return r + REC_AGG;
		}
	}
	if (n > UINT32_MAX - REC_IDS || s->recs_len + REC_IDS + n > UINT32_MAX)
		errx(EXIT_USAGE, "more than 16 GiB of distinct stacks");
	while (s->recs_cap - s->recs_len < REC_IDS + n) {
		s->recs = big_zrealloc(s->recs, s->recs_cap * sizeof(*s->recs),
				       2 * s->recs_cap * sizeof(*s->recs));
		s->recs_cap *= 2;
	}
	r = s->recs + s->recs_len;
	r[REC_N] = (uint32_t)n;
	r[REC_AGG] = 0;
	memcpy(r + REC_IDS, ids, n * sizeof(*ids));
	s->slots[i] = tag << 32 | s->recs_len;
	s->recs_len += REC_IDS + n;
	/* The load stays under a half, so probes stay short. */
	if (++s->nstacks * 2 > mask + 1) {
		grow(s);
		/* The record did not move. */
	}
	*created = true;
	return r + REC_AGG;
}
