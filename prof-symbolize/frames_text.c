#include "frames_text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "diag.h"
#include "frames_header.h"
#include "offcpu_words.h"

/* A growable string for formatted frames. */
struct buf {
	char *p;
	size_t len, cap;
};

struct frames_text {
	struct sink sink;
	FILE *out;
	/* What is formatted and not yet written: stdio's per-call costs
	 * (locking, a strlen each) were a fifth of the time on captures of
	 * one-frame stacks. */
	struct buf text;
	struct demangler *demangler; /* NULL: --no-demangle */
	bool lines, cgroup, each_sample;
	bool flushed_once;
	uint64_t flushed_at; /* the time of the sample that last flushed */
	uint64_t last_time;  /* of the last sample written */
	/* Its event line's start, "COMM PID/TID SECS.USECS:", for the run of
	 * samples of one thread at one time that usually follows. */
	struct buf event;
	uint32_t event_pid, event_tid;
	uint64_t event_comms; /* s->comms then: the name it has is the same */
	size_t cached;	      /* bytes of stack text cached */
};

/* A stack's text as the sink caches it. */
struct stack_text {
	size_t len;
	char s[];
};

/* Written out when this much is held, between samples. */
#define TEXT_FLUSH (1u << 16)
#define FLUSH_EVERY_NS 1000000000u
/* --each-sample's lines for one record at most: a record of a real
 * capture stands for the samples of one thread and stacks in one slot of
 * time (a few, or thousands of blocks); a forged count must not make
 * the output endless. */
#define EACH_SAMPLE_MAX (1u << 20)

/* Most stack text cached; stacks past it are formatted at each use.  A
 * stack's text is cached per process state (pid, mappings), and how many
 * of those there are is the capture's choice: two SAMPLE records of a new
 * pid make one more. */
#define TEXT_CACHE_MAX (64u << 20)

__attribute__((noinline)) static void buf_grow(struct buf *b, size_t n)
{
	b->cap = (b->cap ? b->cap * 2 : 256) + n;
	b->p = xrealloc(b->p, b->cap);
}

/* Inline: most pieces are a few bytes long, known when compiled. */
static inline void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap)
		buf_grow(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* Names come from files and processes we do not control: a newline or tab
 * in one would break the line format, and a C1 control would reach the
 * terminal the frames are read on. */
static void buf_clean(struct buf *b, const char *s, size_t n)
{
	size_t start = b->len;

	buf_add(b, s, n);
	printable(b->p + start, b->len - start);
}

/* v in lowercase hex, right-aligned in `width` characters (0: no
 * padding): frame lines are written by the million, printf is too slow. */
static void buf_hex(struct buf *b, uint64_t v, int width)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[sizeof(tmp) - 1 - n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	while (n < width)
		tmp[sizeof(tmp) - 1 - n++] = ' ';
	buf_add(b, tmp + sizeof(tmp) - n, (size_t)n);
}

/* v in decimal, zero-padded to `width` digits (0: none). */
static void buf_dec(struct buf *b, uint64_t v, int width)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[sizeof(tmp) - 1 - n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n < width)
		tmp[sizeof(tmp) - 1 - n++] = '0';
	buf_add(b, tmp + sizeof(tmp) - n, (size_t)n);
}

static void buf_int(struct buf *b, int v)
{
	if (v < 0)
		buf_add(b, "-", 1);
	buf_dec(b, v < 0 ? -(uint64_t)v : (uint64_t)v, 0);
}

/* The dso in parentheses after a frame that is not inlined. */
static void put_dso(struct buf *b, const struct frame *f)
{
	buf_add(b, " (", 2);
	switch (f->where) {
	case FRAME_KERNEL:
		if (f->module[0]) {
			buf_add(b, "[", 1);
			buf_clean(b, f->module, strlen(f->module));
			buf_add(b, "]", 1);
		} else {
			buf_add(b, "[kernel.kallsyms]", 17);
		}
		break;
	case FRAME_FILE:
		buf_clean(b, f->map->path.s, strlen(f->map->path.s));
		break;
	case FRAME_PYTHON:
		buf_clean(b, f->r.file, strlen(f->r.file));
		break;
	case FRAME_JIT:
		buf_add(b, "/tmp/perf-", 10);
		buf_dec(b, f->pid, 0);
		buf_add(b, ".map", 4);
		break;
	case FRAME_NONE:
		buf_add(b, "[unknown]", 9);
		break;
	}
	buf_add(b, ")", 1);
}

/* One frame line: `\tADDR SYMBOL+0xOFF (DSO)`, perf script's form.  An
 * unresolved frame in a known file is [FILE]+0xFILEOFFSET: brackets say
 * "unknown" to every reader, and folding drops the offset; inlined frames
 * end in " (inlined)" instead of the dso, and --lines adds perf's
 * "\n  FILE:LINE" after the symbol and dso. */
static void put_frame_line(struct frames_text *t, struct buf *b, const struct frame *f)
{
	const struct resolved *r = &f->r;

	buf_add(b, "\t", 1);
	buf_hex(b, f->ip, 16);
	buf_add(b, " ", 1);
	if (f->where == FRAME_PYTHON && !r->file[0]) {
		/* Python code whose names never came: said as unknown. */
		buf_clean(b, r->name, strlen(r->name));
		buf_add(b, " ([unknown])\n", 13);
		return;
	}
	if (f->where == FRAME_PYTHON) {
		/* As py-spy names them: "qualname (file.py:line)", the
		 * function's first line, and its whole path as the dso. */
		const char *base = strrchr(r->file, '/');
		base = base ? base + 1 : r->file;
		buf_clean(b, r->name, strlen(r->name));
		buf_add(b, " (", 2);
		buf_clean(b, base, strlen(base));
		buf_add(b, ":", 1);
		buf_int(b, f->first_line);
		buf_add(b, ")", 1);
		put_dso(b, f);
		if (t->lines) {
			/* The line the frame was at, as --lines gives. */
			buf_add(b, "\n  ", 3);
			buf_clean(b, r->file, strlen(r->file));
			buf_add(b, ":", 1);
			buf_int(b, r->line);
		}
		buf_add(b, "\n", 1);
		return;
	}
	if (r->name) {
		const char *name = t->demangler ? demangled(t->demangler, r->name) : r->name;
		buf_clean(b, name, strlen(name));
		buf_add(b, "+0x", 3);
		buf_hex(b, r->off, 0);
	} else if (f->where == FRAME_FILE && f->module[0]) {
		buf_add(b, "[", 1);
		buf_clean(b, f->module, strlen(f->module));
		buf_add(b, "]+0x", 4);
		buf_hex(b, f->fileoff, 0);
	} else {
		buf_add(b, "[unknown]", 9);
	}
	if (!r->inlined)
		put_dso(b, f);
	if (t->lines && r->name) {
		if (r->file) {
			buf_add(b, "\n  ", 3);
			buf_clean(b, r->file, strlen(r->file));
			buf_add(b, ":", 1);
			buf_int(b, r->line);
		} else {
			buf_add(b, "\n  ??:0", 7);
		}
	}
	if (r->inlined)
		buf_add(b, " (inlined)", 10);
	buf_add(b, "\n", 1);
}

/* Adds the formatted frames of a stack.  They are cached from the second
 * use on: the same stacks come back in every drain interval, while many
 * stacks are seen only once. */
static void put_stack(struct frames_text *t, struct symbolizer *s, uint32_t pid, uint32_t id,
		      bool kernel)
{
	struct buf *b = &t->text;
	struct stack_text *cached;
	const struct frame *f;
	size_t n, start = b->len;
	bool first;
	void **slot;

	if (!id)
		return;
	slot = symbolizer_slot(s, pid, id, kernel, &first);
	if ((cached = *slot)) {
		buf_add(b, cached->s, cached->len);
		return;
	}
	f = symbolizer_frames(s, pid, id, kernel, first, &n);
	for (size_t i = 0; i < n; i++)
		put_frame_line(t, b, &f[i]);
	if (first || t->cached + sizeof(*cached) + b->len - start > TEXT_CACHE_MAX)
		return;
	t->cached += sizeof(*cached) + b->len - start;
	cached = xmalloc(sizeof(*cached) + b->len - start);
	cached->len = b->len - start;
	memcpy(cached->s, b->p + start, cached->len);
	*slot = cached;
}

/* A thread's name, which the thread chose, as an event line's first field:
 * it must not turn the line into a comment ('#') or a frame line (leading
 * white space), nor hold a " NUMBER " or " NUMBER/" that readers
 * (stackcollapse-perf.pl's rule, prof-fold's) would take for the PID. */
static void comm_clean(struct buf *b, const char *comm)
{
	size_t start = b->len;
	char *c;

	buf_clean(b, comm[0] ? comm : "?", comm[0] ? strlen(comm) : 1);
	c = b->p + start;
	if (c[0] == '#' || c[0] == ' ')
		c[0] = '?';
	for (size_t i = 1; c[i]; i++) {
		size_t j = i + 1;
		if (c[i] != ' ' || !(c[j] >= '0' && c[j] <= '9'))
			continue;
		while (c[j] >= '0' && c[j] <= '9')
			j++;
		/* A space follows the name in the line. */
		if (c[j] == ' ' || c[j] == '/' || !c[j])
			c[i] = '_';
	}
}

/* "COMM PID/TID", as an event line and a waker line name a thread. */
static void put_thread(struct symbolizer *s, struct buf *b, uint32_t pid, uint32_t tid)
{
	const char *comm = symbolizer_comm(s, tid);

	comm_clean(b, comm ? comm : "[unknown]");
	buf_add(b, " ", 1);
	buf_dec(b, pid, 0);
	buf_add(b, "/", 1);
	buf_dec(b, tid, 0);
}

/* After a blocked sample's frames, the thread that woke it and the
 * stacks it had then, and so on back along the chain.  A waker's user
 * stack is of its own process: resolved with that one's mappings. */
static void write_wakers(struct frames_text *t, struct symbolizer *s, const struct cap_sample *smp)
{
	for (uint32_t i = 0; i < smp->nwakers && i < CAP_MAX_WAKERS; i++) {
		const struct cap_waker *w = &smp->waker[i];

		buf_add(&t->text, "\t" WAKER_LINE_START " ", sizeof(WAKER_LINE_START) + 1);
		put_thread(s, &t->text, w->pid, w->tid);
		buf_add(&t->text, "\n", 1);
		put_stack(t, s, w->pid, w->kstack, true);
		put_stack(t, s, w->pid, w->ustack, false);
	}
}

/* Hands the text held to stdio. */
static void text_write(struct frames_text *t)
{
	if (t->text.len)
		fwrite(t->text.p, 1, t->text.len, t->out);
	t->text.len = 0;
}

static void text_sample(struct sink *k, struct symbolizer *s, const struct cap_sample *smp,
			uint64_t count)
{
	struct frames_text *t = (struct frames_text *)k;
	const char *cgroup = t->cgroup ? symbolizer_cgroup(s, smp->pid, NULL) : NULL;
	const char *event = smp->kind == CAP_OFF_CPU ? EVENT_OFF_CPU : EVENT_ON_CPU;
	struct buf *b = &t->text;

	/* Output is written in blocks (64 KiB) for speed, and flushed when a
	 * sample is a second of the capture's time past the one that last
	 * flushed, so that a live pipeline sees each drain interval (1 s by
	 * default) as the next one comes, and a flush is not made per sample:
	 * the samples of one interval come in no order of time. */
	if (!t->flushed_once) {
		t->flushed_at = smp->time_ns;
	} else if (smp->time_ns >= t->flushed_at + FLUSH_EVERY_NS) {
		t->flushed_at = smp->time_ns;
		text_write(t);
		fflush(t->out);
	} else if (b->len >= TEXT_FLUSH) {
		text_write(t);
	}
	if (!t->event.len || smp->time_ns != t->last_time || smp->pid != t->event_pid ||
	    smp->tid != t->event_tid || s->comms != t->event_comms) {
		t->event.len = 0;
		put_thread(s, &t->event, smp->pid, smp->tid);
		buf_add(&t->event, " ", 1);
		buf_dec(&t->event, smp->time_ns / 1000000000u, 0);
		buf_add(&t->event, ".", 1);
		buf_dec(&t->event, smp->time_ns % 1000000000u / 1000u, 6);
		buf_add(&t->event, ": ", 2);
		t->event_pid = smp->pid;
		t->event_tid = smp->tid;
		t->event_comms = s->comms;
	}
	t->flushed_once = true;
	t->last_time = smp->time_ns;
	/* --each-sample: count shared out over the samples, the remainder to
	 * the first; a record's lines are bounded, the last taking the rest. */
	uint64_t n = t->each_sample && smp->count > 1 ? smp->count : 1;
	if (n > EACH_SAMPLE_MAX)
		n = EACH_SAMPLE_MAX;
	for (uint64_t i = 0; i < n; i++) {
		/* A line of several blocks says how many: each lasted its
		 * share of the count, which timed views spread back from the
		 * end (prof-fold --timed). */
		uint64_t blocks = smp->count / n + (i == 0 ? smp->count % n : 0);
		if (smp->kind == CAP_OFF_CPU && blocks > 1) {
			buf_add(b, BLOCKS_COMMENT, sizeof(BLOCKS_COMMENT) - 1);
			buf_dec(b, blocks, 0);
			buf_add(b, "\n", 1);
		}
		buf_add(b, t->event.p, t->event.len);
		buf_dec(b, n == 1 ? count : count / n + (i == 0 ? count % n : 0), 0);
		buf_add(b, " ", 1);
		buf_add(b, event, strlen(event));
		buf_add(b, ":", 1);
		/* Where perf script -F +cgroup writes it; only when asked, as
		 * there, since stackcollapse-perf.pl reads the count and event
		 * only at the end of the line. */
		if (cgroup) {
			buf_add(b, " ", 1);
			buf_clean(b, cgroup, strlen(cgroup));
		}
		buf_add(b, "\n", 1);
		put_stack(t, s, smp->pid, smp->kstack, true);
		put_stack(t, s, smp->pid, smp->ustack, false);
		write_wakers(t, s, smp);
		buf_add(b, "\n", 1);
		if (b->len >= TEXT_FLUSH)
			text_write(t);
	}
}

static void text_unit(struct sink *k, struct symbolizer *s, const struct cap_info *info)
{
	struct frames_text *t = (struct frames_text *)k;

	(void)info;
	if (s->unit.nanoseconds) {
		text_write(t);
		fputs("# count: nanoseconds\n", t->out);
	}
}

static void text_finish(struct sink *k, struct symbolizer *s)
{
	FILE *out = ((struct frames_text *)k)->out;

	text_write((struct frames_text *)k);

	fprintf(out, "# samples %" PRIu64 ", frames %" PRIu64 ", unresolved frames %" PRIu64 "\n",
		s->samples, s->frames, s->unresolved);
	if (s->unit.nanoseconds)
		fprintf(out, "# off-cpu: blocks %" PRIu64 ", nanoseconds %" PRIu64 "\n", s->blocks,
			s->blocked_ns);
	if (s->have_end)
		fprintf(out, "# capture: taken %" PRIu64 ", written %" PRIu64 ", lost %" PRIu64 "\n",
			s->end.taken, s->end.samples, s->end.lost);
	for (uint32_t c = 1; c < CAP_LOSS_MAX; c++)
		if (s->lost[c])
			fprintf(out, "# lost %s %" PRIu64 "\n", cap_loss_name(c), s->lost[c]);
}

static void text_free(struct sink *k)
{
	struct frames_text *t = (struct frames_text *)k;

	free(t->text.p);
	free(t->event.p);
	demangler_free(t->demangler);
	free(t);
}

struct sink *frames_text_new(FILE *out, const struct symbolize_opts *opt)
{
	struct frames_text *t = xcalloc(1, sizeof(*t));

	t->sink = (struct sink){ text_unit, text_sample, text_finish, text_free, free };
	t->out = out;
	t->demangler = opt->demangle ? demangler_new() : NULL;
	t->lines = opt->lines;
	t->cgroup = opt->cgroup;
	t->each_sample = opt->each_sample;
	setvbuf(out, NULL, _IOFBF, 1 << 16);
	frames_header_write(out);
	return &t->sink;
}
