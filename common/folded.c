#include "folded.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "seconds.h"

/* The unit line, "[count: UNIT] 0", is a stack of one frame that counts
 * nothing: every folded reader takes it without a warning (flamegraph.pl,
 * speedscope and Pyroscope refuse or report a comment line) and its totals
 * stay the same.  The comment "# count: UNIT" is the form prof-fold wrote
 * before, and perf-script text's (docs/FORMATS.md section 2): still read. */
#define UNIT_PREFIX "# count: "
#define UNIT_FRAME "[count: "
/* The same trick carries time: "[time: START LENGTH] 0" lines (docs/
 * FORMATS.md section 3, timed folded stacks) count nothing either. */
#define TIME_FRAME "[time: "

/* Reads the count that ends line[0..*end) into *c, and moves *end back
 * past the white-space character before it: "a;b5" has no count, and in
 * "a;b  5" the stack is "a;b " (as flamegraph.pl reads it; stackcollapse
 * names a frame without a symbol " "). */
static bool count_before(const char *line, size_t *end, struct folded_count *c)
{
	size_t e = *end, p = e, dots = 0;

	while (p > 0 && (is_digit(line[p - 1]) || line[p - 1] == '.')) {
		dots += line[p - 1] == '.';
		p--;
	}
	if (p == e || dots > 1 || !is_digit(line[p]) || e - p > FOLDED_COUNT_MAX || p == 0 ||
	    !is_space(line[p - 1]))
		return false;
	*c = (struct folded_count){ line + p, e - p, dots == 0 };
	*end = p - 1;
	return true;
}

static void comment_unit(const char *line, size_t len, struct folded_line *l)
{
	const size_t n = sizeof(UNIT_PREFIX) - 1;

	if (len <= n || memcmp(line, UNIT_PREFIX, n) != 0)
		return;
	line += n;
	len -= n;
	while (len > 0 && is_space(line[len - 1]))
		len--;
	if (folded_unit_ok(line, len)) {
		l->unit = line;
		l->unit_len = len;
	}
}

/* A stack line that is the unit line: its one frame is "[count: UNIT]"
 * and its one count is 0. */
static void stack_unit(const char *line, struct folded_line *l)
{
	const size_t n = sizeof(UNIT_FRAME) - 1, len = l->stack_len;

	if (l->ncounts != 1 || l->count[0].len != 1 || l->count[0].s[0] != '0' || len <= n + 1 ||
	    memcmp(line, UNIT_FRAME, n) != 0 || line[len - 1] != ']' ||
	    !folded_unit_ok(line + n, len - n - 1))
		return;
	l->unit = line + n;
	l->unit_len = len - n - 1;
}

/* A stack line that is a time line: its one frame is "[time: START
 * LENGTH]", LENGTH above 0, and its one count is 0. */
static void stack_time(const char *line, struct folded_line *l)
{
	const size_t n = sizeof(TIME_FRAME) - 1, len = l->stack_len;
	const char *end = line + len - 1, *p;

	if (l->ncounts != 1 || l->count[0].len != 1 || l->count[0].s[0] != '0' || len <= n + 1 ||
	    memcmp(line, TIME_FRAME, n) != 0 || line[len - 1] != ']')
		return;
	if (!(p = seconds_parse(line + n, end, &l->time_ns)) || p == end || *p != ' ' ||
	    seconds_parse(p + 1, end, &l->slot_ns) != end || l->slot_ns == 0 ||
	    l->time_ns + l->slot_ns < l->time_ns)
		return;
	l->timed = true;
}

enum folded_kind folded_parse(const char *line, size_t len, size_t max_counts,
			      struct folded_line *l)
{
	size_t n = len;

	l->unit = NULL;
	l->timed = false;
	if (len > 0 && line[0] == '#') {
		comment_unit(line, len, l);
		return FOLDED_COMMENT;
	}
	while (n > 0 && is_space(line[n - 1]))
		n--;
	if (n == 0)
		return FOLDED_BLANK;
	if (!count_before(line, &n, &l->count[0])) {
		for (size_t i = 0; i < n; i++)
			if (is_space(line[i]))
				return FOLDED_BAD_COUNT;
		return FOLDED_NO_COUNT;
	}
	l->ncounts = 1;
	if (max_counts > 1 && count_before(line, &n, &l->count[1])) {
		struct folded_count last = l->count[0];
		l->count[0] = l->count[1];
		l->count[1] = last;
		l->ncounts = 2;
	}
	/* As Perl's split reads them, trailing empty frames are none. */
	while (n > 0 && line[n - 1] == ';')
		n--;
	l->stack_len = n;
	stack_unit(line, l);
	if (!l->unit)
		stack_time(line, l);
	return l->unit || l->timed ? FOLDED_COMMENT : FOLDED_STACK;
}

bool folded_count_u64(const struct folded_count *c, uint64_t *v)
{
	uint64_t x = 0;

	if (!c->whole)
		return false;
	/* Overflow as the operations tell it: no division a digit. */
	for (size_t i = 0; i < c->len; i++)
		if (__builtin_mul_overflow(x, 10, &x) ||
		    __builtin_add_overflow(x, (uint64_t)(c->s[i] - '0'), &x))
			return false;
	*v = x;
	return true;
}

double folded_count_double(const struct folded_count *c)
{
	char buf[FOLDED_COUNT_MAX + 1];
	uint64_t v;

	/* Up to 15 digits a whole count is below 2^53, exact in a double, and
	 * so what strtod() would make of it, without its cost. */
	if (c->len <= 15 && folded_count_u64(c, &v))
		return (double)v;
	memcpy(buf, c->s, c->len);
	buf[c->len] = '\0';
	return strtod(buf, NULL);
}

bool folded_unit_ok(const char *unit, size_t len)
{
	if (len == 0 || len > FOLDED_UNIT_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = unit[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '-' ||
		      c == '_' || c == '.' || c == ':'))
			return false;
	}
	return true;
}

void folded_write_unit(FILE *out, const char *unit)
{
	fprintf(out, UNIT_FRAME "%s] 0\n", unit);
}

void folded_write_time(FILE *out, uint64_t start_ns, uint64_t slot_ns)
{
	fprintf(out, TIME_FRAME "%" PRIu64 ".%09" PRIu64 " %" PRIu64 ".%09" PRIu64 "] 0\n",
		start_ns / 1000000000u, start_ns % 1000000000u, slot_ns / 1000000000u,
		slot_ns % 1000000000u);
}

void folded_write_stack(FILE *out, const char *stack, size_t len, uint64_t count)
{
	fwrite(stack, 1, len, out);
	fprintf(out, " %" PRIu64 "\n", count);
}
