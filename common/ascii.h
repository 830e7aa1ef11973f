/*
 * The character classes the stream formats are written in, as Perl's \s
 * and \d read them: ASCII, whatever the locale, and inline, since the
 * parsers test every byte of their input with them.
 */
#ifndef PROF_ASCII_H
#define PROF_ASCII_H

#include <stdbool.h>

enum { ASCII_SPACE = 1, ASCII_DIGIT = 2, ASCII_XDIGIT_LOWER = 4 };

/* One load and one test a byte, where the comparisons took several. */
static const unsigned char ascii_class[256] = {
	[' '] = ASCII_SPACE, ['\t'] = ASCII_SPACE, ['\n'] = ASCII_SPACE,
	['\v'] = ASCII_SPACE, ['\f'] = ASCII_SPACE, ['\r'] = ASCII_SPACE,
	['0' ... '9'] = ASCII_DIGIT | ASCII_XDIGIT_LOWER,
	['a' ... 'f'] = ASCII_XDIGIT_LOWER,
};

/* Space, tab, newline, vertical tab, form feed, carriage return. */
static inline bool is_space(char c)
{
	return ascii_class[(unsigned char)c] & ASCII_SPACE;
}

static inline bool is_digit(char c)
{
	return ascii_class[(unsigned char)c] & ASCII_DIGIT;
}

/* perf prints addresses and offsets in lower-case hex. */
static inline bool is_xdigit_lower(char c)
{
	return ascii_class[(unsigned char)c] & ASCII_XDIGIT_LOWER;
}

/* The value of a hex digit of either case, or -1. */
static inline int hex_value(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
