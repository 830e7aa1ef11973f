/* sort_array (common/sort.h): qsort's order, and an empty table that never
 * allocated its array, which qsort itself may not be given (UBSan's
 * nonnull-attribute check stops the sanitizer build on it). */
#include "unit.h"

#include "sort.h"

static int ascending(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* What fails here is the sanitizer build, which stops on qsort(NULL, 0). */
TEST(an_empty_table_without_an_array)
{
	int *none = NULL;

	sort_array(none, 0, sizeof(*none), ascending);
}

TEST(in_order)
{
	int v[] = { 5, -1, 3, 3, 0 };

	sort_array(v, 5, sizeof(*v), ascending);
	CHECK_INT(v[0], -1);
	CHECK_INT(v[1], 0);
	CHECK_INT(v[2], 3);
	CHECK_INT(v[3], 3);
	CHECK_INT(v[4], 5);
}
