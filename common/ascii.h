/*
 * The character classes the stream formats are written in, as Perl's \s
 * and \d read them: ASCII, whatever the locale, and inline, since the
 * parsers test every byte of their input with them.
 */
#ifndef PROF_ASCII_H
#define PROF_ASCII_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/*
 * The end of the run of spaces, or of lower-case hex digits, that starts
 * at s[i] (len if it runs to the end).  perf script indents every frame
 * line with a tab and spaces and starts it with an address: sixteen bytes
 * at a time, these runs cost no branch a byte.
 */
#ifdef __SSE2__
#include <emmintrin.h>

/* The bytes of v in [lo, lo + n], as 0xff. */
static inline __m128i ascii_in_range(__m128i v, char lo, char n)
{
	return _mm_cmpeq_epi8(_mm_subs_epu8(_mm_sub_epi8(v, _mm_set1_epi8(lo)),
					    _mm_set1_epi8(n)),
			      _mm_setzero_si128());
}

static inline size_t ascii_first_clear(__m128i in_class)
{
	unsigned int out = ~(unsigned int)_mm_movemask_epi8(in_class) & 0xffff;

	return out ? (size_t)__builtin_ctz(out) : 16;
}
#endif

/* The run of class cls, ASCII_SPACE or ASCII_XDIGIT_LOWER. */
static inline size_t ascii_span(const char *s, size_t i, size_t len, unsigned char cls)
{
#ifdef __SSE2__
	for (; len - i >= 16; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(s + i));
		__m128i in = cls == ASCII_SPACE
				     ? _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
						    ascii_in_range(v, '\t', '\r' - '\t'))
				     : _mm_or_si128(ascii_in_range(v, '0', 9),
						    ascii_in_range(v, 'a', 5));
		size_t n = ascii_first_clear(in);
		if (n < 16)
			return i + n;
	}
#endif
	while (i < len && (ascii_class[(unsigned char)s[i]] & cls))
		i++;
	return i;
}

static inline size_t skip_space(const char *s, size_t i, size_t len)
{
	return ascii_span(s, i, len, ASCII_SPACE);
}

static inline size_t skip_xdigit_lower(const char *s, size_t i, size_t len)
{
	return ascii_span(s, i, len, ASCII_XDIGIT_LOWER);
}

/*
 * The indentation and address of a frame line, "\t   ffffffff81000000 ...",
 * from s[0..32) in one pass without a branch a byte: *addr is where the
 * first character that is not white space is, *end where the run of
 * lower-case hex digits from there ends.  False when either runs to the
 * 32nd byte (or without SSE2): the caller then reads byte by byte.  s
 * must have 32 bytes.
 */
static inline __attribute__((always_inline)) bool
ascii_indent_and_address(const char *s, size_t *addr, size_t *end)
{
#ifdef __SSE2__
	/* perf's own layout first, "\t%16lx ": spaces then hex digits in
	 * s[1..17), and a space after. */
	__m128i f = _mm_loadu_si128((const __m128i *)(s + 1));
	unsigned int sp = (unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8(f, _mm_set1_epi8(' ')));
	unsigned int hx = (unsigned int)_mm_movemask_epi8(
		_mm_or_si128(ascii_in_range(f, '0', 9), ascii_in_range(f, 'a', 5)));
	if (s[0] == '\t' && s[17] == ' ' && (sp | hx) == 0xffff && hx && (sp & (sp + 1)) == 0) {
		*addr = 1 + (size_t)__builtin_ctz(~sp);
		*end = 17;
		return true;
	}
	__m128i v0 = _mm_loadu_si128((const __m128i *)s);
	__m128i v1 = _mm_loadu_si128((const __m128i *)(s + 16));
#define ASCII_MASK32(f) ((uint64_t)(unsigned int)_mm_movemask_epi8(f(v0)) | \
			 (uint64_t)(unsigned int)_mm_movemask_epi8(f(v1)) << 16 | 1ull << 32)
#define ASCII_SPACES(v) _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), \
				     ascii_in_range(v, '\t', '\r' - '\t'))
#define ASCII_NOT_XDIGITS(v) _mm_andnot_si128(_mm_or_si128(ascii_in_range(v, '0', 9), \
							   ascii_in_range(v, 'a', 5)), \
					      _mm_set1_epi8(-1))
	uint64_t not_space = ~ASCII_MASK32(ASCII_SPACES) | 1ull << 32;
	uint64_t not_xdigit = ASCII_MASK32(ASCII_NOT_XDIGITS);
#undef ASCII_MASK32
#undef ASCII_SPACES
#undef ASCII_NOT_XDIGITS
	*addr = (size_t)__builtin_ctzll(not_space);
	*end = (size_t)__builtin_ctzll(not_xdigit >> *addr << *addr);
	return *end < 32;
#else
	(void)s, (void)addr, (void)end;
	return false;
#endif
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
