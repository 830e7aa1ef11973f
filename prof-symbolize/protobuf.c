#include "protobuf.h"

#include <stdlib.h>
#include <string.h>

#include "diag.h"

static void reserve(struct pb *b, size_t n)
{
	if (b->len + n <= b->cap)
		return;
	b->cap = b->cap * 2 > b->len + n ? b->cap * 2 : b->len + n + 256;
	b->p = xrealloc(b->p, b->cap);
}

void pb_free(struct pb *b)
{
	free(b->p);
	*b = (struct pb){ 0 };
}

void pb_flush(struct pb *b, size_t at_least)
{
	if (!b->write || b->len < at_least || !b->len)
		return;
	b->write(b->ctx, b->p, b->len);
	b->len = 0;
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Seven bits a byte, least significant first; the top bit says more follow. */
static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

void pb_varint(struct pb *b, uint64_t v)
{
	reserve(b, 10);
	b->len += put_varint(b->p + b->len, v);
}

void pb_tag(struct pb *b, uint32_t field, enum pb_wire wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

void pb_uint(struct pb *b, uint32_t field, uint64_t v)
{
	pb_tag(b, field, PB_VARINT);
	pb_varint(b, v);
}

void pb_bytes(struct pb *b, uint32_t field, const void *data, size_t len)
{
	pb_tag(b, field, PB_LEN);
	pb_varint(b, len);
	reserve(b, len);
	if (len)
		memcpy(b->p + b->len, data, len);
	b->len += len;
}

void pb_packed(struct pb *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += varint_len(v[i]);
	pb_tag(b, field, PB_LEN);
	pb_varint(b, len);
	reserve(b, len);
	for (size_t i = 0; i < n; i++)
		b->len += put_varint(b->p + b->len, v[i]);
}

size_t pb_begin(struct pb *b, uint32_t field)
{
	pb_tag(b, field, PB_LEN);
	return b->len;
}

/* The body's length is known only at its end: it moves up to make room
 * for it (messages of a profile are small, but for the profile itself,
 * which is never nested). */
void pb_end(struct pb *b, size_t start)
{
	uint64_t body = b->len - start;
	size_t n = varint_len(body);

	reserve(b, n);
	memmove(b->p + start + n, b->p + start, body);
	put_varint(b->p + start, body);
	b->len += n;
}
