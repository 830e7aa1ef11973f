/* big_zalloc/big_zrealloc (common/big_alloc.h): contents kept and new
 * bytes zero across the heap, a huge-page mapping, growth inside it and a
 * move to a greater one; and under AddressSanitizer the bytes past an
 * array's end poisoned at each step, clean again once freed. */
#include "unit.h"

#include <stdbool.h>

#include "big_alloc.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

static bool all(const unsigned char *p, size_t from, size_t to, unsigned char v)
{
	for (size_t i = from; i < to; i++)
		if (p[i] != v)
			return false;
	return true;
}

/* Sizes from the heap (under 512 KiB) to one huge page, within it, and
 * past it (the pages move). */
static const size_t sizes[] = { 1000, 600 << 10, 1 << 20, 5 << 20 };

TEST(grows_zeroed_keeping_its_bytes)
{
	unsigned char *p = big_zalloc(sizes[0]);
	size_t old = 0;

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		if (k)
			p = big_zrealloc(p, old, sizes[k]);
		CHECK(all(p, 0, old, 0xa5));
		CHECK(all(p, old, sizes[k], 0));
		memset(p, 0xa5, sizes[k]);
		old = sizes[k];
	}
	big_free(p, old);
}

/* Only a sanitizer build has the test: the plain build has no poison to
 * look at, and a skip in every plain run would say nothing. */
#if defined(__SANITIZE_ADDRESS__)
TEST(past_the_end_is_poisoned)
{
	unsigned char *p = big_zalloc(sizes[0]);
	size_t old = sizes[0];

	for (size_t k = 1; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		unsigned char *was = p;
		p = big_zrealloc(p, old, sizes[k]);
		CHECK(__asan_region_is_poisoned(p, sizes[k]) == NULL);
		CHECK(__asan_address_is_poisoned(p + sizes[k]));
		CHECK(__asan_address_is_poisoned(p + sizes[k] + 4096));
		/* A mapping moved away from is clean for the next one. */
		if (was != p && old >= (512 << 10))
			CHECK(__asan_region_is_poisoned(was, old + 4096) == NULL);
		old = sizes[k];
	}
	big_free(p, old);
	CHECK(__asan_region_is_poisoned(p, old + 4096) == NULL);
}
#endif
