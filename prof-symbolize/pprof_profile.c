#include "pprof_profile.h"

#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "saturate.h"

/* profile.proto's field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1,
	VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	SAMPLE_LABEL = 3,
	LABEL_KEY = 1,
	LABEL_STR = 2,
	LABEL_NUM = 3,
	MAPPING_ID = 1,
	MAPPING_MEMORY_START = 2,
	MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILE_OFFSET = 4,
	MAPPING_FILENAME = 5,
	MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8,
	MAPPING_HAS_LINE_NUMBERS = 9,
	MAPPING_HAS_INLINE_FRAMES = 10,
	LOCATION_ID = 1,
	LOCATION_MAPPING_ID = 2,
	LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	LINE_LINE = 2,
	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
};

/* The labels' keys, in struct pprof_labels' order (pid, tid numeric). */
static const char *const label_keys[] = { "pid",	  "tid",	  "comm",  "cgroup",
					  "container_id", "systemd_unit", "waker", "state" };
#define NLABELS (sizeof(label_keys) / sizeof(label_keys[0]))

/* What the profile holds at most: the capture decides how many distinct
 * locations, stacks and samples there are (a SAMPLE may name a stack in a
 * process state of its own, whose every frame is then a new location),
 * so they are bounded here.  Past a bound the profile stays what it says:
 * a location made again has a new id, and a sample written out and met
 * again is written again, which readers add up. */
#define MAX_LOCATIONS (1u << 20) /* about 90 MB */
#define MAX_STACK_IDS (1u << 22) /* location ids in stacks: 32 MB, and their table */
#define MAX_SAMPLES (1u << 20)	 /* about 110 MB */

/* Pieces of the encoded profile are handed on at this size or more. */
#define ENCODE_FLUSH (1u << 16)

void pprof_init(struct pprof *p, void (*write)(void *ctx, const uint8_t *data, size_t len),
		void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->out = (struct pb){ .write = write, .ctx = ctx };
	p->max_locations = MAX_LOCATIONS;
	p->max_stack_ids = MAX_STACK_IDS;
	p->max_samples = MAX_SAMPLES;
	p->strings = htab_new();
	p->mappings = htab_new();
	p->functions = htab_new();
	p->locations = htab_new();
	p->stacks = htab_new();
	p->samples = htab_new();
	pprof_string(p, "", 0);
	for (size_t i = 0; i < NLABELS; i++)
		pprof_string(p, label_keys[i], strlen(label_keys[i]));
}

void pprof_free(struct pprof *p)
{
	htab_free(p->strings);
	htab_free(p->mappings);
	htab_free(p->functions);
	htab_free(p->locations);
	htab_free(p->stacks);
	htab_free(p->samples);
	free(p->maps);
	free(p->values);
	pb_free(&p->out);
}

/* The id of key in h: its place in insertion order, from 1.  *created
 * says whether it is new. */
static uint64_t intern(struct htab *h, const void *key, size_t len, bool *created)
{
	struct htab_entry *e = htab_upsert(h, key, len, created);

	if (*created)
		e->val.u = htab_count(h);
	return e->val.u;
}

uint64_t pprof_string(struct pprof *p, const char *s, size_t len)
{
	bool created;

	return intern(p->strings, s, len, &created) - 1;
}

static uint64_t add_mapping(struct pprof *p, const uint64_t key[5])
{
	bool created;
	uint64_t id = intern(p->mappings, key, 5 * sizeof(key[0]), &created);

	if (created) {
		p->maps = xreserve_from(p->maps, &p->maps_cap, id, sizeof(*p->maps), 16);
		p->maps[id - 1] = (struct pprof_mapping){ 0 };
	}
	return id;
}

uint64_t pprof_mapping(struct pprof *p, uint64_t start, uint64_t limit, uint64_t offset,
		       const char *file, const char *build_id)
{
	uint64_t key[5] = { start, limit, offset, pprof_string(p, file, strlen(file)),
			    pprof_string(p, build_id, strlen(build_id)) };

	return add_mapping(p, key);
}

uint64_t pprof_kernel_mapping(struct pprof *p, uint64_t ip)
{
	if (!p->kernel) {
		/* Its range is the addresses seen, set when encoding. */
		uint64_t key[5] = { 0, 0, 0, pprof_string(p, "[kernel.kallsyms]", 17), 0 };
		p->kernel = add_mapping(p, key);
		p->kstart = ip;
	}
	if (ip < p->kstart)
		p->kstart = ip;
	if (ip >= p->klimit)
		p->klimit = ip == UINT64_MAX ? ip : ip + 1;
	return p->kernel;
}

uint64_t pprof_function(struct pprof *p, uint64_t name, uint64_t system_name, uint64_t file)
{
	uint64_t key[3] = { name, system_name, file };
	bool created;

	return intern(p->functions, key, sizeof(key), &created);
}

static void encode_location(struct pb *b, uint64_t id, const uint64_t *k, size_t n)
{
	size_t at = pb_begin(b, PROFILE_LOCATION);

	pb_uint(b, LOCATION_ID, id);
	if (k[0])
		pb_uint(b, LOCATION_MAPPING_ID, k[0]);
	if (k[1])
		pb_uint(b, LOCATION_ADDRESS, k[1]);
	for (size_t l = 2; l + 1 < n; l += 2) {
		size_t lat = pb_begin(b, LOCATION_LINE);
		pb_uint(b, LINE_FUNCTION_ID, k[l]);
		if (k[l + 1])
			pb_uint(b, LINE_LINE, k[l + 1]);
		pb_end(b, lat);
	}
	pb_end(b, at);
	pb_flush(b, ENCODE_FLUSH);
}

/* Locations are written when made, so the table only finds them again:
 * when it is full it starts over. */
static uint64_t location(struct pprof *p, uint64_t mapping, uint64_t address,
			 const uint64_t *lines, size_t nlines, bool resolved)
{
	uint64_t stack[2 + 2 * 16], *key = stack;
	size_t n = 2 + 2 * nlines;
	struct htab_entry *e;
	bool created;

	if (n > sizeof(stack) / sizeof(stack[0]))
		key = xreallocarray(NULL, n, sizeof(*key));
	key[0] = mapping;
	key[1] = address;
	if (nlines) /* an unresolved location has none, and maybe no array */
		memcpy(key + 2, lines, 2 * nlines * sizeof(*lines));
	if (htab_count(p->locations) >= p->max_locations) {
		htab_free(p->locations);
		p->locations = htab_new();
	}
	e = htab_upsert(p->locations, key, n * sizeof(*key), &created);
	if (created) {
		e->val.u = ++p->nlocations;
		encode_location(&p->out, e->val.u, key, n);
		if (mapping) {
			p->maps[mapping - 1].resolved += resolved;
			p->maps[mapping - 1].unresolved += !resolved;
		}
	}
	if (key != stack)
		free(key);
	return e->val.u;
}

uint64_t pprof_location(struct pprof *p, uint64_t mapping, uint64_t address, const uint64_t *lines,
			size_t nlines)
{
	return location(p, mapping, address, lines, nlines, nlines > 0);
}

uint64_t pprof_unresolved_location(struct pprof *p, uint64_t mapping, uint64_t address,
				   uint64_t function)
{
	const uint64_t line[2] = { function, 0 };

	return location(p, mapping, address, line, 1, false);
}

uint64_t pprof_stack(struct pprof *p, const uint64_t *locs, size_t nlocs)
{
	bool created;
	uint64_t id;

	id = intern(p->stacks, nlocs ? locs : (const void *)"", nlocs * sizeof(*locs), &created);
	if (created)
		p->stack_ids += nlocs;
	return id;
}

void pprof_sample(struct pprof *p, const struct pprof_labels *labels,
		  const uint64_t stacks[PPROF_SAMPLE_STACKS], const uint64_t values[2])
{
	struct htab_entry *st = htab_entries(p->stacks);
	uint64_t key[NLABELS + PPROF_SAMPLE_STACKS];
	bool created;
	uint64_t i;

	memcpy(key, labels, sizeof(*labels));
	/* A stack of no frames is none: the sample's locations are the
	 * same. */
	for (size_t j = 0; j < PPROF_SAMPLE_STACKS; j++)
		key[NLABELS + j] = stacks[j] && st[stacks[j] - 1].len ? stacks[j] : 0;
	i = intern(p->samples, key, sizeof(key), &created) - 1;
	if (created) {
		p->values = xreserve(p->values, &p->values_cap, i + 1, sizeof(*p->values));
		p->values[i][0] = p->values[i][1] = 0;
	}
	p->values[i][0] = add_sat(p->values[i][0], values[0]);
	p->values[i][1] = add_sat(p->values[i][1], values[1]);
}

/* The key of an entry as integers (keys are stored unaligned). */
static uint64_t *key_of(const struct htab_entry *e, uint64_t **buf, size_t *cap, size_t *n)
{
	*n = e->len / sizeof(uint64_t);
	if (*n > *cap) {
		*cap = *n * 2;
		*buf = xreallocarray(*buf, *cap, sizeof(**buf));
	}
	memcpy(*buf, e->key, e->len);
	return *buf;
}

static void encode_value_type(struct pb *b, uint32_t field, const uint64_t vt[2])
{
	size_t at = pb_begin(b, field);

	pb_uint(b, VALUE_TYPE_TYPE, vt[0]);
	pb_uint(b, VALUE_TYPE_UNIT, vt[1]);
	pb_end(b, at);
}

/* Values are int64 in the profile: larger sums are kept at its maximum. */
static uint64_t clamp(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : v;
}

/* A sample's locations: its stacks', one after another, in *buf. */
static size_t sample_locations(struct pprof *p, const uint64_t *stacks, uint64_t **buf, size_t *cap)
{
	struct htab_entry *st = htab_entries(p->stacks);
	size_t n = 0;

	for (size_t j = 0; j < PPROF_SAMPLE_STACKS; j++) {
		if (!stacks[j])
			continue;
		const struct htab_entry *e = &st[stacks[j] - 1];
		size_t len = e->len / sizeof(uint64_t);
		if (n + len > *cap) {
			*cap = 2 * (n + len);
			*buf = xreallocarray(*buf, *cap, sizeof(**buf));
		}
		memcpy(*buf + n, e->key, e->len);
		n += len;
	}
	return n;
}

static void encode_samples(struct pprof *p)
{
	struct htab_entry *e = htab_entries(p->samples);
	uint64_t k[NLABELS + PPROF_SAMPLE_STACKS], *locs = NULL;
	size_t nlocs, cap = 0;
	struct pb *b = &p->out;

	for (size_t i = 0; i < htab_count(p->samples); i++) {
		uint64_t v[2] = { clamp(p->values[i][0]), clamp(p->values[i][1]) };
		size_t at = pb_begin(b, PROFILE_SAMPLE);

		memcpy(k, e[i].key, sizeof(k));
		nlocs = sample_locations(p, k + NLABELS, &locs, &cap);
		pb_packed(b, SAMPLE_LOCATION_ID, locs, nlocs);
		pb_packed(b, SAMPLE_VALUE, v, 2);
		for (size_t l = 0; l < NLABELS; l++) {
			if (l >= 2 && !k[l])
				continue;
			size_t lat = pb_begin(b, SAMPLE_LABEL);
			pb_uint(b, LABEL_KEY, l + 1); /* the keys follow "" */
			pb_uint(b, l < 2 ? LABEL_NUM : LABEL_STR, k[l]);
			pb_end(b, lat);
		}
		pb_end(b, at);
		pb_flush(b, ENCODE_FLUSH);
	}
	free(locs);
}

void pprof_make_room(struct pprof *p)
{
	if (p->stack_ids < p->max_stack_ids && htab_count(p->samples) < p->max_samples)
		return;
	encode_samples(p);
	htab_free(p->samples);
	htab_free(p->stacks);
	p->samples = htab_new();
	p->stacks = htab_new();
	p->stack_ids = 0;
	p->epoch++;
}

static void encode_mappings(struct pprof *p, struct pb *b, uint64_t **buf, size_t *cap)
{
	struct htab_entry *e = htab_entries(p->mappings);
	size_t n;

	for (size_t i = 0; i < htab_count(p->mappings); i++) {
		uint64_t *k = key_of(&e[i], buf, cap, &n);
		const struct pprof_mapping *m = &p->maps[i];
		/* pprof symbolizes again a mapping without functions: one with
		 * any address left unresolved. */
		bool functions = m->resolved && !m->unresolved;
		size_t at = pb_begin(b, PROFILE_MAPPING);

		if (i + 1 == p->kernel)
			k[0] = p->kstart, k[1] = p->klimit;
		pb_uint(b, MAPPING_ID, i + 1);
		pb_uint(b, MAPPING_MEMORY_START, k[0]);
		pb_uint(b, MAPPING_MEMORY_LIMIT, k[1]);
		if (k[2])
			pb_uint(b, MAPPING_FILE_OFFSET, k[2]);
		pb_uint(b, MAPPING_FILENAME, k[3]);
		if (k[4])
			pb_uint(b, MAPPING_BUILD_ID, k[4]);
		if (functions) {
			pb_uint(b, MAPPING_HAS_FUNCTIONS, 1);
			if (p->lines) {
				pb_uint(b, MAPPING_HAS_FILENAMES, 1);
				pb_uint(b, MAPPING_HAS_LINE_NUMBERS, 1);
			}
			if (p->inline_frames)
				pb_uint(b, MAPPING_HAS_INLINE_FRAMES, 1);
		}
		pb_end(b, at);
		pb_flush(b, ENCODE_FLUSH);
	}
}

static void encode_functions(struct pprof *p, struct pb *b, uint64_t **buf, size_t *cap)
{
	struct htab_entry *e = htab_entries(p->functions);
	size_t n;

	for (size_t i = 0; i < htab_count(p->functions); i++) {
		uint64_t *k = key_of(&e[i], buf, cap, &n);
		size_t at = pb_begin(b, PROFILE_FUNCTION);

		pb_uint(b, FUNCTION_ID, i + 1);
		pb_uint(b, FUNCTION_NAME, k[0]);
		pb_uint(b, FUNCTION_SYSTEM_NAME, k[1]);
		if (k[2])
			pb_uint(b, FUNCTION_FILENAME, k[2]);
		pb_end(b, at);
		pb_flush(b, ENCODE_FLUSH);
	}
}

void pprof_end(struct pprof *p)
{
	struct htab_entry *s = htab_entries(p->strings);
	struct pb *b = &p->out;
	uint64_t *buf = NULL;
	size_t cap = 0;

	/* The profile is the outermost message: its fields have no length
	 * to write before them, and may come in any order. */
	encode_samples(p);
	encode_value_type(b, PROFILE_SAMPLE_TYPE, p->sample_type[0]);
	encode_value_type(b, PROFILE_SAMPLE_TYPE, p->sample_type[1]);
	encode_mappings(p, b, &buf, &cap);
	encode_functions(p, b, &buf, &cap);
	free(buf);
	for (size_t i = 0; i < htab_count(p->strings); i++) {
		pb_bytes(b, PROFILE_STRING_TABLE, s[i].key, s[i].len);
		pb_flush(b, ENCODE_FLUSH);
	}
	if (p->time_nanos)
		pb_uint(b, PROFILE_TIME_NANOS, clamp(p->time_nanos));
	if (p->duration_nanos)
		pb_uint(b, PROFILE_DURATION_NANOS, clamp(p->duration_nanos));
	encode_value_type(b, PROFILE_PERIOD_TYPE, p->period_type);
	if (p->period)
		pb_uint(b, PROFILE_PERIOD, clamp(p->period));
	if (p->ncomments)
		pb_packed(b, PROFILE_COMMENT, p->comments, p->ncomments);
	pb_uint(b, PROFILE_DEFAULT_SAMPLE_TYPE, p->sample_type[1][0]);
	pb_flush(b, 0);
}
