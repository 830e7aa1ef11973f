/*
 * The character classes the stream formats are written in, as Perl's \s
 * and \d read them: ASCII, whatever the locale, and inline, since the
 * parsers test every byte of their input with them.
 */
#ifndef PROF_ASCII_H
#define PROF_ASCII_H

#include <stdbool.h>

/* Space, tab, newline, vertical tab, form feed, carriage return. */
static inline bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* perf prints addresses and offsets in lower-case hex. */
static inline bool is_xdigit_lower(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f');
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
