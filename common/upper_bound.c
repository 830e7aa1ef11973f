#include "upper_bound.h"

#include <string.h>

size_t upper_bound(size_t n, uint64_t x, uint64_t (*key)(const void *ctx, size_t i),
		   const void *ctx)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (key(ctx, mid) <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct field_array {
	const char *base;
	size_t size, offset;
};

static uint64_t field_key(const void *ctx, size_t i)
{
	const struct field_array *a = ctx;
	uint64_t k;

	memcpy(&k, a->base + i * a->size + a->offset, sizeof(k));
	return k;
}

size_t upper_bound_field(const void *base, size_t n, size_t size, size_t offset, uint64_t x)
{
	return upper_bound(n, x, field_key, &(struct field_array){ base, size, offset });
}
