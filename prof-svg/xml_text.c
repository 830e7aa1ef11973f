#include "xml_text.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

size_t utf8_seq(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (avail < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0; /* overlong or out of range */
	if ((cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
		return 0; /* surrogates and XML non-characters */
	return n;
}

static const char REPLACEMENT[] = "\xef\xbf\xbd";

void xml_chunk(struct text_chunk *k, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t run = 0, i = 0;

	if (!len) /* (s may be NULL) */
		return;
	while (i < len) {
		unsigned char c = s[i];
		const char *rep = NULL;
		size_t n = 1;

		if (c >= 0x80) {
			n = utf8_seq(s + i, len - i);
			if (n) {
				i += n;
				continue;
			}
			n = 1;
			rep = REPLACEMENT;
		} else if (c == '&') {
			rep = "&amp;";
		} else if (c == '<') {
			rep = "&lt;";
		} else if (c == '>') {
			rep = "&gt;";
		} else if (c == '"') {
			rep = "&quot;";
		} else if (c == '\'') {
			rep = "&#39;";
		} else if (c < 0x20) {
			rep = REPLACEMENT;
		} else {
			i++;
			continue;
		}
		chunk_put(k, (const char *)s + run, i - run);
		chunk_str(k, rep);
		i += n;
		run = i;
	}
	chunk_put(k, (const char *)s + run, i - run);
}

void xml_put(FILE *f, const char *s, size_t len)
{
	struct text_chunk k = { .f = f };

	xml_chunk(&k, s, len);
	chunk_flush(&k);
}

void xml_puts(FILE *f, const char *s)
{
	xml_put(f, s, strlen(s));
}

size_t utf8_chars(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t chars = 0;

	for (size_t i = 0; i < len; chars++) {
		size_t n = s[i] < 0x80 ? 1 : utf8_seq(s + i, len - i);
		i += n ? n : 1;
	}
	return chars;
}

size_t utf8_prefix(const char *str, size_t len, size_t chars)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < len && chars--) {
		size_t n = s[i] < 0x80 ? 1 : utf8_seq(s + i, len - i);
		i += n ? n : 1;
	}
	return i;
}

void xml_chunk_label(struct text_chunk *k, const char *s, size_t len, long chars)
{
	if (chars < 3)
		return;
	if (len <= (size_t)chars || utf8_chars(s, len) <= (size_t)chars) {
		xml_chunk(k, s, len);
		return;
	}
	xml_chunk(k, s, utf8_prefix(s, len, (size_t)chars - 2));
	chunk_lit(k, "..");
}

void xml_put_label(FILE *f, const char *s, size_t len, long chars)
{
	struct text_chunk k = { .f = f };

	xml_chunk_label(&k, s, len, chars);
	chunk_flush(&k);
}
