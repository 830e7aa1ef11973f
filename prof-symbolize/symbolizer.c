#include "symbolizer.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "build_id.h"
#include "demangle.h"
#include "jit_syms.h"
#include "perf_map.h"
#include "diag.h"
#include "offcpu_words.h"
#include "frames_header.h"

struct stack {
	uint32_t nr;
	uint64_t ip[];
};

struct pmap {
	uint64_t start, end, pgoff;
	struct cap_map rec; /* build_id and path point into `bytes` */
	struct module *mod;
};

struct proc {
	struct pmap *maps;
	size_t n, cap;
	/* FORK: the first parent_n of the parent's mappings are this one's
	 * too, older than its own (the parent's list only grows). */
	struct proc *parent;
	size_t parent_n;
	struct jit_syms jit;
	uint32_t generation; /* bumped by every MAP and JSYM, to invalidate cached text */
	bool perf_map_tried; /* /tmp/perf-PID.map read (live captures only) */
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

bool symbolizer_init(struct symbolizer *s, FILE *out, const struct symbolize_opts *opt)
{
	char why[256];
	size_t n = opt->ndebug_dirs;

	memset(s, 0, sizeof(*s));
	s->out = out;
	s->opt = *opt;
	setvbuf(out, NULL, _IOFBF, 1 << 16);
	if (opt->kallsyms) {
		if (!kernel_syms_load_kallsyms(&s->kallsyms, opt->kallsyms, why, sizeof(why))) {
			warnx("%s: %s", opt->kallsyms, why);
			return false;
		}
		s->kallsyms_state = 1;
	}
	/* The debug directories: --debug-dir ones first, then the build-id
	 * caches prof-sample writes (checked by build-id like any other),
	 * then the system's (the sysroot's, offline). */
	s->debug_dirs = xcalloc(n + 3, sizeof(*s->debug_dirs));
	memcpy(s->debug_dirs, opt->debug_dirs, n * sizeof(*s->debug_dirs));
	if (build_id_cache_dir(s->cache_dir, sizeof(s->cache_dir)))
		s->debug_dirs[n++] = s->cache_dir;
	if (!getenv("PROF_BUILD_ID_DIR") && strcmp(s->cache_dir, BUILD_ID_CACHE_SYSTEM) != 0)
		s->debug_dirs[n++] = BUILD_ID_CACHE_SYSTEM;
	if (opt->sysroot) {
		s->sysroot_debug = xmalloc(strlen(opt->sysroot) + sizeof("/usr/lib/debug"));
		strcat(strcpy(s->sysroot_debug, opt->sysroot), "/usr/lib/debug");
		s->debug_dirs[n++] = s->sysroot_debug;
	} else {
		s->debug_dirs[n++] = "/usr/lib/debug";
	}
	modules_init(&s->modules);
	s->modules.sysroot = opt->sysroot;
	s->modules.want_dwarf = opt->inline_frames || opt->lines;
	s->modules.ds = (struct debug_search){ s->debug_dirs, n, opt->sysroot, opt->debuginfod, NULL,
					       false };
	s->stacks = htab_new();
	s->threads = htab_new();
	s->procs = htab_new();
	s->text = htab_new();
	frames_header_write(out);
	return true;
}

static void free_proc(void *p)
{
	struct proc *pr = p;

	for (size_t i = 0; i < pr->n; i++)
		free((void *)pr->maps[i].rec.path.s);
	free(pr->maps);
	jit_syms_free(&pr->jit);
	free(pr);
}

void symbolizer_free(struct symbolizer *s)
{
	kernel_syms_free(&s->ksyms);
	kernel_syms_free(&s->kallsyms);
	modules_free(&s->modules);
	free(s->debug_dirs);
	free(s->sysroot_debug);
	free(s->scratch);
	htab_free_values(s->stacks, free);
	htab_free_values(s->threads, free);
	htab_free_values(s->procs, free_proc);
	htab_free_values(s->text, free);
}

static struct proc *get_proc(struct symbolizer *s, uint32_t pid)
{
	bool created;
	struct htab_entry *e = htab_upsert(s->procs, &pid, sizeof(pid), &created);

	if (created)
		e->val.p = xcalloc(1, sizeof(struct proc));
	return e->val.p;
}

static void add_map(struct symbolizer *s, const struct cap_map *m)
{
	struct proc *p = get_proc(s, m->pid);
	struct pmap *pm;
	char *copy;

	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 16;
		p->maps = xreallocarray(p->maps, p->cap, sizeof(*p->maps));
	}
	/* One allocation holds the path and the build-id the record points
	 * to, since the record's payload is reused by the reader. */
	copy = xmalloc((size_t)m->path.len + m->build_id_len + 1);
	memcpy(copy, m->path.s, m->path.len);
	copy[m->path.len] = '\0';
	memcpy(copy + m->path.len + 1, m->build_id, m->build_id_len);
	pm = &p->maps[p->n++];
	*pm = (struct pmap){ m->start, m->end, m->pgoff, *m, NULL };
	pm->rec.path.s = copy;
	pm->rec.build_id = (const uint8_t *)copy + m->path.len + 1;
	p->generation++;
}

static void add_fork(struct symbolizer *s, const struct cap_fork *f)
{
	struct proc *child = get_proc(s, f->pid), *parent = get_proc(s, f->ppid);

	if (child == parent)
		return;
	child->parent = parent;
	child->parent_n = parent->n;
	child->generation++;
}

static void add_jsym(struct symbolizer *s, const struct cap_jsym *j)
{
	struct proc *p = get_proc(s, j->pid);

	jit_syms_add(&p->jit, j->start, j->size, j->name.s, j->name.len);
	p->generation++;
}

static void add_live_jsym(void *ctx, uint64_t start, uint64_t size, const char *name, size_t len)
{
	struct proc *p = ctx;

	jit_syms_add(&p->jit, start, size, name, len);
}

/* A capture without JIT symbols for a process still alive on this host:
 * its perf map, read once. */
static void load_live_perf_map(struct symbolizer *s, uint32_t pid, struct proc *p)
{
	if (!p || p->jit.n || p->perf_map_tried || !s->live || s->opt.sysroot || !pid)
		return;
	struct perf_map_cursor c = { 0 };
	enum perf_map_status st;
	uid_t owner;

	p->perf_map_tried = true;
	if (!perf_map_owner(pid, &owner))
		return;
	do
		st = perf_map_read(NULL, pid, owner, &c, add_live_jsym, p);
	while (st == PERF_MAP_READ && c.more);
	if (st == PERF_MAP_REFUSED)
		warnx("/tmp/perf-%" PRIu32 ".map: not owned by the process's user or root; ignored",
		      pid);
}


static void set_comm(struct symbolizer *s, const struct cap_comm *c)
{
	bool created;
	struct htab_entry *e = htab_upsert(s->threads, &c->tid, sizeof(c->tid), &created);

	if (!created)
		free(e->val.p);
	e->val.p = xstrndup(c->comm.s, c->comm.len);
}

static void add_stack(struct symbolizer *s, const struct cap_stack *st)
{
	bool created;
	struct htab_entry *e = htab_upsert(s->stacks, &st->id, sizeof(st->id), &created);
	struct stack *copy;

	if (!created) {
		warnx("stack %u defined twice; keeping the first", st->id);
		return;
	}
	copy = xmalloc(sizeof(*copy) + st->nr * sizeof(copy->ip[0]));
	copy->nr = st->nr;
	for (uint32_t i = 0; i < st->nr; i++)
		copy->ip[i] = cap_stack_ip(st, i);
	e->val.p = copy;
}

static const struct stack *find_stack(struct symbolizer *s, uint32_t id)
{
	struct htab_entry *e = id ? htab_find(s->stacks, &id, sizeof(id)) : NULL;

	return e ? e->val.p : NULL;
}

/* One frame line: `\tADDR SYMBOL+0xOFF (DSO)`, perf script's form.  An
 * unresolved frame in a known module is [MODULE]+0xFILEOFFSET: brackets
 * say "unknown" to every reader, and folding drops the offset; inlined
 * frames end in " (inlined)" instead of the dso, and --lines adds perf's
 * "\n  FILE:LINE" after the symbol and dso. */
static void put_frame_line(struct symbolizer *s, struct buf *b, uint64_t ip, const struct resolved *r,
			   const char *module, uint64_t fileoff, const char *dso)
{
	s->frames++;
	buf_add(b, "\t", 1);
	buf_hex(b, ip, 16);
	buf_add(b, " ", 1);
	if (r && r->name) {
		char *d = s->opt.demangle ? demangle(r->name) : NULL;
		buf_clean(b, d ? d : r->name, strlen(d ? d : r->name));
		free(d);
		buf_add(b, "+0x", 3);
		buf_hex(b, r->off, 0);
	} else if (module) {
		s->unresolved++;
		buf_add(b, "[", 1);
		buf_clean(b, module, strlen(module));
		buf_add(b, "]+0x", 4);
		buf_hex(b, fileoff, 0);
	} else {
		s->unresolved++;
		buf_add(b, "[unknown]", 9);
	}
	if (!r || !r->inlined) {
		buf_add(b, " (", 2);
		buf_clean(b, dso, strlen(dso));
		buf_add(b, ")", 1);
	}
	if (s->opt.lines && r && r->name) {
		if (r->file) {
			buf_add(b, "\n  ", 3);
			buf_clean(b, r->file, strlen(r->file));
			buf_printf(b, ":%d", r->line);
		} else {
			buf_add(b, "\n  ??:0", 7);
		}
	}
	if (r && r->inlined)
		buf_add(b, " (inlined)", 10);
	buf_add(b, "\n", 1);
}

/* The kernel symbol at addr: from the capture, else from kallsyms (the
 * --kallsyms file, or this host's when the capture was taken on it). */
static const struct kernel_sym *kernel_sym(struct symbolizer *s, uint64_t addr)
{
	const struct kernel_sym *k = kernel_syms_find(&s->ksyms, addr);
	char why[256];

	if (k)
		return k;
	if (s->kallsyms_state == 0) {
		s->kallsyms_state = -1;
		if (s->live && !s->opt.sysroot &&
		    kernel_syms_load_kallsyms(&s->kallsyms, "/proc/kallsyms", why, sizeof(why)))
			s->kallsyms_state = 1;
	}
	return s->kallsyms_state > 0 ? kernel_syms_find(&s->kallsyms, addr) : NULL;
}

static void kernel_frames(struct symbolizer *s, struct buf *b, const struct stack *st)
{
	for (uint32_t i = 0; i < st->nr; i++) {
		uint64_t ip = st->ip[i];
		const struct kernel_sym *k = kernel_sym(s, i ? ip - 1 : ip);
		struct resolved r = { k ? k->name : NULL, k ? ip - k->start : 0, NULL, 0, false };
		char dso[80];

		if (k && k->module[0])
			snprintf(dso, sizeof(dso), "[%s]", k->module);
		else
			strcpy(dso, "[kernel.kallsyms]");
		put_frame_line(s, b, ip, &r, NULL, 0, dso);
	}
}

/* How many forks back a lookup goes: a forged capture may make a cycle. */
#define MAX_FORK_DEPTH 64

static struct pmap *find_map(struct proc *p, uint64_t ip)
{
	size_t n = p ? p->n : 0;

	/* The latest mapping wins: after an exec the new image's MAP records
	 * come after the old ones, and a process's own after its parent's. */
	for (int depth = 0; p && depth < MAX_FORK_DEPTH; depth++) {
		for (size_t i = n; i-- > 0;)
			if (ip >= p->maps[i].start && ip < p->maps[i].end)
				return &p->maps[i];
		n = p->parent_n;
		p = p->parent;
	}
	return NULL;
}

/* Anonymous memory: "" in /proc/PID/maps, "//anon" in mmap events,
 * "[anon:NAME]" when named. */
static bool anonymous(struct cap_str path)
{
	return path.len == 0 || (path.len == 6 && memcmp(path.s, "//anon", 6) == 0) ||
	       (path.len > 6 && memcmp(path.s, "[anon:", 6) == 0);
}

static void user_frames(struct symbolizer *s, struct buf *b, uint32_t pid, struct proc *p,
			const struct stack *st)
{
	struct resolved r[MAX_INLINE];

	for (uint32_t i = 0; i < st->nr; i++) {
		uint64_t ip = st->ip[i], off;
		/* Return addresses point after the call, possibly into the
		 * next function: look them up one byte earlier. */
		uint64_t at = i ? ip - 1 : ip;
		struct pmap *m = find_map(p, at);
		const struct jit_sym *j;
		size_t n;

		if (!m || m->rec.path.s[0] != '/' || anonymous(m->rec.path)) {
			/* Not file-backed: JIT code, if the process said so. */
			load_live_perf_map(s, pid, p);
			if (p && (j = jit_syms_find(&p->jit, at))) {
				char dso[64];
				struct resolved jr = { j->name, ip - j->start, NULL, 0, false };
				snprintf(dso, sizeof(dso), "/tmp/perf-%" PRIu32 ".map", pid);
				put_frame_line(s, b, ip, &jr, NULL, 0, dso);
				continue;
			}
			/* No mapping, or an anonymous one: nothing names it. */
			if (!m || anonymous(m->rec.path)) {
				put_frame_line(s, b, ip, NULL, NULL, 0, "[unknown]");
				continue;
			}
		}
		if (!m->mod) {
			s->modules.sample_ns = s->start_ns + s->last_time;
			m->mod = modules_get(&s->modules, &m->rec, pid);
		}
		off = at - m->start + m->pgoff;
		n = module_resolve(m->mod, off, ip - at, s->opt.inline_frames, s->opt.lines, r);
		if (s->counting) {
			m->mod->lookups++;
			m->mod->unresolved += r[n - 1].name == NULL;
		}
		for (size_t k = 0; k < n; k++)
			put_frame_line(s, b, ip, &r[k], m->mod->name[0] ? m->mod->name : NULL,
				       off + (ip - at), m->rec.path.s);
	}
}

/* The formatted frames of a stack, valid until the next call.  They are
 * cached from the second use on: the same stacks come back in every drain
 * interval, while many stacks are seen only once. */
static const char *stack_text(struct symbolizer *s, uint32_t pid, uint32_t id, bool kernel)
{
	struct proc *p = kernel ? NULL : get_proc(s, pid);
	uint32_t key[3] = { kernel ? 0 : pid, p ? p->generation : 0, id };
	bool created;
	struct htab_entry *e;
	const struct stack *st;
	struct buf b = { s->scratch, 0, s->scratch_cap };

	if (!id)
		return "";
	e = htab_upsert(s->text, key, sizeof(key), &created);
	if (!created && e->val.p)
		return e->val.p;
	uint64_t frames = s->frames, unresolved = s->unresolved;
	s->counting = created;
	st = find_stack(s, id);
	if (!st && created)
		warnx("sample refers to undefined stack %u", id);
	else if (!st)
		;
	else if (kernel)
		kernel_frames(s, &b, st);
	else
		user_frames(s, &b, pid, p, st);
	buf_add(&b, "", 0);
	s->scratch = b.p;
	s->scratch_cap = b.cap;
	if (created)
		return b.p;
	/* Counted at the first formatting already. */
	s->frames = frames;
	s->unresolved = unresolved;
	e->val.p = xmalloc(b.len + 1);
	memcpy(e->val.p, b.p, b.len + 1);
	return e->val.p;
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
	struct htab_entry *t = htab_find(s->threads, &tid, sizeof(tid));

	comm_clean(b, t ? t->val.p : "[unknown]");
	buf_printf(b, " %" PRIu32 "/%" PRIu32, pid, tid);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* After a blocked sample's frames, the thread that woke it and the
 * stacks it had then, and so on back along the chain.  A waker's user
 * stack is of its own process: resolved with that one's mappings. */
static void write_wakers(struct symbolizer *s, const struct cap_sample *smp)
{
	struct buf line = { 0 };

	for (uint32_t i = 0; i < smp->nwakers && i < CAP_MAX_WAKERS; i++) {
		const struct cap_waker *w = &smp->waker[i];

		line.len = 0;
		buf_printf(&line, "\t%s ", WAKER_LINE_START);
		put_thread(s, &line, w->pid, w->tid);
		buf_add(&line, "\n", 1);
		fputs(line.p, s->out);
		fputs(stack_text(s, w->pid, w->kstack, true), s->out);
		fputs(stack_text(s, w->pid, w->ustack, false), s->out);
	}
	free(line.p);
}

static void write_sample(struct symbolizer *s, const struct cap_sample *smp)
{
	bool off_cpu = smp->kind == CAP_OFF_CPU;
	struct buf line = { 0 };
	uint64_t count;

	s->unit_fixed = true;
	/* What the count cannot say is left out, or saturated, and
	 * reported at the end (main.c). */
	switch (count_of(&s->unit, smp, &count)) {
	case COUNT_OK:
		break;
	case COUNT_SATURATED:
		s->saturated++;
		break;
	case COUNT_NO_PERIOD:
		s->no_period++;
		return;
	case COUNT_OFF_CPU_UNEXPECTED:
		s->off_cpu_unexpected++;
		return;
	}
	/* Output is block-buffered (64 KiB) for speed, and flushed at each
	 * new drain interval so a live pipeline sees every interval at once. */
	if (s->samples && smp->time_ns != s->last_time)
		fflush(s->out);
	s->last_time = smp->time_ns;
	put_thread(s, &line, smp->pid, smp->tid);
	buf_printf(&line, " %" PRIu64 ".%06" PRIu64 ": %" PRIu64 " %s:\n",
		   smp->time_ns / 1000000000u, smp->time_ns % 1000000000u / 1000u, count,
		   off_cpu ? EVENT_OFF_CPU : EVENT_ON_CPU);
	fputs(line.p, s->out);
	free(line.p);
	fputs(stack_text(s, smp->pid, smp->kstack, true), s->out);
	fputs(stack_text(s, smp->pid, smp->ustack, false), s->out);
	write_wakers(s, smp);
	fputc('\n', s->out);
	s->samples = add_sat(s->samples, smp->count);
	if (off_cpu) {
		s->blocks = add_sat(s->blocks, smp->count);
		s->blocked_ns = add_sat(s->blocked_ns, smp->weight);
	}
}

/* Whether boot_id is this host's current boot. */
static bool same_boot(const char *boot_id, size_t len)
{
	char here[64] = "";
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	if (f) {
		if (!fgets(here, sizeof(here), f))
			here[0] = '\0';
		fclose(f);
	}
	here[strcspn(here, "\n")] = '\0';
	return strlen(here) == len && memcmp(here, boot_id, len) == 0;
}

static void set_info(struct symbolizer *s, const struct cap_info *in)
{
	s->have_info = true;
	s->start_ns = in->start_ns;
	s->live = in->boot_id.len && same_boot(in->boot_id.s, in->boot_id.len);
	s->modules.live = s->live;
	/* The unit is said once, before the first event line. */
	if (s->unit_fixed)
		return;
	s->unit_fixed = true;
	s->unit = count_unit_of(in);
	if (s->unit.nanoseconds)
		fputs("# count: nanoseconds\n", s->out);
}

void symbolizer_record(struct symbolizer *s, const struct cap_record *rec)
{
	switch (rec->type) {
	case CAP_INFO:
		set_info(s, &rec->u.info);
		break;
	case CAP_COMM:
		set_comm(s, &rec->u.comm);
		break;
	case CAP_MAP:
		add_map(s, &rec->u.map);
		break;
	case CAP_KSYM:
		kernel_syms_add(&s->ksyms, &rec->u.ksym);
		break;
	case CAP_STACK:
		add_stack(s, &rec->u.stack);
		break;
	case CAP_SAMPLE:
		write_sample(s, &rec->u.sample);
		break;
	case CAP_LOSS:
		if (rec->u.loss.cause < CAP_LOSS_MAX)
			s->lost[rec->u.loss.cause] += rec->u.loss.count;
		break;
	case CAP_END:
		s->have_end = true;
		s->end = rec->u.end;
		break;
	case CAP_JSYM:
		add_jsym(s, &rec->u.jsym);
		break;
	case CAP_FORK:
		add_fork(s, &rec->u.fork);
		break;
	case CAP_RAWSTACK:
		/* The stacks were unwound when sampled; the bytes are for
		 * unwinding again elsewhere. */
		s->rawstacks++;
		s->rawstack_bytes += rec->u.rawstack.stack_len;
		break;
	default:
		break; /* a newer writer's record: skip it */
	}
}

void symbolizer_finish(struct symbolizer *s)
{
	fprintf(s->out, "# samples %" PRIu64 ", frames %" PRIu64 ", unresolved frames %" PRIu64 "\n",
		s->samples, s->frames, s->unresolved);
	if (s->unit.nanoseconds)
		fprintf(s->out, "# off-cpu: blocks %" PRIu64 ", nanoseconds %" PRIu64 "\n",
			s->blocks, s->blocked_ns);
	if (s->have_end)
		fprintf(s->out, "# capture: taken %" PRIu64 ", written %" PRIu64 ", lost %" PRIu64 "\n",
			s->end.taken, s->end.samples, s->end.lost);
	for (uint32_t c = 1; c < CAP_LOSS_MAX; c++)
		if (s->lost[c])
			fprintf(s->out, "# lost %s %" PRIu64 "\n", cap_loss_name(c), s->lost[c]);
}
