/* upper_bound (common/upper_bound.c): the index past the last key at or
 * below x, at the edges and among equal keys. */
#include "unit.h"

#include "upper_bound.h"

struct range {
	uint32_t tag;
	uint64_t start;
};

static const struct range ranges[] = { { 1, 10 }, { 2, 20 }, { 3, 20 }, { 4, 20 }, { 5, 30 } };

TEST(field_keys_at_every_edge)
{
	CHECK_INT(UPPER_BOUND(ranges, 0, start, 99), 0);
	CHECK_INT(UPPER_BOUND(ranges, 5, start, 0), 0);
	CHECK_INT(UPPER_BOUND(ranges, 5, start, 9), 0);
	CHECK_INT(UPPER_BOUND(ranges, 5, start, 10), 1);
	CHECK_INT(UPPER_BOUND(ranges, 5, start, 19), 1);
	/* Past every equal key: the last of them is the one before. */
	CHECK_INT(UPPER_BOUND(ranges, 5, start, 20), 4);
	CHECK_INT(UPPER_BOUND(ranges, 5, start, 29), 4);
	CHECK_INT(UPPER_BOUND(ranges, 5, start, 30), 5);
	CHECK_INT(UPPER_BOUND(ranges, 5, start, UINT64_MAX), 5);
}

/* Keys reached through an index, as a table sorted by reference. */
static uint64_t indexed(const void *ctx, size_t i)
{
	static const uint64_t keys[] = { 300, 100, 200 };
	const uint32_t *order = ctx;

	return keys[order[i]];
}

TEST(keys_through_a_function)
{
	static const uint32_t order[] = { 1, 2, 0 };

	CHECK_INT(upper_bound(3, 99, indexed, order), 0);
	CHECK_INT(upper_bound(3, 100, indexed, order), 1);
	CHECK_INT(upper_bound(3, 250, indexed, order), 2);
	CHECK_INT(upper_bound(3, 300, indexed, order), 3);
}
