/*
 * Writing untrusted bytes into XML.  Frame names come from other programs
 * and may hold anything: markup characters are escaped, bytes that are not
 * valid UTF-8 and characters XML 1.0 forbids become U+FFFD, so the document
 * always parses and no name can become markup or script.
 */
#ifndef PROF_SVG_XML_TEXT_H
#define PROF_SVG_XML_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "text_chunk.h"

/* Writes s[0..len) escaped for XML text and attribute values. */
void xml_chunk(struct text_chunk *k, const char *s, size_t len);
void xml_put(FILE *f, const char *s, size_t len);
void xml_puts(FILE *f, const char *s);

/* The length in bytes of the valid UTF-8 sequence at s (1..4), or 0 when
 * the byte at s does not start one. */
size_t utf8_seq(const unsigned char *s, size_t avail);

/* Number of characters in s[0..len): each invalid byte counts as one. */
size_t utf8_chars(const char *s, size_t len);

/* Byte length of the first n characters of s[0..len). */
size_t utf8_prefix(const char *s, size_t len, size_t n);

/* Writes the label that fits in `chars` character cells: the whole name,
 * or a prefix and "..", or nothing when fewer than 3 cells are free. */
void xml_chunk_label(struct text_chunk *k, const char *s, size_t len, long chars);
void xml_put_label(FILE *f, const char *s, size_t len, long chars);

#endif
