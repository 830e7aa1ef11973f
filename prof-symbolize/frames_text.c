#include "frames_text.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "diag.h"
#include "frames_header.h"
#include "offcpu_words.h"

struct frames_text {
	struct sink sink;
	FILE *out;
	bool demangle, lines, cgroup;
	char *scratch; /* reused while formatting a stack */
	size_t scratch_cap;
	bool flushed_once;
	uint64_t last_time; /* of the last sample written, to flush per interval */
};

/* A growable string for formatted frames. */
struct buf {
	char *p;
	size_t len, cap;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->cap ? b->cap * 2 : 256) + n;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

__attribute__((format(printf, 2, 3))) static void buf_printf(struct buf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	buf_add(b, tmp, n < 0 ? 0 : (size_t)n >= sizeof(tmp) ? sizeof(tmp) - 1 : (size_t)n);
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
	case FRAME_JIT:
		buf_printf(b, "/tmp/perf-%" PRIu32 ".map", f->pid);
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
	if (r->name) {
		char *d = t->demangle ? demangle(r->name) : NULL;
		buf_clean(b, d ? d : r->name, strlen(d ? d : r->name));
		free(d);
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
			buf_printf(b, ":%d", r->line);
		} else {
			buf_add(b, "\n  ??:0", 7);
		}
	}
	if (r->inlined)
		buf_add(b, " (inlined)", 10);
	buf_add(b, "\n", 1);
}

/* The formatted frames of a stack, valid until the next call.  They are
 * cached from the second use on: the same stacks come back in every drain
 * interval, while many stacks are seen only once. */
static const char *stack_text(struct frames_text *t, struct symbolizer *s, uint32_t pid,
			      uint32_t id, bool kernel)
{
	struct buf b = { t->scratch, 0, t->scratch_cap };
	const struct frame *f;
	bool first;
	void **slot;
	size_t n;

	if (!id)
		return "";
	slot = symbolizer_slot(s, pid, id, kernel, &first);
	if (*slot)
		return *slot;
	f = symbolizer_frames(s, pid, id, kernel, first, &n);
	for (size_t i = 0; i < n; i++)
		put_frame_line(t, &b, &f[i]);
	buf_add(&b, "", 0);
	t->scratch = b.p;
	t->scratch_cap = b.cap;
	if (first)
		return b.p;
	*slot = xmalloc(b.len + 1);
	memcpy(*slot, b.p, b.len + 1);
	return *slot;
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
	buf_printf(b, " %" PRIu32 "/%" PRIu32, pid, tid);
}

/* After a blocked sample's frames, the thread that woke it and the
 * stacks it had then, and so on back along the chain.  A waker's user
 * stack is of its own process: resolved with that one's mappings. */
static void write_wakers(struct frames_text *t, struct symbolizer *s, const struct cap_sample *smp)
{
	struct buf line = { 0 };

	for (uint32_t i = 0; i < smp->nwakers && i < CAP_MAX_WAKERS; i++) {
		const struct cap_waker *w = &smp->waker[i];

		line.len = 0;
		buf_printf(&line, "\t%s ", WAKER_LINE_START);
		put_thread(s, &line, w->pid, w->tid);
		buf_add(&line, "\n", 1);
		fputs(line.p, t->out);
		fputs(stack_text(t, s, w->pid, w->kstack, true), t->out);
		fputs(stack_text(t, s, w->pid, w->ustack, false), t->out);
	}
	free(line.p);
}

static void text_sample(struct sink *k, struct symbolizer *s, const struct cap_sample *smp,
			uint64_t count)
{
	struct frames_text *t = (struct frames_text *)k;
	const char *cgroup = t->cgroup ? symbolizer_cgroup(s, smp->pid) : NULL;
	struct buf line = { 0 };

	/* Output is block-buffered (64 KiB) for speed, and flushed at each
	 * new drain interval so a live pipeline sees every interval at once. */
	if (t->flushed_once && smp->time_ns != t->last_time)
		fflush(t->out);
	t->flushed_once = true;
	t->last_time = smp->time_ns;
	put_thread(s, &line, smp->pid, smp->tid);
	buf_printf(&line, " %" PRIu64 ".%06" PRIu64 ": %" PRIu64 " %s:",
		   smp->time_ns / 1000000000u, smp->time_ns % 1000000000u / 1000u, count,
		   smp->kind == CAP_OFF_CPU ? EVENT_OFF_CPU : EVENT_ON_CPU);
	/* Where perf script -F +cgroup writes it; only when asked, as
	 * there, since stackcollapse-perf.pl reads the count and event
	 * only at the end of the line. */
	if (cgroup) {
		buf_add(&line, " ", 1);
		buf_clean(&line, cgroup, strlen(cgroup));
	}
	buf_add(&line, "\n", 1);
	fputs(line.p, t->out);
	free(line.p);
	fputs(stack_text(t, s, smp->pid, smp->kstack, true), t->out);
	fputs(stack_text(t, s, smp->pid, smp->ustack, false), t->out);
	write_wakers(t, s, smp);
	fputc('\n', t->out);
}

static void text_unit(struct sink *k, struct symbolizer *s, const struct cap_info *info)
{
	(void)info;
	if (s->unit.nanoseconds)
		fputs("# count: nanoseconds\n", ((struct frames_text *)k)->out);
}

static void text_finish(struct sink *k, struct symbolizer *s)
{
	FILE *out = ((struct frames_text *)k)->out;

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

	free(t->scratch);
	free(t);
}

struct sink *frames_text_new(FILE *out, const struct symbolize_opts *opt)
{
	struct frames_text *t = xcalloc(1, sizeof(*t));

	t->sink = (struct sink){ text_unit, text_sample, text_finish, text_free };
	t->out = out;
	t->demangle = opt->demangle;
	t->lines = opt->lines;
	t->cgroup = opt->cgroup;
	setvbuf(out, NULL, _IOFBF, 1 << 16);
	frames_header_write(out);
	return &t->sink;
}
