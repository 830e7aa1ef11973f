/*
 * The few protocol buffer encodings a pprof profile needs (varints,
 * length-delimited fields, packed repeated integers, nested messages),
 * written into a growable buffer, which may be handed on in pieces.
 * Fields are written as they come, in the order the caller gives; a field
 * equal to its default is the caller's to leave out.
 */
#ifndef PROF_SYMBOLIZE_PROTOBUF_H
#define PROF_SYMBOLIZE_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

struct pb {
	uint8_t *p;
	size_t len, cap;
	/* Where pb_flush hands what is held; NULL: it is kept. */
	void (*write)(void *ctx, const uint8_t *data, size_t len);
	void *ctx;
};

enum pb_wire {
	PB_VARINT = 0,
	PB_LEN = 2,
};

void pb_free(struct pb *b);

/* Hands what is held to b->write, and empties the buffer, once it holds
 * at least `at_least` bytes.  Only between the fields of the outermost
 * message: a nested one's length is written before it, at pb_end. */
void pb_flush(struct pb *b, size_t at_least);

void pb_varint(struct pb *b, uint64_t v);

/* A field's key: its number and wire type. */
void pb_tag(struct pb *b, uint32_t field, enum pb_wire wire);

/* An integer field (uint64, and int64 and bool as their two's
 * complement bits, as protobuf encodes them without zigzag). */
void pb_uint(struct pb *b, uint32_t field, uint64_t v);

/* A bytes or string field. */
void pb_bytes(struct pb *b, uint32_t field, const void *data, size_t len);

/* A packed repeated integer field: one length-delimited run of varints. */
void pb_packed(struct pb *b, uint32_t field, const uint64_t *v, size_t n);

/* A nested message: pb_begin writes the field's key and returns where its
 * body starts; pb_end, after the body's fields, puts the body's length
 * before it. */
size_t pb_begin(struct pb *b, uint32_t field);
void pb_end(struct pb *b, size_t start);

#endif
