#include "symbolizer.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

struct stack {
	uint32_t nr;
	uint64_t ip[];
};

struct pmap {
	uint64_t start, end, pgoff;
	struct cap_map rec; /* build_id and path point into `bytes` */
	struct module *mod;
};

struct jsym {
	uint64_t start, size;
	char *name;
};

struct proc {
	struct pmap *maps;
	size_t n, cap;
	struct jsym *jsyms;
	size_t njsyms, jcap;
	uint32_t generation; /* bumped by every MAP and JSYM, to invalidate cached text */
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
 * in one would break the line format, so control bytes become '?'. */
static void buf_clean(struct buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
		buf_add(b, &c, 1);
	}
}

void symbolizer_init(struct symbolizer *s, FILE *out)
{
	memset(s, 0, sizeof(*s));
	s->out = out;
	modules_init(&s->modules);
	s->stacks = htab_new();
	s->threads = htab_new();
	s->procs = htab_new();
	s->text = htab_new();
	strcpy(s->event, "cpu-clock");
	fputs("# prof-symbolize frames v1\n", out);
}

static void free_values(struct htab *h, void (*fn)(void *))
{
	struct htab_entry *e = htab_entries(h);

	for (size_t i = 0; i < htab_count(h); i++)
		fn(e[i].val.p);
	htab_free(h);
}

static void free_proc(void *p)
{
	struct proc *pr = p;

	for (size_t i = 0; i < pr->n; i++)
		free((void *)pr->maps[i].rec.path.s);
	for (size_t i = 0; i < pr->njsyms; i++)
		free(pr->jsyms[i].name);
	free(pr->maps);
	free(pr->jsyms);
	free(pr);
}

void symbolizer_free(struct symbolizer *s)
{
	kernel_syms_free(&s->ksyms);
	modules_free(&s->modules);
	free_values(s->stacks, free);
	free_values(s->threads, free);
	free_values(s->procs, free_proc);
	free_values(s->text, free);
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

static void add_jsym(struct symbolizer *s, const struct cap_jsym *j)
{
	struct proc *p = get_proc(s, j->pid);

	if (p->njsyms == p->jcap) {
		p->jcap = p->jcap ? p->jcap * 2 : 64;
		p->jsyms = xreallocarray(p->jsyms, p->jcap, sizeof(*p->jsyms));
	}
	p->jsyms[p->njsyms++] = (struct jsym){ j->start, j->size, xstrndup(j->name.s, j->name.len) };
	p->generation++;
}

/* JITs reuse code memory: the latest symbol covering an address wins. */
static const struct jsym *find_jsym(const struct proc *p, uint64_t ip)
{
	for (size_t i = p ? p->njsyms : 0; i-- > 0;)
		if (ip - p->jsyms[i].start < p->jsyms[i].size)
			return &p->jsyms[i];
	return NULL;
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

static void frame_line(struct symbolizer *s, struct buf *b, uint64_t ip, const char *sym,
		       size_t symlen, uint64_t off, const char *dso)
{
	s->frames++;
	buf_printf(b, "\t%16" PRIx64 " ", ip);
	if (sym) {
		buf_clean(b, sym, symlen);
		buf_printf(b, "+0x%" PRIx64, off);
	} else {
		s->unresolved++;
		buf_add(b, "[unknown]", 9);
	}
	buf_add(b, " (", 2);
	buf_clean(b, dso, strlen(dso));
	buf_add(b, ")\n", 2);
}

static void kernel_frames(struct symbolizer *s, struct buf *b, const struct stack *st)
{
	for (uint32_t i = 0; i < st->nr; i++) {
		uint64_t ip = st->ip[i];
		const struct kernel_sym *k = kernel_syms_find(&s->ksyms, i ? ip - 1 : ip);
		char dso[80];

		if (k && k->module[0])
			snprintf(dso, sizeof(dso), "[%s]", k->module);
		else
			strcpy(dso, "[kernel.kallsyms]");
		frame_line(s, b, ip, k ? k->name : NULL, k ? strlen(k->name) : 0,
			   k ? ip - k->start : 0, dso);
	}
}

static struct pmap *find_map(struct proc *p, uint64_t ip)
{
	/* The latest mapping wins: after an exec the new image's MAP records
	 * come after the old ones. */
	for (size_t i = p ? p->n : 0; i-- > 0;)
		if (ip >= p->maps[i].start && ip < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

static void user_frames(struct symbolizer *s, struct buf *b, uint32_t pid, struct proc *p,
			const struct stack *st)
{
	for (uint32_t i = 0; i < st->nr; i++) {
		uint64_t ip = st->ip[i], vaddr;
		/* Return addresses point after the call, possibly into the
		 * next function: look them up one byte earlier. */
		uint64_t at = i ? ip - 1 : ip;
		struct pmap *m = find_map(p, at);
		const struct elf_sym *sym = NULL;
		const struct jsym *j;

		if (!m || m->rec.path.s[0] != '/') {
			/* Not file-backed: JIT code, if the process said so. */
			if ((j = find_jsym(p, at))) {
				char dso[64];
				snprintf(dso, sizeof(dso), "/tmp/perf-%" PRIu32 ".map", pid);
				frame_line(s, b, ip, j->name, strlen(j->name), ip - j->start, dso);
				continue;
			}
			if (!m) {
				frame_line(s, b, ip, NULL, 0, 0, "[unknown]");
				continue;
			}
		}
		if (!m->mod)
			m->mod = modules_get(&s->modules, &m->rec);
		if (m->mod->loaded &&
		    elf_symtab_vaddr(&m->mod->symtab, at - m->start + m->pgoff, &vaddr))
			sym = elf_symtab_find(&m->mod->symtab, vaddr);
		frame_line(s, b, ip, sym ? sym->name : NULL, sym ? strlen(sym->name) : 0,
			   sym ? vaddr + (ip - at) - sym->addr : 0, m->rec.path.s);
	}
}

/* The formatted frames of a stack, cached: the same stacks come back in
 * every drain interval. */
static const char *stack_text(struct symbolizer *s, uint32_t pid, uint32_t id, bool kernel)
{
	struct proc *p = kernel ? NULL : get_proc(s, pid);
	uint32_t key[3] = { kernel ? 0 : pid, p ? p->generation : 0, id };
	bool created;
	struct htab_entry *e;
	const struct stack *st;
	struct buf b = { 0 };

	if (!id)
		return "";
	e = htab_upsert(s->text, key, sizeof(key), &created);
	if (!created)
		return e->val.p;
	st = find_stack(s, id);
	if (!st)
		warnx("sample refers to undefined stack %u", id);
	else if (kernel)
		kernel_frames(s, &b, st);
	else
		user_frames(s, &b, pid, p, st);
	e->val.p = b.p ? b.p : xstrdup("");
	return e->val.p;
}

static void write_sample(struct symbolizer *s, const struct cap_sample *smp)
{
	struct htab_entry *t = htab_find(s->threads, &smp->tid, sizeof(smp->tid));
	struct buf line = { 0 };
	const char *comm = t ? t->val.p : "[unknown]";

	buf_clean(&line, comm, strlen(comm));
	fprintf(s->out, "%s %" PRIu32 "/%" PRIu32 " %" PRIu64 ".%06" PRIu64 ": %" PRIu64 " %s:\n",
		line.p, smp->pid, smp->tid, smp->time_ns / 1000000000u,
		smp->time_ns % 1000000000u / 1000u, smp->count, s->event);
	free(line.p);
	fputs(stack_text(s, smp->pid, smp->kstack, true), s->out);
	fputs(stack_text(s, smp->pid, smp->ustack, false), s->out);
	fputc('\n', s->out);
	s->samples += smp->count;
}

static void set_info(struct symbolizer *s, const struct cap_info *in)
{
	struct buf b = { 0 };

	s->have_info = true;
	buf_clean(&b, in->event.s, in->event.len < 60 ? in->event.len : 60);
	if (b.p && strcspn(b.p, " :") == b.len)
		strcpy(s->event, b.p);
	free(b.p);
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
	default:
		break; /* a newer writer's record: skip it */
	}
}

void symbolizer_finish(struct symbolizer *s)
{
	fprintf(s->out, "# samples %" PRIu64 ", frames %" PRIu64 ", unresolved frames %" PRIu64 "\n",
		s->samples, s->frames, s->unresolved);
	for (uint32_t c = 1; c < CAP_LOSS_MAX; c++)
		if (s->lost[c])
			fprintf(s->out, "# lost %s %" PRIu64 "\n", cap_loss_name(c), s->lost[c]);
}
