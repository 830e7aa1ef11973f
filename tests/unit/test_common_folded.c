/*
 * The folded-stack syntax both readers share (common/folded.c): stack
 * lines of one and two columns, what is not one, comments and the unit
 * line ("[count: UNIT] 0", or the "# count: UNIT" comment of earlier
 * versions), the counts' values, the writer; and the frame-kind
 * annotations of folded names (common/frame_kind.c).
 */
#include <stdint.h>

#include "folded.h"
#include "frame_kind.h"
#include "seconds.h"
#include "unit.h"

#define PARSE(s, max) folded_parse(s, strlen(s), max, &l)

#define COUNT(i) str(l.count[i].s, l.count[i].len)

TEST(stack_lines)
{
	struct folded_line l;

	CHECK_INT(PARSE("a;b;c 37", 1), FOLDED_STACK);
	CHECK_INT(l.stack_len, 5);
	CHECK_INT(l.ncounts, 1);
	CHECK_STR(COUNT(0), "37");
	CHECK(l.count[0].whole);
	/* Decimals; white space of any kind after the count (a CR). */
	CHECK_INT(PARSE("x;y 31.25 \r", 1), FOLDED_STACK);
	CHECK_INT(l.stack_len, 3);
	CHECK_STR(COUNT(0), "31.25");
	CHECK(!l.count[0].whole);
	CHECK_INT(PARSE("x 6.", 1), FOLDED_STACK);
	CHECK_STR(COUNT(0), "6.");
	/* One white-space character before the count; the stack keeps any
	 * other: a frame without a symbol is " ". */
	CHECK_INT(PARSE("a;b\t5", 1), FOLDED_STACK);
	CHECK_INT(l.stack_len, 3);
	CHECK_INT(PARSE("a;b;  3", 1), FOLDED_STACK);
	CHECK_INT(l.stack_len, 5);
	CHECK_INT(PARSE("  7", 1), FOLDED_STACK);
	CHECK_INT(l.stack_len, 1);
	/* Trailing empty frames are none, as Perl's split reads them. */
	CHECK_INT(PARSE("a;b;; 3", 1), FOLDED_STACK);
	CHECK_INT(l.stack_len, 3);
	/* Spaces in frame names are kept; a line that is one number has no
	 * stack. */
	CHECK_INT(PARSE("a b;c d 1", 1), FOLDED_STACK);
	CHECK_INT(l.stack_len, 7);
	CHECK_INT(PARSE("42", 1), FOLDED_NO_COUNT);
}

TEST(two_columns)
{
	struct folded_line l;

	CHECK_INT(PARSE("a;b 31 56", 2), FOLDED_STACK);
	CHECK_INT(l.ncounts, 2);
	CHECK_INT(l.stack_len, 3);
	CHECK_STR(COUNT(0), "31");
	CHECK_STR(COUNT(1), "56");
	/* Read for one column, the first number is part of the stack. */
	CHECK_INT(PARSE("a;b 12 3", 1), FOLDED_STACK);
	CHECK_INT(l.ncounts, 1);
	CHECK_INT(l.stack_len, 6);
	CHECK_STR(COUNT(0), "3");
	/* Two columns at most: a line with one has one. */
	CHECK_INT(PARSE("a;b 31", 2), FOLDED_STACK);
	CHECK_INT(l.ncounts, 1);
	CHECK_INT(PARSE("a;b 31  56", 2), FOLDED_STACK);
	CHECK_INT(l.ncounts, 1);
	CHECK_INT(l.stack_len, 7);
	CHECK_INT(PARSE("31 56", 2), FOLDED_STACK);
	CHECK_INT(l.ncounts, 1);
	CHECK_INT(l.stack_len, 2);
}

TEST(not_stack_lines)
{
	struct folded_line l;

	CHECK_INT(PARSE("", 2), FOLDED_BLANK);
	CHECK_INT(PARSE(" \t\r\f", 2), FOLDED_BLANK);
	CHECK_INT(PARSE("THIS_IS_A_BAD_LINE", 1), FOLDED_NO_COUNT);
	CHECK_INT(PARSE("a;b\t", 1), FOLDED_NO_COUNT);
	CHECK_INT(PARSE("THIS IS A BAD LINE", 1), FOLDED_BAD_COUNT);
	CHECK_INT(PARSE("a 12V.43", 1), FOLDED_BAD_COUNT);
	CHECK_INT(PARSE("a 1.2.3", 1), FOLDED_BAD_COUNT);
	CHECK_INT(PARSE("a -3", 1), FOLDED_BAD_COUNT);
	CHECK_INT(PARSE("a .5", 1), FOLDED_BAD_COUNT);
	CHECK_INT(PARSE("a 0x10", 1), FOLDED_BAD_COUNT);
	/* A number of 64 characters is too long to be a count. */
	char big[80] = "a ";
	memset(big + 2, '9', FOLDED_COUNT_MAX);
	CHECK_INT(PARSE(big, 1), FOLDED_STACK);
	big[2 + FOLDED_COUNT_MAX] = '9';
	CHECK_INT(PARSE(big, 1), FOLDED_BAD_COUNT);
}

TEST(comments_and_unit)
{
	struct folded_line l;

	CHECK_INT(PARSE("# a comment 12", 1), FOLDED_COMMENT);
	CHECK(l.unit == NULL);
	CHECK_INT(PARSE("#", 1), FOLDED_COMMENT);
	CHECK_INT(PARSE("# count: nanoseconds", 1), FOLDED_COMMENT);
	CHECK_STR(str(l.unit, l.unit_len), "nanoseconds");
	CHECK_INT(PARSE("# count: cycles:u \r", 1), FOLDED_COMMENT);
	CHECK_STR(str(l.unit, l.unit_len), "cycles:u");
	/* Not a plain word: no unit (it would reach a graph's tooltips). */
	CHECK_INT(PARSE("# count: <b>", 1), FOLDED_COMMENT);
	CHECK(l.unit == NULL);
	CHECK_INT(PARSE("# count: two words", 1), FOLDED_COMMENT);
	CHECK(l.unit == NULL);
	CHECK_INT(PARSE("# count: ", 1), FOLDED_COMMENT);
	CHECK(l.unit == NULL);
	CHECK_INT(folded_parse("# count: a\0b", 12, 1, &l), FOLDED_COMMENT);
	CHECK(l.unit == NULL);
	/* The old form's unit stays the unit whatever follows it. */
	CHECK_INT(PARSE("# count: nanoseconds", 2), FOLDED_COMMENT);
	CHECK_STR(str(l.unit, l.unit_len), "nanoseconds");
	CHECK(folded_unit_ok("page-faults", 11));
	CHECK(!folded_unit_ok("", 0));
	char word[80];
	memset(word, 'x', sizeof(word));
	CHECK(folded_unit_ok(word, FOLDED_UNIT_MAX));
	CHECK(!folded_unit_ok(word, FOLDED_UNIT_MAX + 1));
}

/* The unit line of this version: a stack of one frame, "[count: UNIT]",
 * that counts 0.  Anything else like it is a stack like any other. */
TEST(unit_line)
{
	struct folded_line l;

	CHECK_INT(PARSE("[count: nanoseconds] 0", 1), FOLDED_COMMENT);
	CHECK(l.unit != NULL);
	CHECK_STR(str(l.unit, l.unit_len), "nanoseconds");
	CHECK_INT(PARSE("[count: page-faults] 0", 2), FOLDED_COMMENT);
	CHECK_STR(str(l.unit, l.unit_len), "page-faults");
	CHECK_INT(PARSE("[count: cycles:u] 0 \r", 1), FOLDED_COMMENT);
	CHECK_STR(str(l.unit, l.unit_len), "cycles:u");
	/* A count that is not 0: a stack, with its count. */
	CHECK_INT(PARSE("[count: nanoseconds] 5", 1), FOLDED_STACK);
	CHECK(l.unit == NULL);
	CHECK_INT(l.stack_len, 20);
	CHECK_STR(COUNT(0), "5");
	CHECK_INT(PARSE("[count: nanoseconds] 00", 1), FOLDED_STACK);
	CHECK(l.unit == NULL);
	CHECK_INT(PARSE("[count: nanoseconds] 0.0", 1), FOLDED_STACK);
	CHECK(l.unit == NULL);
	/* Two columns are a differential stack, not the unit line. */
	CHECK_INT(PARSE("[count: nanoseconds] 0 0", 2), FOLDED_STACK);
	CHECK(l.unit == NULL);
	CHECK_INT(l.ncounts, 2);
	/* Not a plain word: no unit, a stack. */
	CHECK_INT(PARSE("[count: two words] 0", 1), FOLDED_STACK);
	CHECK(l.unit == NULL);
	CHECK_INT(l.stack_len, 18);
	CHECK_INT(PARSE("[count: <b>] 0", 1), FOLDED_STACK);
	CHECK(l.unit == NULL);
	CHECK_INT(PARSE("[count: a;b] 0", 1), FOLDED_STACK);
	CHECK(l.unit == NULL);
	CHECK_INT(PARSE("[count: ] 0", 1), FOLDED_STACK);
	CHECK(l.unit == NULL);
	CHECK_INT(folded_parse("[count: a\0b] 0", 14, 1, &l), FOLDED_STACK);
	CHECK(l.unit == NULL);
	/* The frame must be the whole stack, and the whole frame. */
	CHECK_INT(PARSE("a;[count: ns] 0", 1), FOLDED_STACK);
	CHECK(l.unit == NULL);
	CHECK_INT(l.stack_len, 13);
	CHECK_INT(PARSE("[count: ns];a 0", 1), FOLDED_STACK);
	CHECK(l.unit == NULL);
	CHECK_INT(PARSE("[count: ns]x 0", 1), FOLDED_STACK);
	CHECK(l.unit == NULL);
	CHECK_INT(PARSE(" [count: ns] 0", 1), FOLDED_STACK);
	CHECK(l.unit == NULL);
	CHECK_INT(PARSE("[count: ns]  0", 1), FOLDED_STACK);
	CHECK(l.unit == NULL);
	CHECK_INT(PARSE("[Count: ns] 0", 1), FOLDED_STACK);
	CHECK(l.unit == NULL);
	/* Without its count it is a bad line, as any other. */
	CHECK_INT(PARSE("[count: ns]", 1), FOLDED_BAD_COUNT);
	CHECK(l.unit == NULL);
	/* A unit of the longest length is one; one longer is a stack. */
	char line[FOLDED_UNIT_MAX + 16] = "[count: ";
	memset(line + 8, 'x', FOLDED_UNIT_MAX);
	strcpy(line + 8 + FOLDED_UNIT_MAX, "] 0");
	CHECK_INT(PARSE(line, 1), FOLDED_COMMENT);
	CHECK_INT(l.unit_len, FOLDED_UNIT_MAX);
	memset(line + 8, 'x', FOLDED_UNIT_MAX + 1);
	strcpy(line + 9 + FOLDED_UNIT_MAX, "] 0");
	CHECK_INT(PARSE(line, 1), FOLDED_STACK);
	CHECK(l.unit == NULL);
	/* A unit is not left over from the line before. */
	CHECK_INT(PARSE("[count: ns] 0", 1), FOLDED_COMMENT);
	CHECK_INT(PARSE("a;b 3", 1), FOLDED_STACK);
	CHECK(l.unit == NULL);
}

TEST(count_values)
{
	struct folded_line l;
	uint64_t v = 0;

	CHECK_INT(PARSE("a 18446744073709551615", 1), FOLDED_STACK);
	CHECK(folded_count_u64(&l.count[0], &v));
	CHECK(v == UINT64_MAX);
	CHECK_INT(PARSE("a 18446744073709551616", 1), FOLDED_STACK);
	CHECK(!folded_count_u64(&l.count[0], &v));
	CHECK_INT(PARSE("a 000000000000000000000012", 1), FOLDED_STACK);
	CHECK(folded_count_u64(&l.count[0], &v));
	CHECK_INT(v, 12);
	CHECK(folded_count_double(&l.count[0]) == 12.0);
	/* The widest count read without strtod(), and the first past 2^53,
	 * which rounds as strtod() rounds it. */
	CHECK_INT(PARSE("a 999999999999999", 1), FOLDED_STACK);
	CHECK(folded_count_double(&l.count[0]) == 999999999999999.0);
	CHECK_INT(PARSE("a 9007199254740993", 1), FOLDED_STACK);
	CHECK(folded_count_double(&l.count[0]) == 9007199254740992.0);
	CHECK_INT(PARSE("a 1.5", 1), FOLDED_STACK);
	CHECK(!folded_count_u64(&l.count[0], &v));
	CHECK(folded_count_double(&l.count[0]) == 1.5);
}

TEST(writer_reads_back)
{
	char buf[256] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct folded_line l;

	folded_write_unit(f, "cycles");
	folded_write_stack(f, "a;b", 3, UINT64_MAX);
	fclose(f);
	CHECK_STR(buf, "[count: cycles] 0\na;b 18446744073709551615\n");
	CHECK_INT(folded_parse(buf, 17, 1, &l), FOLDED_COMMENT);
	CHECK_STR(str(l.unit, l.unit_len), "cycles");
	CHECK_INT(folded_parse(buf + 18, 24, 1, &l), FOLDED_STACK);
	CHECK(l.unit == NULL);
	CHECK_INT(l.stack_len, 3);
}

TEST(time_lines)
{
	char buf[256] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct folded_line l;
	uint64_t ns;

	CHECK_INT(PARSE("[time: 30143.48 0.01] 0", 1), FOLDED_COMMENT);
	CHECK(l.timed && l.unit == NULL);
	CHECK_INT(l.time_ns, 30143480000000ull);
	CHECK_INT(l.slot_ns, 10000000);
	CHECK_INT(PARSE("[time: 0 1] 0 ", 1), FOLDED_COMMENT);
	CHECK(l.timed && l.time_ns == 0 && l.slot_ns == 1000000000);
	/* Not time lines: stacks as any other reader takes them. */
	const char *not[] = { "[time: 1 0] 0", "[time: 1 1] 2", "[time: 1.0000000001 1] 0",
			      "[time: 1. 1] 0", "[time: .5 1] 0", "[time: 1  1] 0", "[time: 1 1 ] 0",
			      "[time: 1 1]x 0", "[time:1 1] 0", "[time: 18446744074 1] 0",
			      "[time: 18446744073.709551615 1] 0", "[time: 1] 0" };
	for (size_t i = 0; i < sizeof(not) / sizeof(not[0]); i++) {
		CHECK_INT(PARSE(not[i], 1), FOLDED_STACK);
		CHECK(!l.timed);
	}
	/* The comment form of the unit line is not timed. */
	CHECK_INT(PARSE("# count: ns", 1), FOLDED_COMMENT);
	CHECK(!l.timed);
	folded_write_time(f, 12345678901234567ull, 10000000);
	fclose(f);
	CHECK_STR(buf, "[time: 12345678.901234567 0.010000000] 0\n");
	CHECK_INT(folded_parse(buf, strlen(buf) - 1, 1, &l), FOLDED_COMMENT);
	CHECK_INT(l.time_ns, 12345678901234567ull);
	CHECK_INT(l.slot_ns, 10000000);
	/* Seconds as event lines and options say them. */
	const char *s = "1410597.984841:";
	CHECK(seconds_parse(s, s + strlen(s), &ns) == s + 14);
	CHECK_INT(ns, 1410597984841000ull);
	CHECK(seconds_parse(s, s, &ns) == NULL);
	CHECK(duration_parse("10ms", &ns) && ns == 10000000);
	CHECK(duration_parse("1.5s", &ns) && ns == 1500000000);
	CHECK(!duration_parse("10", &ns) && !duration_parse("ms", &ns) && !duration_parse("-1s", &ns));
}

TEST(frame_kinds)
{
	size_t shown;
	char out[8];

	CHECK_INT(frame_kind_of("sys_read_[k]", 12, &shown), KIND_KERNEL);
	CHECK_INT(shown, 8);
	CHECK_INT(frame_kind_of("f_[j]", 5, &shown), KIND_JIT);
	CHECK_INT(frame_kind_of("f_[i]", 5, &shown), KIND_INLINED);
	CHECK_INT(frame_kind_of("f_[w]", 5, &shown), KIND_WAKER);
	CHECK_INT(frame_kind_of("_[k]", 4, &shown), KIND_KERNEL);
	CHECK_INT(shown, 0);
	CHECK_INT(frame_kind_of("f_[x]", 5, &shown), KIND_USER);
	CHECK_INT(shown, 5);
	CHECK_INT(frame_kind_of("f_[k] ", 6, &shown), KIND_USER);
	CHECK_INT(frame_kind_of("[k]", 3, &shown), KIND_USER);
	for (int k = 0; k < KIND_COUNT; k++) {
		size_t n = frame_kind_put(out, (enum frame_kind)k);
		CHECK_INT(n, k == KIND_USER ? 0 : FRAME_KIND_SUFFIX_LEN);
		CHECK(memcmp(out, frame_kind_suffix((enum frame_kind)k), n) == 0);
		CHECK_INT(frame_kind_of(out, n, &shown), k);
	}
}
