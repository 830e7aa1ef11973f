/*
 * libFuzzer target: a hostile capture through prof-symbolize's pprof
 * writer, its bounds on what it holds lowered so that small inputs pass
 * them (locations made again, samples written out and met again), and
 * the profile it writes read back as a pprof reader would: gunzipped,
 * then every reference resolved (samples to locations, locations to
 * mappings and functions, all to strings).  A profile a reader would
 * refuse aborts.  tests/fuzz/run gives it an RSS limit: what the writer
 * holds is bounded whatever the capture.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "capture.h"
#include "htab.h"
#include "pprof_profile.h"
#include "pprof_sink.h"
#include "symbolizer.h"

/* The protobuf of a message, read field by field. */
struct msg {
	const uint8_t *p, *end;
};

struct field {
	uint32_t number;
	int wire;
	uint64_t v;	  /* a varint's value, or the bytes' length */
	struct msg bytes; /* of a length-delimited field */
};

static uint64_t varint(struct msg *m)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		if (m->p == m->end)
			abort(); /* a field cut short */
		uint8_t c = *m->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	abort(); /* a varint of more than ten bytes */
}

static int next(struct msg *m, struct field *f)
{
	if (m->p == m->end)
		return 0;
	uint64_t key = varint(m);
	f->number = (uint32_t)(key >> 3);
	f->wire = (int)(key & 7);
	f->v = varint(m);
	if (f->wire == 2) {
		if (f->v > (uint64_t)(m->end - m->p))
			abort();
		f->bytes = (struct msg){ m->p, m->p + f->v };
		m->p += f->v;
	} else if (f->wire != 0) {
		abort(); /* the writer uses varints and bytes only */
	}
	return 1;
}

/* What the profile defines and what it refers to, checked at its end:
 * fields may come in any order. */
struct profile {
	struct htab *locations, *functions, *mappings; /* ids defined */
	struct htab *loc_refs, *fn_refs, *map_refs;    /* ids referred to */
	uint64_t nstrings;   /* the string table's size */
	uint64_t max_string; /* the highest string index used */
	uint64_t sample_types;
	int first_string_empty;
};

static void define(struct htab *h, uint64_t id)
{
	bool created;

	if (!id)
		abort(); /* ids are never 0 */
	htab_upsert(h, &id, sizeof(id), &created);
	if (!created)
		abort(); /* two definitions of one id */
}

static void refer(struct htab *h, uint64_t id)
{
	if (id)
		htab_upsert(h, &id, sizeof(id), NULL);
}

static void string(struct profile *p, uint64_t i)
{
	if (i > p->max_string)
		p->max_string = i;
}

static void packed(struct msg m, struct htab *refs, uint64_t *n)
{
	while (m.p < m.end) {
		uint64_t v = varint(&m);
		if (refs)
			refer(refs, v);
		(*n)++;
	}
}

static void sample(struct profile *p, struct msg m)
{
	struct field f, g;
	uint64_t nlocs = 0, nvalues = 0;

	while (next(&m, &f)) {
		if (f.number == 1)
			packed(f.bytes, p->loc_refs, &nlocs);
		else if (f.number == 2)
			packed(f.bytes, NULL, &nvalues);
		else if (f.number == 3)
			while (next(&f.bytes, &g))
				if (g.number == 1 || g.number == 2)
					string(p, g.v); /* the key, a string value */
	}
	if (nvalues != 2)
		abort(); /* one value per sample type */
}

static void location(struct profile *p, struct msg m)
{
	struct field f, g;
	uint64_t id = 0;

	while (next(&m, &f)) {
		if (f.number == 1)
			id = f.v;
		else if (f.number == 2)
			refer(p->map_refs, f.v);
		else if (f.number == 4)
			while (next(&f.bytes, &g))
				if (g.number == 1)
					refer(p->fn_refs, g.v);
	}
	define(p->locations, id);
}

static void function(struct profile *p, struct msg m)
{
	struct field f;
	uint64_t id = 0;

	while (next(&m, &f)) {
		if (f.number == 1)
			id = f.v;
		else if (f.number >= 2 && f.number <= 4)
			string(p, f.v);
	}
	define(p->functions, id);
}

static void mapping(struct profile *p, struct msg m)
{
	struct field f;
	uint64_t id = 0;

	while (next(&m, &f)) {
		if (f.number == 1)
			id = f.v;
		else if (f.number == 5 || f.number == 6)
			string(p, f.v);
	}
	define(p->mappings, id);
}

static void value_type(struct profile *p, struct msg m)
{
	struct field f;

	while (next(&m, &f))
		string(p, f.v);
}

/* Every id referred to in refs is one defs defines. */
static void resolved(struct htab *refs, struct htab *defs)
{
	struct htab_entry *e = htab_entries(refs);

	for (size_t i = 0; i < htab_count(refs); i++)
		if (!htab_find(defs, e[i].key, e[i].len))
			abort();
}

static void check_profile(const uint8_t *data, size_t len)
{
	struct profile p = { .locations = htab_new(), .functions = htab_new(),
			     .mappings = htab_new(), .loc_refs = htab_new(),
			     .fn_refs = htab_new(), .map_refs = htab_new() };
	struct msg m = { data, data + len };
	struct field f;

	while (next(&m, &f)) {
		switch (f.number) {
		case 1:
			p.sample_types++;
			value_type(&p, f.bytes);
			break;
		case 2:
			sample(&p, f.bytes);
			break;
		case 3:
			mapping(&p, f.bytes);
			break;
		case 4:
			location(&p, f.bytes);
			break;
		case 5:
			function(&p, f.bytes);
			break;
		case 6:
			if (!p.nstrings++)
				p.first_string_empty = f.v == 0;
			break;
		case 11:
			value_type(&p, f.bytes);
			break;
		case 13: {
			struct msg c = f.bytes;
			while (c.p < c.end)
				string(&p, varint(&c));
			break;
		}
		case 14:
			string(&p, f.v);
			break;
		}
	}
	if (p.sample_types != 2 || !p.first_string_empty || p.max_string >= p.nstrings)
		abort();
	resolved(p.loc_refs, p.locations);
	resolved(p.fn_refs, p.functions);
	resolved(p.map_refs, p.mappings);
	htab_free(p.locations);
	htab_free(p.functions);
	htab_free(p.mappings);
	htab_free(p.loc_refs);
	htab_free(p.fn_refs);
	htab_free(p.map_refs);
}

/* The gzip stream's content; aborts if it is not one whole stream. */
static uint8_t *gunzip(const uint8_t *in, size_t len, size_t *out_len)
{
	z_stream z = { 0 };
	size_t cap = 1 << 16;
	uint8_t *out = malloc(cap);
	int st;

	if (!out || inflateInit2(&z, 15 + 16) != Z_OK)
		abort();
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	do {
		if (z.total_out == cap && !(out = realloc(out, cap *= 2)))
			abort();
		z.next_out = out + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out);
		st = inflate(&z, Z_NO_FLUSH);
	} while (st == Z_OK);
	if (st != Z_STREAM_END || z.avail_in)
		abort();
	*out_len = z.total_out;
	inflateEnd(&z);
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char root[] = "/tmp/fuzz-symbolize-pprof.XXXXXX";
	static bool made;
	static const char *no_dirs[1];
	struct symbolize_opts opt = { .debug_dirs = no_dirs, .inline_frames = true, .lines = true,
				      .demangle = true };
	char *profile = NULL;
	size_t profile_len = 0, len;
	FILE *in, *out;
	struct cap_reader r;
	struct cap_record rec;
	struct symbolizer s;
	struct pprof *p;
	uint8_t *pb;

	if (!size)
		return 0;
	if (!made && !mkdtemp(root))
		abort();
	made = true;
	opt.sysroot = root;
	in = fmemopen((void *)data, size, "r");
	out = open_memstream(&profile, &profile_len);
	if (!in || !out || !symbolizer_init(&s, &opt))
		abort();
	s.sink = pprof_sink_new(out, &opt);
	/* Low enough for a few records to pass them. */
	p = pprof_sink_profile(s.sink);
	p->max_locations = 8;
	p->max_stack_ids = 16;
	p->max_samples = 4;
	if (capr_open(&r, in) == CAPR_OK)
		while (capr_next(&r, &rec) == CAPR_OK)
			symbolizer_record(&s, &rec);
	symbolizer_finish(&s);
	symbolizer_free(&s);
	s.sink->free(s.sink);
	capr_free(&r);
	fclose(in);
	fclose(out);
	pb = gunzip((const uint8_t *)profile, profile_len, &len);
	check_profile(pb, len);
	free(pb);
	free(profile);
	return 0;
}
