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

/* pprof_init's writer: appends to the struct pb ctx. */
static void append(void *ctx, const uint8_t *data, size_t len)
{
	struct pb *b = ctx;

	b->p = realloc(b->p, b->len + len);
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

TEST(profile_stores_each_thing_once_and_sums_samples)
{
	struct pprof p;
	struct pprof_labels l = { .pid = 1, .tid = 1 };

	pprof_init(&p, NULL, NULL);
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
	struct pprof_labels l = { .pid = 7, .tid = 8 };
	uint64_t v[2] = { 2, 5 };

	pprof_init(&p, append, &b); /* strings 0 "", 1..8 the label keys */
	uint64_t s = pprof_string(&p, "s", 1), c = pprof_string(&p, "c", 1);
	CHECK_INT(s, 9);
	p.sample_type[0][0] = p.sample_type[0][1] = s;
	p.sample_type[1][0] = p.sample_type[1][1] = c;
	p.period_type[0] = p.period_type[1] = c;
	uint64_t loc = pprof_location(&p, 0, 0x10, NULL, 0);
	uint64_t stacks[PPROF_SAMPLE_STACKS] = { 0, pprof_stack(&p, &loc, 1), 0 };
	pprof_sample(&p, &l, stacks, v);
	/* The location (4: id 1, address 3) as it was made; at the end the
	 * sample (2: location ids 1, values 2, labels 3 with key 1 and num
	 * 3), the sample types (1), the strings (6), the period type (11)
	 * and the default type (14). */
	pprof_end(&p);
	CHECK_STR(hex(&b), "2204080118" "10"
			       "1213" "0a0101" "12020205" "1a0408011807" "1a0408021808"
			       "0a0408091009" "0a04080a100a"
			       "3200" "3203706964" "3203746964" "3204636f6d6d"
			       "3206636772" "6f7570" "320c636f6e7461696e65725f6964"
			       "320c73797374656d645f756e6974" "32057761" "6b6572"
			       "32057374" "617465" "320173" "320163"
			       "5a04080a100a" "700a");
	pb_free(&b);
	pprof_free(&p);
}

TEST(a_sample_holds_its_stacks_locations_one_after_another)
{
	struct pprof p;
	struct pb b = { 0 };
	struct pprof_labels l = { .pid = 7, .tid = 8 };
	uint64_t v[2] = { 2, 5 };

	pprof_init(&p, append, &b);
	uint64_t a = pprof_location(&p, 0, 0x10, NULL, 0), c = pprof_location(&p, 0, 0x20, NULL, 0);
	uint64_t two[2] = { c, a };
	uint64_t stacks[PPROF_SAMPLE_STACKS] = { pprof_stack(&p, &a, 1), pprof_stack(&p, NULL, 0),
						 pprof_stack(&p, two, 2) };
	CHECK_INT(htab_count(p.stacks), 3);
	pprof_sample(&p, &l, stacks, v);
	pprof_end(&p);
	/* After the two locations (12 bytes): the sample, location ids 1, 2
	 * and 1; its values and labels as above. */
	CHECK(strncmp(hex(&b) + 2 * 12, "1215" "0a03010201" "12020205", 2 * 11) == 0);
	pb_free(&b);
	pprof_free(&p);
}

/* A varint at *p, before end; *p moves past it. */
static uint64_t get_varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;

	for (int shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t c = *(*p)++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			break;
	}
	return v;
}

/* What a reader makes of a profile's samples and locations. */
struct decoded {
	size_t samples, locations;
	uint64_t count;	     /* the samples' first values, summed */
	bool undefined;	     /* a sample names a location no Location defines */
	bool defined[64];    /* location ids */
	uint64_t named[256]; /* the location ids samples name */
	size_t nnamed;
};

/* Calls f on each field of the message in [p, end): number, and its
 * varint or its bytes. */
static void fields(const uint8_t *p, const uint8_t *end, struct decoded *d,
		   void (*f)(struct decoded *, uint32_t, uint64_t, const uint8_t *, const uint8_t *))
{
	while (p < end) {
		uint64_t key = get_varint(&p, end), v = get_varint(&p, end);
		const uint8_t *body = (key & 7) == PB_LEN ? p : NULL;

		if (body)
			p += v;
		f(d, (uint32_t)(key >> 3), v, body, body ? body + v : NULL);
	}
}

static void sample_field(struct decoded *d, uint32_t n, uint64_t v, const uint8_t *p,
			 const uint8_t *end)
{
	(void)v;
	if (n == 1)
		while (p < end && d->nnamed < 256)
			d->named[d->nnamed++] = get_varint(&p, end);
	if (n == 2)
		d->count += get_varint(&p, end);
}

static void location_field(struct decoded *d, uint32_t n, uint64_t v, const uint8_t *p,
			   const uint8_t *end)
{
	(void)p, (void)end;
	if (n == 1 && v < 64)
		d->defined[v] = true;
}

static void profile_field(struct decoded *d, uint32_t n, uint64_t v, const uint8_t *p,
			  const uint8_t *end)
{
	(void)v;
	if (n == 2) {
		d->samples++;
		fields(p, end, d, sample_field);
	} else if (n == 4) {
		d->locations++;
		fields(p, end, d, location_field);
	}
}

static struct decoded decode(const struct pb *b)
{
	struct decoded d = { 0 };

	fields(b->p, b->p + b->len, &d, profile_field);
	for (size_t i = 0; i < d.nnamed; i++)
		d.undefined = d.undefined || d.named[i] >= 64 || !d.defined[d.named[i]];
	return d;
}

/* A capture decides how many locations, stacks and samples there are: past
 * the profile's bounds it writes out what it has and goes on, and the
 * profile still says the same. */
TEST(a_full_profile_writes_out_and_goes_on)
{
	struct pprof p;
	struct pb b = { 0 };
	struct pprof_labels l = { .pid = 7, .tid = 8 };
	uint64_t v[2] = { 1, 1 }, locs[3], epoch;

	pprof_init(&p, append, &b);
	p.max_locations = 4;
	p.max_samples = 2;
	p.max_stack_ids = 1000;
	for (uint64_t i = 0; i < 3; i++)
		locs[i] = pprof_location(&p, 0, 0x10 * (i + 1), NULL, 0);
	/* Five samples of distinct threads, two at most held at a time. */
	for (l.tid = 1; l.tid <= 5; l.tid++) {
		epoch = p.epoch;
		pprof_make_room(&p);
		CHECK_INT(p.epoch, epoch + (l.tid == 3 || l.tid == 5));
		CHECK(htab_count(p.samples) < 2);
		uint64_t stacks[PPROF_SAMPLE_STACKS] = { 0, 0, pprof_stack(&p, locs, 3) };
		pprof_sample(&p, &l, stacks, v);
	}
	/* The fifth location empties the table: the first, made again, is
	 * a new one, and so is its id. */
	CHECK_INT(pprof_location(&p, 0, 0x40, NULL, 0), 4);
	CHECK_INT(pprof_location(&p, 0, 0x50, NULL, 0), 5);
	CHECK_INT(pprof_location(&p, 0, 0x10, NULL, 0), 6);
	CHECK_INT(pprof_location(&p, 0, 0x50, NULL, 0), 5);
	uint64_t stacks[PPROF_SAMPLE_STACKS] = { 0, pprof_stack(&p, locs, 1), 0 };
	pprof_sample(&p, &l, stacks, v);
	pprof_end(&p);
	struct decoded d = decode(&b);
	CHECK_INT(d.samples, 6);
	CHECK_INT(d.count, 6);
	CHECK_INT(d.locations, 6);
	CHECK_INT(d.nnamed, 5 * 3 + 1);
	CHECK(!d.undefined);
	pb_free(&b);
	pprof_free(&p);
}
