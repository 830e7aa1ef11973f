/*
 * The stack table (prof-symbolize/stack_table.c): prof-sample's ids 1, 2,
 * 3... in an array, any other id in a hash table, and the same answers
 * whichever holds an id, including one first seen far off and then
 * reached by the array's growth.
 */
#include <stdlib.h>

#include "stack_table.h"
#include "unit.h"

static bool define(struct stack_table *t, uint32_t id, uint32_t nr, uint64_t first_ip)
{
	uint8_t le[8 * 4] = { 0 };

	for (uint32_t i = 0; i < nr; i++)
		for (int b = 0; b < 8; b++)
			le[8 * i + b] = (uint8_t)((first_ip + i) >> (8 * b));
	return stack_table_define(t, &(struct cap_stack){ .id = id, .nr = nr, .ips = le });
}

TEST(sequential_ids_are_dense_and_keep_their_frames)
{
	struct stack_table t;

	stack_table_init(&t);
	for (uint32_t id = 1; id <= 100000; id++)
		CHECK(define(&t, id, 1 + id % 4, (uint64_t)id << 8));
	CHECK(htab_count(t.sparse) == 0);
	for (uint32_t id = 1; id <= 100000; id += 997) {
		const struct stack_entry *e = stack_table_entry(&t, id, false);
		CHECK(e && e->defined);
		CHECK_INT(e->nr, 1 + id % 4);
		CHECK(stack_table_ips(&t, e)[e->nr - 1] == ((uint64_t)id << 8) + e->nr - 1);
	}
	CHECK(stack_table_entry(&t, 100001, false) == NULL);
	CHECK(!define(&t, 5, 1, 0)); /* defined twice: the first stays */
	CHECK(stack_table_ips(&t, stack_table_entry(&t, 5, false))[0] == 5 << 8);
	stack_table_free(&t, free);
}

TEST(far_ids_are_sparse_and_found_after_the_array_grows_past_them)
{
	struct stack_table t;
	struct stack_entry *e;

	stack_table_init(&t);
	CHECK(define(&t, 4000000000u, 2, 0x10));
	CHECK(define(&t, 20000, 1, 0x20));
	CHECK_INT(htab_count(t.sparse), 2);
	/* Named, not defined: an entry whose slot is taken. */
	e = stack_table_entry(&t, 30000, true);
	CHECK(e && !e->defined);
	e->slot_used = true;
	e->slot = malloc(1);
	for (uint32_t id = 1; id <= 20000; id++)
		if (id != 20000)
			CHECK(define(&t, id, 1, id));
	CHECK(t.ndense > 30000);
	e = stack_table_entry(&t, 20000, false);
	CHECK(e && e->defined && stack_table_ips(&t, e)[0] == 0x20);
	CHECK(!define(&t, 20000, 1, 0));
	e = stack_table_entry(&t, 30000, true);
	CHECK(e && e->slot_used && !e->defined);
	CHECK(define(&t, 30000, 1, 0x30)); /* defined after it was named */
	CHECK(stack_table_entry(&t, 30000, false)->slot_used);
	CHECK(stack_table_ips(&t, stack_table_entry(&t, 4000000000u, false))[1] == 0x11);
	CHECK(stack_table_entry(&t, 4000000001u, false) == NULL);
	stack_table_free(&t, free);
}
