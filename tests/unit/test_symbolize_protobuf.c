/*
 * The protobuf encoder (prof-symbolize/protobuf.c) against encodings
 * worked out by hand from the wire format: a key is (field << 3) | wire
 * type as a varint, a varint is seven bits a byte, least significant
 * first, with the top bit set on all but the last.
 */
#include "unit.h"

#include <string.h>

#include "pprof_profile.h"
#include "protobuf.h"

/* b's bytes as hex, for CHECK_STR. */
static const char *hex(const struct pb *b)
{
	static char out[1024];

	out[0] = '\0';
	for (size_t i = 0; i < b->len && 2 * i + 2 < sizeof(out); i++)
		sprintf(out + 2 * i, "%02x", b->p[i]);
	return out;
}

TEST(varints)
{
	struct pb b = { 0 };

	pb_varint(&b, 0);
	pb_varint(&b, 1);
	pb_varint(&b, 127);
	pb_varint(&b, 128);
	pb_varint(&b, 300);
	CHECK_STR(hex(&b), "00017f8001ac02");
	pb_free(&b);
	pb_varint(&b, UINT64_MAX);
	CHECK_STR(hex(&b), "ffffffffffffffffff01");
	pb_free(&b);
	/* int64 -1, as protobuf writes it: ten bytes. */
	pb_varint(&b, (uint64_t)-1);
	CHECK_INT(b.len, 10);
	pb_free(&b);
}

TEST(integer_and_bytes_fields)
{
	struct pb b = { 0 };

	pb_uint(&b, 1, 150); /* the protobuf documentation's own example */
	CHECK_STR(hex(&b), "089601");
	pb_free(&b);
	pb_bytes(&b, 2, "testing", 7);
	CHECK_STR(hex(&b), "120774657374696e67");
	pb_free(&b);
	pb_bytes(&b, 6, "", 0);
	CHECK_STR(hex(&b), "3200");
	pb_free(&b);
	/* Field 16 needs a two-byte key. */
	pb_uint(&b, 16, 1);
	CHECK_STR(hex(&b), "800101");
	pb_free(&b);
}

TEST(packed_repeated)
{
	struct pb b = { 0 };
	uint64_t v[] = { 3, 270, 86942 };

	pb_packed(&b, 4, v, 3);
	CHECK_STR(hex(&b), "2206038e029ea705");
	pb_free(&b);
	pb_packed(&b, 1, v, 0);
	CHECK_STR(hex(&b), "0a00");
	pb_free(&b);
}

TEST(nested_messages)
{
	struct pb b = { 0 };
	size_t outer, inner;

	outer = pb_begin(&b, 3);
	pb_uint(&b, 1, 150);
	inner = pb_begin(&b, 4);
	pb_uint(&b, 2, 1);
	pb_end(&b, inner);
	pb_end(&b, outer);
	CHECK_STR(hex(&b), "1a07089601220210" "01");
	pb_free(&b);
	/* A body of 200 bytes: its length takes two bytes. */
	outer = pb_begin(&b, 1);
	for (int i = 0; i < 100; i++)
		pb_uint(&b, 1, 0);
	pb_end(&b, outer);
	CHECK_INT(b.len, 1 + 2 + 200);
	CHECK_INT(b.p[1], 0xc8);
	CHECK_INT(b.p[2], 0x01);
	CHECK_INT(b.p[3], 0x08);
	pb_free(&b);
}

TEST(profile_stores_each_thing_once_and_sums_samples)
{
	struct pprof p;
	struct pprof_labels l = { 1, 1, 0, 0, 0, 0, 0 };

	pprof_init(&p);
	CHECK_INT(pprof_string(&p, "", 0), 0);
	uint64_t main_ = pprof_string(&p, "main", 4);
	CHECK_INT(pprof_string(&p, "main", 4), main_);
	uint64_t m = pprof_mapping(&p, 0x1000, 0x2000, 0, "/bin/x", "ab");
	CHECK_INT(m, 1);
	CHECK_INT(pprof_mapping(&p, 0x1000, 0x2000, 0, "/bin/x", "ab"), 1);
	CHECK_INT(pprof_mapping(&p, 0x1000, 0x2000, 0, "/bin/x", ""), 2);
	uint64_t f = pprof_function(&p, main_, main_, 0);
	CHECK_INT(f, 1);
	uint64_t line[2] = { f, 0 };
	uint64_t loc = pprof_location(&p, m, 0x1234, line, 1);
	CHECK_INT(loc, 1);
	CHECK_INT(pprof_location(&p, m, 0x1234, line, 1), 1);
	CHECK_INT(pprof_location(&p, m, 0x1234, NULL, 0), 2);
	uint64_t v[2] = { 1, 10 };
	uint64_t stacks[PPROF_SAMPLE_STACKS] = { 0, 0, pprof_stack(&p, &loc, 1) };
	CHECK_INT(stacks[2], 1);
	CHECK_INT(pprof_stack(&p, &loc, 1), 1);
	pprof_sample(&p, &l, stacks, v);
	pprof_sample(&p, &l, stacks, v);
	/* A stack of no frames adds nothing: the same sample. */
	stacks[1] = pprof_stack(&p, NULL, 0);
	CHECK_INT(stacks[1], 2);
	pprof_sample(&p, &l, stacks, v);
	l.tid = 2;
	pprof_sample(&p, &l, stacks, v);
	CHECK_INT(htab_count(p.samples), 2);
	CHECK_INT(p.values[0][0], 3);
	CHECK_INT(p.values[0][1], 30);
	pprof_free(&p);
}

/* pprof_encode's output, appended to the struct pb ctx. */
static void append(void *ctx, const uint8_t *data, size_t len)
{
	struct pb *b = ctx;

	b->p = realloc(b->p, b->len + len);
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

TEST(pb_flush_hands_on_what_is_held_once_there_is_enough)
{
	struct pb out = { 0 }, b = { .write = append, .ctx = &out };

	pb_uint(&b, 1, 150);
	pb_flush(&b, 4);
	CHECK_INT(out.len, 0);
	pb_uint(&b, 2, 1);
	pb_flush(&b, 4);
	CHECK_INT(b.len, 0);
	CHECK_STR(hex(&out), "0896011001");
	pb_flush(&b, 0);
	CHECK_INT(out.len, 5);
	pb_free(&b);
	pb_free(&out);
}

TEST(a_small_profile_byte_for_byte)
{
	struct pprof p;
	struct pb b = { 0 };
	struct pprof_labels l = { 7, 8, 0, 0, 0, 0, 0 };
	uint64_t v[2] = { 2, 5 };

	pprof_init(&p); /* strings 0 "", 1..7 the label keys */
	uint64_t s = pprof_string(&p, "s", 1), c = pprof_string(&p, "c", 1);
	CHECK_INT(s, 8);
	p.sample_type[0][0] = p.sample_type[0][1] = s;
	p.sample_type[1][0] = p.sample_type[1][1] = c;
	p.period_type[0] = p.period_type[1] = c;
	uint64_t loc = pprof_location(&p, 0, 0x10, NULL, 0);
	uint64_t stacks[PPROF_SAMPLE_STACKS] = { 0, pprof_stack(&p, &loc, 1), 0 };
	pprof_sample(&p, &l, stacks, v);
	/* Sample types (1), the sample (2: location ids 1, values 2,
	 * labels 3 with key 1 and num 3), the location (4: id 1, address 3),
	 * the strings (6), the period type (11) and the default type (14). */
	pprof_encode(&p, append, &b);
	CHECK_STR(hex(&b), "0a0408081008" "0a0408091009"
			       "1213" "0a0101" "12020205" "1a0408011807" "1a0408021808"
			       "2204080118" "10"
			       "3200" "3203706964" "3203746964" "3204636f6d6d"
			       "3206636772" "6f7570" "320c636f6e7461696e65725f6964"
			       "320c73797374656d645f756e6974" "32057761" "6b6572"
			       "320173" "320163"
			       "5a0408091009" "7009");
	pb_free(&b);
	pprof_free(&p);
}

TEST(a_sample_holds_its_stacks_locations_one_after_another)
{
	struct pprof p;
	struct pb b = { 0 };
	struct pprof_labels l = { 7, 8, 0, 0, 0, 0, 0 };
	uint64_t v[2] = { 2, 5 };

	pprof_init(&p);
	uint64_t a = pprof_location(&p, 0, 0x10, NULL, 0), c = pprof_location(&p, 0, 0x20, NULL, 0);
	uint64_t two[2] = { c, a };
	uint64_t stacks[PPROF_SAMPLE_STACKS] = { pprof_stack(&p, &a, 1), pprof_stack(&p, NULL, 0),
						 pprof_stack(&p, two, 2) };
	CHECK_INT(htab_count(p.stacks), 3);
	pprof_sample(&p, &l, stacks, v);
	pprof_encode(&p, append, &b);
	/* After the sample types (12 bytes): the sample, location ids 1, 2
	 * and 1; its values and labels as above. */
	CHECK(strncmp(hex(&b) + 2 * 12, "1215" "0a03010201" "12020205", 2 * 11) == 0);
	pb_free(&b);
	pprof_free(&p);
}
