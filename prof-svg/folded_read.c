#include "folded_read.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Matches a trailing "WS+ DIGITS[.DIGITS*]" at the end of line[0..*len):
 * stores the number, and shortens *len to the text before the spaces. */
static bool trailing_number(const char *line, size_t *len, double *value)
{
	size_t end = *len, p = end, dot = SIZE_MAX;
	char buf[64];

	while (p > 0 && (is_digit(line[p - 1]) || line[p - 1] == '.')) {
		if (line[p - 1] == '.') {
			if (dot != SIZE_MAX)
				return false;
			dot = p - 1;
		}
		p--;
	}
	if (p == end || !is_digit(line[p]) || p == 0 || !is_space(line[p - 1]))
		return false;
	if (end - p >= sizeof(buf))
		return false;
	memcpy(buf, line + p, end - p);
	buf[end - p] = '\0';
	*value = strtod(buf, NULL);
	while (p > 0 && is_space(line[p - 1]))
		p--;
	*len = p;
	return true;
}

bool folded_parse_line(const char *line, size_t len, int *columns, size_t *stack_len,
		       double *count1, double *count)
{
	size_t n = len;
	double second;

	while (n > 0 && is_space(line[n - 1]))
		n--;
	if (n == 0) {
		*stack_len = SIZE_MAX;
		return true;
	}
	if (!trailing_number(line, &n, count))
		return false;
	*count1 = 0;
	if (*columns != 1) {
		size_t m = n;
		if (trailing_number(line, &m, &second)) {
			*count1 = second;
			n = m;
			*columns = 2;
		} else if (*columns == 2) {
			return false;
		} else {
			*columns = 1;
		}
	}
	/* Like Perl's split, trailing empty frames do not count. */
	while (n > 0 && line[n - 1] == ';')
		n--;
	*stack_len = n;
	return true;
}

static bool plain_word(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || strchr("-_.:", s[i])))
			return false;
	return len > 0;
}

void folded_read(FILE *f, struct frame_tree *t, enum folded_role role, bool reverse,
		 struct folded_stats *st)
{
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t got;

	while ((got = getline(&line, &cap, f)) > 0) {
		size_t len = (size_t)got, slen;
		double c1, c;
		int columns = role == FOLDED_ANY ? st->columns : 1;

		lineno++;
		if (line[len - 1] == '\n')
			len--;
		if (line[0] == '#') {
			/* Comments, as in austin's output; prof-fold says so
			 * when its counts are not samples. */
			if (len > 9 && len - 9 < sizeof(st->unit) && memcmp(line, "# count: ", 9) == 0 &&
			    plain_word(line + 9, len - 9)) {
				memcpy(st->unit, line + 9, len - 9);
				st->unit[len - 9] = '\0';
			}
			continue;
		}
		if (!folded_parse_line(line, len, &columns, &slen, &c1, &c)) {
			if (!st->bad++) {
				st->first_bad = lineno;
				st->first_bad_len = len < sizeof(st->first_bad_text)
							    ? len : sizeof(st->first_bad_text);
				memcpy(st->first_bad_text, line, st->first_bad_len);
			}
			st->indented += line[0] == '\t' || line[0] == ' ';
			continue;
		}
		if (slen == SIZE_MAX)
			continue;
		if (role == FOLDED_ANY && st->columns == 0 && columns == 2 && !t->diff)
			ft_enable_diff(t);
		if (role == FOLDED_ANY)
			st->columns = columns;
		st->lines++;
		switch (role) {
		case FOLDED_ANY:
			ft_add(t, line, slen, reverse, c, c1);
			break;
		case FOLDED_BEFORE:
			ft_add(t, line, slen, reverse, 0, c);
			break;
		case FOLDED_AFTER:
			ft_add(t, line, slen, reverse, c, 0);
			break;
		}
	}
	free(line);
}
