#include "symbolizer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_id.h"
#include "file_reader.h"
#include "jit_syms.h"
#include "perf_map.h"
#include "saturate.h"
#include "diag.h"

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

bool symbolizer_init(struct symbolizer *s, const struct symbolize_opts *opt)
{
	char why[256];
	size_t n = opt->ndebug_dirs;

	memset(s, 0, sizeof(*s));
	s->opt = *opt;
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
	size_t first_cache = n;
	if (build_id_cache_dir(s->cache_dir, sizeof(s->cache_dir)))
		s->debug_dirs[n++] = s->cache_dir;
	if (!getenv("PROF_BUILD_ID_DIR") && strcmp(s->cache_dir, BUILD_ID_CACHE_SYSTEM) != 0)
		s->debug_dirs[n++] = BUILD_ID_CACHE_SYSTEM;
	size_t ncaches = n - first_cache;
	if (opt->sysroot) {
		s->sysroot_debug = xmalloc(strlen(opt->sysroot) + sizeof("/usr/lib/debug"));
		strcat(strcpy(s->sysroot_debug, opt->sysroot), "/usr/lib/debug");
		s->debug_dirs[n++] = s->sysroot_debug;
	} else {
		s->debug_dirs[n++] = "/usr/lib/debug";
	}
	/* Every file by path through one reader, for the whole run. */
	local_fs_init();
	s->reader = file_reader_new(NULL, NULL);
	file_reader_start(s->reader);
	modules_init(&s->modules);
	s->modules.sysroot = opt->sysroot;
	s->modules.want_dwarf = opt->inline_frames || opt->lines;
	s->modules.ds = (struct debug_search){ .dirs = s->debug_dirs,
					       .ndirs = n,
					       .first_cache = first_cache,
					       .ncaches = ncaches,
					       .sysroot = opt->sysroot,
					       .reader = s->reader,
					       .debuginfod = opt->debuginfod };
	stack_table_init(&s->stacks);
	s->threads = htab_new();
	s->procs = htab_new();
	s->pysyms = htab_new();
	s->cgroups = htab_new();
	s->cache = htab_new();
	return true;
}

struct pysym {
	char *name, *file;
	int line, at;
};

static void free_pysym(void *p)
{
	struct pysym *y = p;

	if (y) {
		free(y->name);
		free(y->file);
		free(y);
	}
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

static void keep_slot(void *slot)
{
	(void)slot;
}

void symbolizer_free(struct symbolizer *s)
{
	void (*free_slot)(void *) = s->sink && s->sink->free_slot ? s->sink->free_slot : keep_slot;

	kernel_syms_free(&s->ksyms);
	kernel_syms_free(&s->kallsyms);
	modules_free(&s->modules);
	file_reader_free(s->reader);
	free(s->debug_dirs);
	free(s->sysroot_debug);
	free(s->fr);
	stack_table_free(&s->stacks, free_slot);
	htab_free_values(s->threads, free);
	htab_free_values(s->procs, free_proc);
	htab_free_values(s->pysyms, free_pysym);
	htab_free_values(s->cgroups, free);
	htab_free_values(s->cache, free_slot);
}

static struct proc *get_proc(struct symbolizer *s, uint32_t pid)
{
	bool created;
	struct htab_entry *e;

	if (s->last_proc && s->last_pid == pid)
		return s->last_proc;
	e = htab_upsert(s->procs, &pid, sizeof(pid), &created);
	if (created)
		e->val.p = xcalloc(1, sizeof(struct proc));
	s->last_pid = pid;
	return s->last_proc = e->val.p;
}

static void add_map(struct symbolizer *s, const struct cap_map *m)
{
	struct proc *p = get_proc(s, m->pid);
	struct pmap *pm;
	char *copy;

	p->maps = xreserve_from(p->maps, &p->cap, p->n + 1, sizeof(*p->maps), 16);
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

static void add_pysym(struct symbolizer *s, const struct cap_pysym *y)
{
	bool created;
	struct htab_entry *e = htab_upsert(s->pysyms, &y->id, sizeof(y->id), &created);
	struct pysym *v;

	if (!created)
		free_pysym(e->val.p);
	e->val.p = v = xcalloc(1, sizeof(*v));
	v->name = xstrndup(y->name.s, y->name.len);
	v->file = xstrndup(y->file.s, y->file.len);
	v->line = y->line;
	v->at = y->at;
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
 * its perf map, read once, through the reader (the process's user may have
 * mounted a FUSE file system on its name) and only on a local file system. */
static void load_live_perf_map(struct symbolizer *s, uint32_t pid, struct proc *p)
{
	if (!p || p->jit.n || p->perf_map_tried || !s->live || s->opt.sysroot || !pid)
		return;
	struct perf_map_cursor c = { 0 };
	enum perf_map_status st;
	struct opened_file info;
	char path[64];
	uid_t owner;
	int fd;

	p->perf_map_tried = true;
	if (!perf_map_owner(pid, &owner))
		return;
	snprintf(path, sizeof(path), "/tmp/perf-%" PRIu32 ".map", pid);
	fd = file_reader_open_wait(s->reader, path, FILE_READER_LOCAL, &info);
	if (fd < 0 && errno == ENOENT)
		return;
	if (fd < 0 && errno != EINVAL) {
		warnx("%s: %s; ignored", path,
		      errno == EREMOTE	   ? "not on a local file system"
		      : errno == ETIMEDOUT ? "its file system did not answer"
					   : strerror(errno));
		return;
	}
	do
		st = fd >= 0 ? perf_map_read_fd(fd, owner, &c, add_live_jsym, p) : PERF_MAP_REFUSED;
	while (st == PERF_MAP_READ && c.more);
	if (fd >= 0)
		close(fd);
	if (st == PERF_MAP_REFUSED)
		warnx("%s: not owned by the process's user or root; ignored", path);
}


/* A thread's name: a later record replaces it. */
static void set_name(struct htab *h, uint32_t id, struct cap_str name)
{
	bool created;
	struct htab_entry *e = htab_upsert(h, &id, sizeof(id), &created);

	if (!created)
		free(e->val.p);
	e->val.p = xstrndup(name.s, name.len);
}

static const char *name_of(struct htab *h, uint32_t id)
{
	struct htab_entry *e = htab_find(h, &id, sizeof(id));

	return e ? e->val.p : NULL;
}

const char *symbolizer_comm(struct symbolizer *s, uint32_t tid)
{
	return name_of(s->threads, tid);
}

/* A process's cgroup, and how many of its names the sampled host made;
 * a later record replaces it, as a thread's name. */
struct cgroup {
	uint32_t trusted;
	char path[];
};

static void set_cgroup(struct htab *h, const struct cap_cgroup *cg)
{
	bool created;
	struct htab_entry *e = htab_upsert(h, &cg->pid, sizeof(cg->pid), &created);
	struct cgroup *c = xmalloc(sizeof(*c) + cg->path.len + 1);

	if (!created)
		free(e->val.p);
	c->trusted = cg->trusted;
	memcpy(c->path, cg->path.s, cg->path.len);
	c->path[cg->path.len] = '\0';
	e->val.p = c;
}

const char *symbolizer_cgroup(struct symbolizer *s, uint32_t pid, uint32_t *trusted)
{
	struct htab_entry *e = htab_find(s->cgroups, &pid, sizeof(pid));
	struct cgroup *c = e ? e->val.p : NULL;

	if (c && trusted)
		*trusted = c->trusted;
	return c ? c->path : NULL;
}

static void add_stack(struct symbolizer *s, const struct cap_stack *st)
{
	if (!stack_table_define(&s->stacks, st)) {
		warnx("stack %u defined twice; keeping the first", st->id);
		return;
	}
	if (st->cut) {
		s->stacks_cut++;
		s->frames_cut += st->cut;
	}
}

static const struct stack_entry *find_stack(struct symbolizer *s, uint32_t id)
{
	const struct stack_entry *e = id ? stack_table_entry(&s->stacks, id, false) : NULL;

	return e && e->defined ? e : NULL;
}

static struct frame *add_frame(struct symbolizer *s, size_t *n, uint64_t ip, enum frame_where where)
{
	s->fr = xreserve(s->fr, &s->fr_cap, *n + 1, sizeof(*s->fr));
	s->fr[*n] = (struct frame){ .ip = ip, .where = where, .module = "" };
	return &s->fr[(*n)++];
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

static void kernel_frames(struct symbolizer *s, size_t *n, const struct stack_entry *st)
{
	const uint64_t *ips = stack_table_ips(&s->stacks, st);

	for (uint32_t i = 0; i < st->nr; i++) {
		uint64_t ip = ips[i];
		/* A return address is looked up a byte back, in its call.  One
		 * at the start of a function (an ip interrupted there; a call
		 * to a function that does not return, ending the one before)
		 * has that byte in another symbol, one the capture may not
		 * name (prof-sample names the symbols of the addresses):
		 * then the capture's symbol of the address itself, as perf
		 * names such frames, not a read of all of kallsyms for it. */
		const struct kernel_sym *k = i ? kernel_syms_find(&s->ksyms, ip - 1) : NULL;
		if (!k && i)
			k = kernel_syms_find(&s->ksyms, ip);
		if (!k)
			k = kernel_sym(s, i ? ip - 1 : ip);
		struct frame *f = add_frame(s, n, ip, FRAME_KERNEL);

		if (k) {
			f->r = (struct resolved){ k->name, ip - k->start, NULL, 0, false };
			f->module = k->module;
		}
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

static void user_frames(struct symbolizer *s, size_t *nf, uint32_t pid, struct proc *p,
			const struct stack_entry *st, bool counting)
{
	const uint64_t *ips = stack_table_ips(&s->stacks, st);
	struct resolved r[MAX_INLINE];

	for (uint32_t i = 0; i < st->nr; i++) {
		uint64_t ip = ips[i], off;
		/* Return addresses point after the call, possibly into the
		 * next function: look them up one byte earlier. */
		uint64_t at = i ? ip - 1 : ip;
		struct pmap *m;
		const struct jit_sym *j;
		size_t n;

		if (ip & CAP_PY_IP_BASE) {
			/* A Python function prof-sample put there. */
			uint32_t id = (uint32_t)(ip & ~CAP_PY_IP_BASE);
			struct htab_entry *e = ip - CAP_PY_IP_BASE <= UINT32_MAX
						       ? htab_find(s->pysyms, &id, sizeof(id))
						       : NULL;
			struct frame *f = add_frame(s, nf, ip, e ? FRAME_PYTHON : FRAME_NONE);
			if (e) {
				const struct pysym *y = e->val.p;
				f->r = (struct resolved){ y->name, 0, y->file, y->at ? y->at : y->line,
							  false };
				f->first_line = y->line;
			}
			continue;
		}
		m = find_map(p, at);

		if (!m || m->rec.path.s[0] != '/' || anonymous(m->rec.path)) {
			/* Not file-backed: JIT code, if the process said so. */
			load_live_perf_map(s, pid, p);
			if (p && (j = jit_syms_find(&p->jit, at))) {
				struct frame *f = add_frame(s, nf, ip, FRAME_JIT);
				f->r = (struct resolved){ j->name, ip - j->start, NULL, 0, false };
				f->pid = pid;
				continue;
			}
			/* No mapping, or an anonymous one: nothing names it. */
			if (!m || anonymous(m->rec.path)) {
				add_frame(s, nf, ip, FRAME_NONE);
				continue;
			}
		}
		if (!m->mod) {
			s->modules.sample_ns = s->start_ns + s->last_time;
			m->mod = modules_get(&s->modules, &m->rec, pid);
		}
		off = at - m->start + m->pgoff;
		n = module_resolve(m->mod, off, ip - at, s->opt.inline_frames, s->opt.lines, r);
		if (counting) {
			m->mod->lookups++;
			m->mod->unresolved += r[n - 1].name == NULL;
		}
		for (size_t k = 0; k < n; k++) {
			struct frame *f = add_frame(s, nf, ip, FRAME_FILE);
			f->r = r[k];
			f->module = m->mod->name;
			f->map = &m->rec;
			f->fileoff = off + (ip - at);
		}
	}
}

void **symbolizer_slot(struct symbolizer *s, uint32_t pid, uint32_t id, bool kernel, bool *first)
{
	struct proc *p = kernel ? NULL : get_proc(s, pid);
	uint32_t key[3] = { kernel ? 0 : pid, p ? p->generation : 0, id };
	struct stack_entry *e = stack_table_entry(&s->stacks, id, true);

	if (!e->slot_used) {
		e->slot_used = *first = true;
		e->slot_pid = key[0];
		e->slot_generation = key[1];
		return &e->slot;
	}
	if (e->slot_pid == key[0] && e->slot_generation == key[1]) {
		*first = false;
		return &e->slot;
	}
	return &htab_upsert(s->cache, key, sizeof(key), first)->val.p;
}

const struct frame *symbolizer_frames(struct symbolizer *s, uint32_t pid, uint32_t id, bool kernel,
				      bool first, size_t *n)
{
	const struct stack_entry *st = find_stack(s, id);

	*n = 0;
	if (!st && first && id)
		warnx("sample refers to undefined stack %u", id);
	else if (st && kernel)
		kernel_frames(s, n, st);
	else if (st)
		user_frames(s, n, pid, get_proc(s, pid), st, first);
	if (first) {
		s->frames += *n;
		for (size_t i = 0; i < *n; i++)
			s->unresolved += s->fr[i].r.name == NULL;
	}
	return s->fr;
}

static void add_sample(struct symbolizer *s, const struct cap_sample *smp)
{
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
	s->last_time = smp->time_ns;
	s->sink->sample(s->sink, s, smp, count);
	s->samples = add_sat(s->samples, smp->count);
	if (smp->kind == CAP_OFF_CPU) {
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
	s->sink->unit(s->sink, s, in);
}

void symbolizer_record(struct symbolizer *s, const struct cap_record *rec)
{
	switch (rec->type) {
	case CAP_INFO:
		set_info(s, &rec->u.info);
		break;
	case CAP_COMM:
		set_name(s->threads, rec->u.comm.tid, rec->u.comm.comm);
		s->comms++;
		break;
	case CAP_CGROUP:
		set_cgroup(s->cgroups, &rec->u.cgroup);
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
		add_sample(s, &rec->u.sample);
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
	case CAP_PYSYM:
		add_pysym(s, &rec->u.pysym);
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
	s->sink->finish(s->sink, s);
}
