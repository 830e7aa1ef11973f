/* python_line on line tables of both formats, built here byte by byte as
 * CPython writes them: each range's line, ranges without one, and tables
 * cut short or corrupt, which say nothing rather than something wrong. */
#include "unit.h"

#include "python_lines.h"

/* 3.10 (PEP 626): (bytes, line delta) pairs; -128 is no line. */
static const uint8_t table_310[] = { 6, 0, 4, 1, 2, (uint8_t)-128, 8, 2 };

TEST(pairs_of_310)
{
	CHECK_INT(python_line(PY_310, table_310, sizeof(table_310), 10, 0), 10);
	CHECK_INT(python_line(PY_310, table_310, sizeof(table_310), 10, 5), 10);
	CHECK_INT(python_line(PY_310, table_310, sizeof(table_310), 10, 6), 11);
	CHECK_INT(python_line(PY_310, table_310, sizeof(table_310), 10, 10), 0);
	CHECK_INT(python_line(PY_310, table_310, sizeof(table_310), 10, 12), 13);
	CHECK_INT(python_line(PY_310, table_310, sizeof(table_310), 10, 19), 13);
	/* Past the table, or in what was cut from it: not known. */
	CHECK_INT(python_line(PY_310, table_310, sizeof(table_310), 10, 20), 0);
	CHECK_INT(python_line(PY_310, table_310, 4, 10, 12), 0);
}

/* 3.11+: entries of 0x80 | code << 3 | (units - 1). */
static const uint8_t table_311[] = {
	0x80 | 13 << 3 | 1, 0x04,		  /* 2 units, no column, +2 */
	0x80 | 15 << 3 | 0,			  /* 1 unit without a location */
	0x80 | 11 << 3 | 2, 0x01, 0x02,		  /* 3 units, one line, +1 */
	0x80 | 14 << 3 | 0, 0x07, 0x00, 0x01, 0x02, /* 1 unit, long form, -3 */
	0x80 | 3 << 3 | 1, 0x05,		  /* 2 units, short form, same line */
};

TEST(locations_of_311)
{
	size_t n = sizeof(table_311);

	CHECK_INT(python_line(PY_311, table_311, n, 100, 0), 102);
	CHECK_INT(python_line(PY_311, table_311, n, 100, 3), 102);
	CHECK_INT(python_line(PY_311, table_311, n, 100, 4), 0);
	CHECK_INT(python_line(PY_311, table_311, n, 100, 6), 103);
	CHECK_INT(python_line(PY_311, table_311, n, 100, 11), 103);
	CHECK_INT(python_line(PY_311, table_311, n, 100, 12), 100);
	CHECK_INT(python_line(PY_312, table_311, n, 100, 14), 100);
	CHECK_INT(python_line(PY_313, table_311, n, 100, 17), 100);
	CHECK_INT(python_line(PY_311, table_311, n, 100, 18), 0);
}

TEST(cut_and_corrupt_tables_say_nothing)
{
	/* Cut in a varint: the long entry's delta is not known. */
	CHECK_INT(python_line(PY_311, table_311, 2, 100, 0), 102);
	CHECK_INT(python_line(PY_311, table_311, 1, 100, 0), 0);
	/* A table whose first byte starts no entry. */
	static const uint8_t bad[] = { 0x13, 0x80 | 13 << 3 | 0, 0x02 };
	CHECK_INT(python_line(PY_311, bad, sizeof(bad), 5, 0), 0);
	CHECK_INT(python_line(PY_311, bad, sizeof(bad), 5, 2), 0);
	/* A varint that never ends; a line that would go below 1. */
	static const uint8_t endless[] = { 0x80 | 13 << 3 | 0, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f };
	CHECK_INT(python_line(PY_311, endless, sizeof(endless), 5, 0), 0);
	static const uint8_t below[] = { 0x80 | 13 << 3 | 0, 0x0b };
	CHECK_INT(python_line(PY_311, below, sizeof(below), 5, 0), 0);
	CHECK_INT(python_line(PY_311, NULL, 0, 5, 0), 0);
}

