/*
 * The slots of prof-svg's two open-addressed tables (frame_tree.c's
 * children by (parent, name), name_table.c's names): 64 bits, the high
 * half of the key's hash, which also gives the slot's home, so that
 * growing never has to read what a slot points at, and 32 bits of
 * payload below, never 0: 0 is an empty slot.  Linear probing.
 */
#ifndef PROF_SVG_TAGGED_SLOTS_H
#define PROF_SVG_TAGGED_SLOTS_H

#include <stddef.h>
#include <stdint.h>

#define SLOT_TAG(h) ((h) & 0xffffffff00000000ull)

static inline size_t slot_home(uint64_t h, size_t nslots)
{
	return (size_t)(h >> 32) & (nslots - 1);
}

/* The nslots slots moved into n (a greater power of two; big_alloc.h),
 * which it returns; it frees the old ones. */
uint64_t *slots_resize(uint64_t *slots, size_t nslots, size_t n);

static inline uint64_t *slots_grow(uint64_t *slots, size_t nslots)
{
	return slots_resize(slots, nslots, 2 * nslots);
}

#endif
