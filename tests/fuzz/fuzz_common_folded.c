/*
 * libFuzzer target: the folded-stack syntax both readers share
 * (common/folded.c), line by line, for one column and two; what it hands
 * back must lie within the line and be what it says: counts of digits
 * with at most one '.', a plain unit word.  Whole counts must read back
 * through the writer unchanged.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"

static volatile double sink;

static void check_count(const char *line, size_t len, const struct folded_count *c)
{
	size_t dots = 0;

	if (c->s < line || c->len == 0 || c->len > FOLDED_COUNT_MAX ||
	    (size_t)(c->s - line) + c->len > len || c->s[0] < '0' || c->s[0] > '9')
		abort();
	for (size_t i = 0; i < c->len; i++) {
		dots += c->s[i] == '.';
		if (c->s[i] != '.' && (c->s[i] < '0' || c->s[i] > '9'))
			abort();
	}
	if (dots > 1 || c->whole != (dots == 0))
		abort();
	sink += folded_count_double(c);
}

/* A whole count written as a stack line reads back as itself. */
static void round_trip(const char *stack, size_t len, uint64_t v)
{
	static char buf[4096];
	struct folded_line l;
	uint64_t back;
	FILE *f;

	if (len > sizeof(buf) / 2 || memchr(stack, '\n', len) || (len && stack[0] == '#'))
		return;
	f = fmemopen(buf, sizeof(buf), "w");
	if (!f)
		abort();
	folded_write_stack(f, stack, len, v);
	long n = ftell(f);
	fclose(f);
	if (n <= 0)
		abort();
	enum folded_kind k = folded_parse(buf, (size_t)n - 1, 1, &l);
	/* The two stacks the format gives another meaning (docs/FORMATS.md):
	 * the frame "[count: UNIT]" or "[time: START LENGTH]" counting 0,
	 * read as "00" say, is written as the unit line or a time line. */
	if (k == FOLDED_COMMENT && (l.unit || l.timed) && v == 0)
		return;
	if (k != FOLDED_STACK ||
	    l.stack_len != len || memcmp(buf, stack, len) != 0 ||
	    !folded_count_u64(&l.count[0], &back) || back != v)
		abort();
}

static void one(const char *line, size_t len, size_t max_counts)
{
	struct folded_line l;
	uint64_t v;

	switch (folded_parse(line, len, max_counts, &l)) {
	case FOLDED_COMMENT:
		if (l.unit && (l.unit < line || (size_t)(l.unit - line) + l.unit_len > len ||
			       !folded_unit_ok(l.unit, l.unit_len)))
			abort();
		break;
	case FOLDED_STACK:
		if (l.ncounts < 1 || l.ncounts > max_counts || l.stack_len > len ||
		    line + l.stack_len >= l.count[0].s)
			abort();
		for (size_t i = 0; i < l.ncounts; i++)
			check_count(line, len, &l.count[i]);
		if (l.stack_len && line[l.stack_len - 1] == ';')
			abort();
		if (max_counts == 1 && folded_count_u64(&l.count[0], &v))
			round_trip(line, l.stack_len, v);
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		one(p, len, 1);
		one(p, len, 2);
		p += len + 1;
	}
	return 0;
}
