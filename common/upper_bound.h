/*
 * The lookup of every table of address ranges (symbols, JIT functions,
 * DWARF scopes): in entries sorted by start address, the last one starting
 * at or below an address.
 */
#ifndef PROF_UPPER_BOUND_H
#define PROF_UPPER_BOUND_H

#include <stddef.h>
#include <stdint.h>

/* Of n keys in ascending order, key(ctx, i) the i-th, the index of the
 * first above x: the last at or below x is the one before it, and there is
 * none when it is 0. */
size_t upper_bound(size_t n, uint64_t x, uint64_t (*key)(const void *ctx, size_t i),
		   const void *ctx);

/* The same over array[0..n), sorted by its uint64_t member field. */
#define UPPER_BOUND(array, n, field, x)                                                     \
	upper_bound_field((array), (n), sizeof(*(array)),                                    \
			  _Generic((array)->field, uint64_t: offsetof(__typeof__(*(array)), field)), \
			  (x))

size_t upper_bound_field(const void *base, size_t n, size_t size, size_t offset, uint64_t x);

#endif
