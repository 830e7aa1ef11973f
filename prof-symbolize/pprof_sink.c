#include "pprof_sink.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "build_id.h"
#include "cgroup_labels.h"
#include "demangle.h"
#include "diag.h"
#include "offcpu_words.h"
#include "pprof_profile.h"

enum capture_kind { ON_CPU, OFF_CPU, WALL };

/* The profile's compression onto out, as the profile is written. */
struct gzip_out {
	z_stream z;
	FILE *out;
};

struct pprof_sink {
	struct sink sink;
	struct gzip_out gz;
	struct demangler *demangler; /* NULL: --no-demangle */
	bool bare_unresolved;
	struct pprof prof;
	enum capture_kind kind;
	uint64_t period_ns;
	uint64_t *locs;	  /* a stack's location ids */
	size_t locs_cap;
};

/* A string as the frames would print it (section 2): control characters
 * replaced, so that neither pprof's terminal output nor a flame graph's
 * text carries them. */
static uint64_t clean_string(struct pprof *p, const char *s, size_t len)
{
	char *copy = xstrndup(s, len);
	uint64_t i;

	printable(copy, strlen(copy));
	i = pprof_string(p, copy, strlen(copy));
	free(copy);
	return i;
}

static uint64_t cstring(struct pprof *p, const char *s)
{
	return clean_string(p, s, strlen(s));
}

static uint64_t function_of(struct pprof_sink *k, const struct resolved *r)
{
	uint64_t name = cstring(&k->prof, k->demangler ? demangled(k->demangler, r->name) : r->name);

	return pprof_function(&k->prof, name, cstring(&k->prof, r->name),
			      r->file ? cstring(&k->prof, r->file) : 0);
}

static uint64_t mapping_of(struct pprof_sink *k, const struct frame *f)
{
	char hex[2 * CAP_BUILD_ID_MAX + 1] = "";
	const struct cap_map *m = f->map;

	switch (f->where) {
	case FRAME_KERNEL:
		return pprof_kernel_mapping(&k->prof, f->ip);
	case FRAME_FILE:
		if (m->build_id_len)
			build_id_hex(m->build_id, m->build_id_len, hex);
		char *path = xstrdup(m->path.s);
		printable(path, strlen(path));
		uint64_t id = pprof_mapping(&k->prof, m->start, m->end, m->pgoff, path, hex);
		free(path);
		return id;
	default:
		return 0; /* JIT code, or unmapped: no file to map */
	}
}

/* What an unresolved frame is called, as folded stacks call it
 * (docs/FORMATS.md section 3): the base name of its file or module in
 * brackets, so that every pprof reader has a function to show (speedscope
 * leaves out a location without one, and its time with it). */
static uint64_t unresolved_function(struct pprof_sink *k, const struct frame *f)
{
	char name[4096];
	const char *base = NULL;

	switch (f->where) {
	case FRAME_FILE:
		base = f->module && f->module[0] ? f->module : NULL;
		break;
	case FRAME_KERNEL:
		base = f->module && f->module[0] ? f->module : "kernel.kallsyms";
		break;
	default:
		break;
	}
	snprintf(name, sizeof(name), "[%s]", base ? base : "unknown");
	uint64_t id = cstring(&k->prof, name);
	return pprof_function(&k->prof, id, id, 0);
}

/* One location per address: its frame and the functions inlined there
 * before it (innermost first, as in the profile). *used: how many frames
 * it took. */
static uint64_t location_of(struct pprof_sink *k, const struct frame *f, size_t n, size_t *used)
{
	uint64_t lines[2 * MAX_INLINE + 2];
	size_t i = 0, nl = 0;

	for (; i < n; i++) {
		if (f[i].r.name && nl < MAX_INLINE + 1) {
			lines[2 * nl] = function_of(k, &f[i].r);
			lines[2 * nl++ + 1] = f[i].r.file ? (uint64_t)(uint32_t)f[i].r.line : 0;
		}
		if (!f[i].r.inlined || i + 1 == n || f[i + 1].ip != f[i].ip)
			break;
	}
	*used = i + 1;
	if (nl == 0 && !k->bare_unresolved)
		return pprof_unresolved_location(&k->prof, mapping_of(k, f), f->ip,
						 unresolved_function(k, f));
	return pprof_location(&k->prof, mapping_of(k, f), f->ip, lines, nl);
}

static void push_loc(struct pprof_sink *k, size_t *n, uint64_t id)
{
	k->locs = xreserve(k->locs, &k->locs_cap, *n + 1, sizeof(*k->locs));
	k->locs[(*n)++] = id;
}

/* A slot holds a stack's id and the profile's epoch when it was made:
 * pprof_make_room makes the ids of earlier epochs invalid. */
_Static_assert(sizeof(void *) == sizeof(uint64_t), "a slot holds an epoch and an id");

static uint64_t stack_slot(struct pprof_sink *k, uint64_t id)
{
	return k->prof.epoch << 32 | id;
}

static uint64_t slot_stack(struct pprof_sink *k, uint64_t slot)
{
	return slot >> 32 == (k->prof.epoch & UINT32_MAX) ? slot & UINT32_MAX : 0;
}

/* A stack's id in the profile, made once per stack and process state
 * (the slot holds it) and again after the profile wrote its stacks out. */
static uint64_t stack_of(struct pprof_sink *k, struct symbolizer *s, uint32_t pid, uint32_t id,
			 bool kernel)
{
	uint64_t st;
	bool first;
	void **slot;

	if (!id)
		return 0;
	slot = symbolizer_slot(s, pid, id, kernel, &first);
	if (!(st = slot_stack(k, (uintptr_t)*slot))) {
		size_t nf, n = 0, used;
		const struct frame *f = symbolizer_frames(s, pid, id, kernel, first, &nf);
		for (size_t i = 0; i < nf; i += used)
			push_loc(k, &n, location_of(k, f + i, nf - i, &used));
		st = pprof_stack(&k->prof, k->locs, n);
		*slot = (void *)(uintptr_t)stack_slot(k, st);
	}
	return st;
}

static uint64_t thread_string(struct pprof_sink *k, struct symbolizer *s, uint32_t pid,
			      uint32_t tid)
{
	const char *comm = symbolizer_comm(s, tid);
	char *t;
	uint64_t i;

	if (asprintf(&t, "%s %" PRIu32 "/%" PRIu32, comm ? comm : "[unknown]", pid, tid) < 0)
		errx(EXIT_USAGE, "out of memory");
	i = cstring(&k->prof, t);
	free(t);
	return i;
}

static void labels_of(struct pprof_sink *k, struct symbolizer *s, const struct cap_sample *smp,
		      struct pprof_labels *l)
{
	uint32_t trusted = 0;
	const char *comm = symbolizer_comm(s, smp->tid),
		   *cgroup = symbolizer_cgroup(s, smp->pid, &trusted);
	char id[CONTAINER_ID_LEN + 1];
	const char *unit;
	size_t len;

	*l = (struct pprof_labels){ .pid = smp->pid, .tid = smp->tid };
	if (comm)
		l->comm = cstring(&k->prof, comm);
	if (cgroup) {
		l->cgroup = cstring(&k->prof, cgroup);
		/* The path is what it is; what it claims, only where the
		 * host named it. */
		if (cgroup_container_id(cgroup, trusted, id))
			l->container_id = cstring(&k->prof, id);
		if ((unit = cgroup_systemd_unit(cgroup, trusted, &len)))
			l->systemd_unit = clean_string(&k->prof, unit, len);
	}
	/* The nearest waker only: its stacks are in the frames, not here. */
	if (smp->nwakers)
		l->waker = thread_string(k, s, smp->waker[0].pid, smp->waker[0].tid);
}

static void pprof_add_sample(struct sink *sk, struct symbolizer *s, const struct cap_sample *smp,
			     uint64_t count)
{
	struct pprof_sink *k = (struct pprof_sink *)sk;
	struct pprof_labels l;
	uint64_t v[2] = { smp->count, count };
	uint64_t stacks[PPROF_SAMPLE_STACKS] = { 0 };

	pprof_make_room(&k->prof);
	/* In an on-CPU capture the count is of samples: the time is the
	 * sampling period's. */
	if (!s->unit.nanoseconds && __builtin_mul_overflow(smp->count, s->unit.period_ns, &v[1]))
		v[1] = UINT64_MAX;
	stacks[1] = stack_of(k, s, smp->pid, smp->kstack, true);
	stacks[2] = stack_of(k, s, smp->pid, smp->ustack, false);
	labels_of(k, s, smp, &l);
	/* Blocked or running is a label, not a leaf: pprof's flat time
	 * belongs on the function a thread blocked in. */
	if (k->kind != ON_CPU)
		l.state = cstring(&k->prof, smp->kind == CAP_OFF_CPU ? "off-cpu" : "on-cpu");
	pprof_sample(&k->prof, &l, stacks, v);
}

static void pprof_unit(struct sink *sk, struct symbolizer *s, const struct cap_info *info)
{
	struct pprof_sink *k = (struct pprof_sink *)sk;
	const size_t n = sizeof(EVENT_OFF_CPU) - 1;

	if (!s->unit.nanoseconds)
		k->kind = ON_CPU;
	else if (info->event.len == n && memcmp(info->event.s, EVENT_OFF_CPU, n) == 0)
		k->kind = OFF_CPU;
	else
		k->kind = WALL;
}

static void comment(struct pprof *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void comment(struct pprof *p, const char *fmt, ...)
{
	va_list ap;
	char *t;
	int n;

	if (p->ncomments == sizeof(p->comments) / sizeof(p->comments[0]))
		return;
	va_start(ap, fmt);
	n = vasprintf(&t, fmt, ap);
	va_end(ap);
	if (n < 0)
		errx(EXIT_USAGE, "out of memory");
	p->comments[p->ncomments++] = pprof_string(p, t, (size_t)n);
	free(t);
}

/* The profile's header: what its values are, the capture's time and
 * totals. */
static void describe(struct pprof_sink *k, struct symbolizer *s)
{
	static const char *const types[][3] = {
		[ON_CPU] = { "samples", "cpu" },
		[OFF_CPU] = { "blocks", "off-cpu" },
		[WALL] = { "samples", "wall" },
	};
	struct pprof *p = &k->prof;
	uint64_t ns = cstring(p, "nanoseconds");

	p->sample_type[0][0] = cstring(p, types[k->kind][0]);
	p->sample_type[0][1] = cstring(p, "count");
	p->sample_type[1][0] = cstring(p, types[k->kind][1]);
	p->sample_type[1][1] = ns;
	p->period_type[0] = p->sample_type[1][0];
	p->period_type[1] = ns;
	p->period = k->kind == OFF_CPU ? 0 : s->unit.period_ns;
	p->time_nanos = s->start_ns;
	p->duration_nanos = s->have_end ? s->end.duration_ns : 0;
	if (s->have_end)
		comment(p, "capture: taken %" PRIu64 ", written %" PRIu64 ", lost %" PRIu64,
			s->end.taken, s->end.samples, s->end.lost);
	for (uint32_t c = 1; c < CAP_LOSS_MAX; c++)
		if (s->lost[c])
			comment(p, "lost %s %" PRIu64, cap_loss_name(c), s->lost[c]);
}

/* gzip's format (windowBits 15 + 16), as pprof readers expect. */
static void gzip_deflate(struct gzip_out *g, int flush)
{
	uint8_t chunk[1 << 16];
	int st;

	do {
		g->z.next_out = chunk;
		g->z.avail_out = sizeof(chunk);
		st = deflate(&g->z, flush);
		if (st == Z_STREAM_ERROR)
			errx(EXIT_USAGE, "zlib: %s", g->z.msg ? g->z.msg : "compression failed");
		fwrite(chunk, 1, sizeof(chunk) - g->z.avail_out, g->out);
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && st != Z_STREAM_END));
}

static void gzip_write(void *ctx, const uint8_t *data, size_t len)
{
	struct gzip_out *g = ctx;

	while (len) {
		/* avail_in is 32 bits: feed at most 1 GiB at a time. */
		size_t n = len < (1u << 30) ? len : (1u << 30);
		g->z.next_in = (Bytef *)data;
		g->z.avail_in = (uInt)n;
		gzip_deflate(g, Z_NO_FLUSH);
		data += n;
		len -= n;
	}
}

static void pprof_finish(struct sink *sk, struct symbolizer *s)
{
	struct pprof_sink *k = (struct pprof_sink *)sk;

	describe(k, s);
	pprof_end(&k->prof);
	gzip_deflate(&k->gz, Z_FINISH);
}

static void pprof_sink_free(struct sink *sk)
{
	struct pprof_sink *k = (struct pprof_sink *)sk;

	pprof_free(&k->prof);
	deflateEnd(&k->gz.z);
	free(k->locs);
	demangler_free(k->demangler);
	free(k);
}

struct pprof *pprof_sink_profile(struct sink *k)
{
	return &((struct pprof_sink *)k)->prof;
}

struct sink *pprof_sink_new(FILE *out, const struct symbolize_opts *opt)
{
	struct pprof_sink *k = xcalloc(1, sizeof(*k));

	/* Slots hold stack ids (stack_slot): nothing to free. */
	k->sink = (struct sink){ pprof_unit, pprof_add_sample, pprof_finish, pprof_sink_free, NULL };
	k->gz.out = out;
	if (deflateInit2(&k->gz.z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		errx(EXIT_USAGE, "zlib: %s",
		     k->gz.z.msg ? k->gz.z.msg : "cannot start compressing");
	k->demangler = opt->demangle ? demangler_new() : NULL;
	k->bare_unresolved = opt->bare_unresolved;
	pprof_init(&k->prof, gzip_write, &k->gz);
	k->prof.lines = opt->lines;
	k->prof.inline_frames = opt->inline_frames;
	return &k->sink;
}
