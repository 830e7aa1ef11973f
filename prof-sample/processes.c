#include "processes.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "perf_map.h"
#include "proc_maps.h"
#include "stream.h"

struct process {
	struct mapping *maps;
	size_t n, cap;
	size_t written; /* maps[0..written) are in the capture */
	uint64_t generation;
	bool sampled, exited;
	bool snapshot; /* mappings read from /proc at the start, build-ids not yet */
	uint64_t exit_interval;
	bool uid_known, perf_map_refused;
	uid_t uid;	      /* owner a perf map must have (or root) */
	struct perf_map_cursor perf_map; /* how much of /tmp/perf-PID.map is in the capture */
	uint64_t perf_map_interval;
};

struct cached_id {
	uint8_t len;
	uint8_t id[BUILD_ID_MAX];
};

void processes_init(struct processes *ps, struct cap_writer *w, struct mapped_files *files)
{
	memset(ps, 0, sizeof(*ps));
	ps->w = w;
	ps->files = files;
	ps->byid = htab_new();
}

static void clear_maps(struct process *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->maps[i].path);
	p->n = p->written = 0;
}

static void free_process(struct process *p)
{
	clear_maps(p);
	free(p->maps);
	free(p);
}

void processes_free(struct processes *ps)
{
	struct htab_entry *e = htab_entries(ps->byid);

	for (size_t i = 0; i < htab_count(ps->byid); i++)
		free_process(e[i].val.p);
	htab_free(ps->byid);
}

static struct process *get(struct processes *ps, uint32_t pid)
{
	bool created;
	struct htab_entry *e = htab_upsert(ps->byid, &pid, sizeof(pid), &created);

	if (created) {
		struct process *p = e->val.p = xcalloc(1, sizeof(struct process));
		p->generation = ++ps->generations;
	}
	return e->val.p;
}

static void write_map(struct processes *ps, uint32_t pid, const struct mapping *m)
{
	capw_map(ps->w, &(struct cap_map){
				.pid = pid,
				.start = m->start,
				.end = m->end,
				.pgoff = m->pgoff,
				.dev = m->dev,
				.inode = m->inode,
				.build_id_len = m->build_id_len,
				.build_id = m->build_id,
				.path = cap_cstr(m->path),
			});
}

static bool same(const struct mapping *a, const struct mapping *b)
{
	return a->start == b->start && a->end == b->end && a->pgoff == b->pgoff &&
	       strcmp(a->path, b->path) == 0;
}

/* Adds m unless an identical mapping is known (the same library seen both
 * in an mmap event and in /proc). */
static void add(struct process *p, const struct mapping *m)
{
	/* The low half tells processes apart, the high half counts changes:
	 * processes_maps' callers only compare it with the one they saw. */
	p->generation += 1ull << 32;
	for (size_t i = 0; i < p->n; i++)
		if (same(&p->maps[i], m))
			return;
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 16;
		p->maps = xreallocarray(p->maps, p->cap, sizeof(*p->maps));
	}
	p->maps[p->n] = *m;
	p->maps[p->n].path = xstrdup(m->path);
	p->n++;
}

/* A file whose mapping is in the capture is kept in the build-id cache. */
static void flush(struct processes *ps, uint32_t pid, struct process *p)
{
	for (; p->written < p->n; p->written++) {
		write_map(ps, pid, &p->maps[p->written]);
		build_id_cache_offer(ps->cache, pid, &p->maps[p->written]);
	}
}

void processes_mmap(struct processes *ps, uint32_t pid, const struct mapping *m)
{
	struct process *p = get(ps, pid);

	add(p, m);
	if (p->sampled)
		flush(ps, pid, p);
}

struct proc_ctx {
	struct processes *ps;
	struct process *p;
	uint32_t pid;
};

/* The mappings as /proc shows them: the build-ids are read later, after
 * prof-sample has dropped its privileges. */
static void from_proc_raw(void *ctx, const struct mapping *m)
{
	struct proc_ctx *c = ctx;

	add(c->p, m);
}

static void from_proc(void *ctx, const struct mapping *m)
{
	struct proc_ctx *c = ctx;
	struct mapping copy = *m;

	if (copy.inode)
		mapped_files_identify(c->ps->files, c->pid, &copy);
	add(c->p, &copy);
}

void processes_fork(struct processes *ps, uint32_t ppid, uint32_t pid)
{
	struct htab_entry *e = htab_find(ps->byid, &ppid, sizeof(ppid));
	struct process *parent = e ? e->val.p : NULL, *child = get(ps, pid);
	struct process inherited = { 0 };

	/* Events come from one ring per CPU, so the child's own mmap events
	 * (after an exec) and even its exit may have been read before this
	 * fork: nothing the child has is dropped, and the inherited mappings
	 * go first so that the child's own win where they overlap. */
	if (parent && parent->n) {
		for (size_t i = 0; i < parent->n; i++)
			add(&inherited, &parent->maps[i]);
	} else if (!proc_maps_read(pid, from_proc, &(struct proc_ctx){ ps, &inherited, pid })) {
		/* A parent that predates the capture: its mappings, which the
		 * child shares until it execs, are in /proc while either
		 * lives. */
		proc_maps_read(ppid, from_proc, &(struct proc_ctx){ ps, &inherited, ppid });
	}
	for (size_t i = 0; i < child->n; i++) {
		add(&inherited, &child->maps[i]);
		free(child->maps[i].path);
	}
	free(child->maps);
	child->maps = inherited.maps;
	child->n = inherited.n;
	child->cap = inherited.cap;
	child->written = 0;
	child->generation += 1ull << 32;
}

void processes_exit(struct processes *ps, uint32_t pid, uint64_t interval)
{
	/* Created if unknown: its fork may still be on its way, and must
	 * find it marked for reaping. */
	struct process *p = get(ps, pid);

	p->exited = true;
	p->exit_interval = interval;
}

static bool read_uid(uint32_t pid, uid_t *uid)
{
	char path[64], line[256];
	unsigned int real, effective;
	bool ok = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/status", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %u %u", &real, &effective) == 2) {
			*uid = effective;
			ok = true;
			break;
		}
	if (f)
		fclose(f);
	return ok;
}

struct jsym_ctx {
	struct cap_writer *w;
	uint32_t pid;
};

static void write_jsym(void *ctx, uint64_t start, uint64_t size, const char *name, size_t len)
{
	struct jsym_ctx *c = ctx;

	capw_jsym(c->w, c->pid, start, size, name, len);
}

void processes_perf_map(struct processes *ps, uint32_t pid, uint64_t interval)
{
	struct htab_entry *e = htab_find(ps->byid, &pid, sizeof(pid));
	struct process *p = e ? e->val.p : NULL;

	if (!p || !p->uid_known || p->perf_map_refused || p->perf_map_interval == interval + 1)
		return;
	p->perf_map_interval = interval + 1;
	uint64_t skipped = p->perf_map.skipped;
	enum perf_map_status st = perf_map_read(NULL, pid, p->uid, &p->perf_map, write_jsym,
						&(struct jsym_ctx){ ps->w, pid });
	if (!skipped && p->perf_map.skipped)
		warnx("/tmp/perf-%" PRIu32 ".map: lines longer than %d bytes or not START SIZE "
		      "NAME skipped",
		      pid, PERF_MAP_MAX_LINE);
	if (st == PERF_MAP_REFUSED) {
		p->perf_map_refused = true;
		warnx("/tmp/perf-%" PRIu32 ".map: not owned by the process's user or root; "
		      "ignored",
		      pid);
	}
}

const struct mapping *processes_maps(struct processes *ps, uint32_t pid, size_t *n,
				     uint64_t *generation)
{
	struct htab_entry *e = htab_find(ps->byid, &pid, sizeof(pid));
	struct process *p = e ? e->val.p : NULL;

	if (!p)
		return NULL;
	*n = p->n;
	*generation = p->generation;
	return p->maps;
}

bool processes_sampled(struct processes *ps, uint32_t pid)
{
	struct process *p = get(ps, pid);
	bool from_maps;

	if (p->sampled)
		return true;
	p->sampled = true;
	if (p->snapshot) {
		for (size_t i = 0; i < p->n; i++)
			if (p->maps[i].inode && !p->maps[i].build_id_len)
				mapped_files_identify(ps->files, pid, &p->maps[i]);
		from_maps = true;
	} else {
		p->uid_known = pid != 0 && read_uid(pid, &p->uid);
		from_maps = pid != 0 &&
			    proc_maps_read(pid, from_proc, &(struct proc_ctx){ ps, p, pid });
	}
	flush(ps, pid, p);
	return from_maps || p->n > 0 || pid == 0;
}

void processes_snapshot(struct processes *ps, uint32_t pid)
{
	struct process *p = get(ps, pid);

	p->uid_known = read_uid(pid, &p->uid);
	p->snapshot = proc_maps_read(pid, from_proc_raw, &(struct proc_ctx){ ps, p, pid });
}

void processes_snapshot_all(struct processes *ps)
{
	DIR *proc = opendir("/proc");
	struct dirent *d;

	while (proc && (d = readdir(proc))) {
		char *end;
		unsigned long pid = strtoul(d->d_name, &end, 10);
		if (!*end && pid && pid <= UINT32_MAX)
			processes_snapshot(ps, (uint32_t)pid);
	}
	if (proc)
		closedir(proc);
}

void processes_reap(struct processes *ps, uint64_t interval)
{
	struct htab_entry *e = htab_entries(ps->byid);

	for (size_t i = 0; i < htab_count(ps->byid);) {
		struct process *p = e[i].val.p;
		uint32_t pid;
		if (!p->exited || p->exit_interval >= interval) {
			i++;
			continue;
		}
		memcpy(&pid, e[i].key, sizeof(pid));
		free_process(p);
		htab_remove(ps->byid, &pid, sizeof(pid)); /* moves the last entry to i */
		e = htab_entries(ps->byid);
	}
}
