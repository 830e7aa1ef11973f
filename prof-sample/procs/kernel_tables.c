#include "kernel_tables.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "build_id.h"
#include "cfi_rows.h"
#include "clock.h"
#include "diag.h"
#include "elf_files.h"
#include "htab.h"
#include "processes.h"
#include "profile.h"
#include "profile.skel.h"
#include "sort.h"

/* A file as the tables know it: where it is, and its build-id as its
 * image says (the mappings read from /proc at the start get theirs
 * later), so that a file deleted and another given its inode number is
 * not taken for it. */
struct file_key {
	uint64_t dev, inode;
	uint8_t build_id_len;
	uint8_t build_id[BUILD_ID_MAX];
};

/* How long one sync may spend reading files' CFI before leaving the rest
 * to the next (cc1's takes 350 ms, libc's 7): the samples wait meanwhile. */
#define SYNC_BUDGET_NS (20 * 1000000ull)
/* Files whose CFI takes a second to read (cfi_rows.h) are made so: after
 * this many, no file is read any more, so that they hold up the capture
 * for seconds at most, and the rest is walked as without tables. */
#define MAX_SLOW_FILES 3

/* A file the tables have seen mapped: read (its rows, if it has any), or
 * waiting for a walk to reach it (by its slot in the wanted array). */
struct table_file {
	uint32_t first, n; /* its rows, once read (n 0: none) */
	uint32_t slot;	   /* in the wanted array; 0: none, read when seen */
	bool read;
	bool reached;	   /* read at least once (a walk asked for it) */
	bool root;	   /* every whole stack ends in it (unwind_table.h) */
	/* Its rows did not fit, when kt had forgotten no_room - 1 processes:
	 * read again once a process more is forgotten (room may be made). */
	uint64_t no_room;
	uint32_t need;	   /* its rows, then */
	uint64_t live;	   /* the last mark_live() that found it mapped */
};

/* What a mapping of f asks the walk for: its slot while f is not read. */
static uint32_t wanted_slot(const struct table_file *f)
{
	return f->read ? 0 : f->slot;
}

/* What the BPF program was last given for a process. */
struct pushed {
	uint64_t generation;
	uint64_t files_epoch;
	uint64_t round; /* the last sync that found the process known */
	bool incomplete; /* a file of it was not there yet, */
	bool deferred;	 /* or not read for want of time */
	/* The slots of its files not read yet: it is given its tables again
	 * once a walk wants one of them. */
	uint32_t nwaiting;
	uint32_t waiting[PROF_UNWIND_MAPPINGS];
	/* The files whose rows its tables point at, kept by a compaction. */
	uint32_t nfiles;
	struct table_file *files[PROF_UNWIND_MAPPINGS];
	uint64_t compactions; /* kt's count when it was given its tables */
};

struct kernel_tables {
	struct unwind_row *rows; /* the rows map's memory, */
	uint32_t nrows;		 /* of this many rows */
	volatile uint64_t *wanted; /* the wanted map's memory, set by walks */
	struct table_file *by_slot[PROF_UNWIND_WANTED];
	uint32_t next_slot;
	int procs_fd;
	struct processes *ps;
	struct elf_files *files;
	struct htab *tabled; /* struct file_key -> struct table_file */
	struct htab *pushed; /* pid -> struct pushed */
	uint32_t next_row;
	uint64_t forgotten; /* processes forgotten since the start */
	uint64_t marks;	    /* mark_live()'s calls */
	uint64_t round;
	uint64_t deadline; /* of this sync's reading of files */
	unsigned slow;	   /* files that took too long to read */
	bool deferred;	   /* a file was left for want of time */
	struct unwind_process value; /* the one being built */
	struct kernel_tables_stats stats;
};

void kernel_tables_configure(struct profile_bpf *skel, uint32_t rows)
{
	skel->rodata->table_unwinding = true;
	bpf_map__set_max_entries(skel->maps.unwind_rows, rows);
	bpf_map__set_max_entries(skel->maps.unwind_processes, KERNEL_TABLES_PROCESSES);
}

struct kernel_tables *kernel_tables_new(struct profile_bpf *skel, struct processes *ps,
					struct elf_files *files)
{
	struct kernel_tables *kt = xcalloc(1, sizeof(*kt));

	kt->nrows = bpf_map__max_entries(skel->maps.unwind_rows);
	kt->rows = mmap(NULL, kt->nrows * sizeof(*kt->rows), PROT_READ | PROT_WRITE, MAP_SHARED,
			bpf_map__fd(skel->maps.unwind_rows), 0);
	kt->wanted = mmap(NULL, PROF_UNWIND_WANTED * sizeof(*kt->wanted), PROT_READ | PROT_WRITE,
			  MAP_SHARED, bpf_map__fd(skel->maps.unwind_wanted), 0);
	if (kt->rows == MAP_FAILED || kt->wanted == MAP_FAILED) {
		warn("mapping the unwind tables");
		if (kt->rows != MAP_FAILED)
			munmap(kt->rows, kt->nrows * sizeof(*kt->rows));
		if (kt->wanted != MAP_FAILED)
			munmap((void *)kt->wanted, PROF_UNWIND_WANTED * sizeof(*kt->wanted));
		free(kt);
		return NULL;
	}
	kt->next_slot = 1; /* 0 asks for nothing */
	kt->procs_fd = bpf_map__fd(skel->maps.unwind_processes);
	kt->ps = ps;
	kt->files = files;
	kt->tabled = htab_new();
	kt->pushed = htab_new();
	return kt;
}

void kernel_tables_free(struct kernel_tables *kt)
{
	if (!kt)
		return;
	munmap(kt->rows, kt->nrows * sizeof(*kt->rows));
	munmap((void *)kt->wanted, PROF_UNWIND_WANTED * sizeof(*kt->wanted));
	htab_free_values(kt->tabled, free);
	htab_free_values(kt->pushed, free);
	free(kt);
}

/* Writes r's rows after those written so far (no process points at them
 * until its mappings are written, a system call later); their first
 * index, or UINT32_MAX when they do not fit. */
static uint32_t write_rows(struct kernel_tables *kt, const struct cfi_rows *r)
{
	uint32_t first = kt->next_row;

	if (r->n > kt->nrows - kt->next_row)
		return UINT32_MAX;
	memcpy(kt->rows + first, r->row, r->n * sizeof(*r->row));
	kt->next_row += (uint32_t)r->n;
	return first;
}

static int by_first(const void *a, const void *b)
{
	const struct table_file *x = *(struct table_file *const *)a;
	const struct table_file *y = *(struct table_file *const *)b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* Marks the files whose rows some process's tables point at (live ==
 * kt->marks); the rows of the others. */
static uint64_t mark_live(struct kernel_tables *kt)
{
	struct htab_entry *e = htab_entries(kt->pushed);
	uint64_t mark = ++kt->marks, dead = 0;

	for (size_t i = 0; i < htab_count(kt->pushed); i++) {
		struct pushed *p = e[i].val.p;
		for (uint32_t j = 0; j < p->nfiles; j++)
			p->files[j]->live = mark;
	}
	e = htab_entries(kt->tabled);
	for (size_t i = 0; i < htab_count(kt->tabled); i++) {
		struct table_file *f = e[i].val.p;
		if (f->read && f->n && f->live != mark)
			dead += f->n;
	}
	return dead;
}

/* Whether need rows fit, or would once the rows of the files no process
 * maps are dropped. */
static bool room(struct kernel_tables *kt, size_t need)
{
	return kt->nrows - kt->next_row + mark_live(kt) >= need;
}

/* Makes room for need rows in the rows map, full of the rows of files
 * read since the start, by dropping those of files no process's tables
 * point at now (a capture running for days sees programs come and go):
 * the rows kept are moved down over them.  While they move, no process
 * has tables (the BPF program copies their stacks, as for a process not
 * known yet); each is given its tables again as it is synced.  A file
 * dropped is read again if a walk reaches it again.  False, and nothing
 * changed, if dropping what can be dropped would not make the room. */
static bool compact(struct kernel_tables *kt, size_t need)
{
	size_t nfiles = htab_count(kt->tabled), nlive = 0;
	struct table_file **live;
	struct htab_entry *e;
	uint32_t next = 0;
	uint64_t mark;

	if (!room(kt, need))
		return false;
	mark = kt->marks; /* room()'s */
	kt->stats.compactions++;
	e = htab_entries(kt->pushed);
	for (size_t i = 0; i < htab_count(kt->pushed); i++)
		bpf_map_delete_elem(kt->procs_fd, e[i].key);
	live = xcalloc(nfiles ? nfiles : 1, sizeof(*live));
	e = htab_entries(kt->tabled);
	for (size_t i = 0; i < nfiles; i++) {
		struct table_file *f = e[i].val.p;
		if (!f->read || !f->n)
			continue;
		if (f->live == mark) {
			live[nlive++] = f;
			continue;
		}
		/* Unread again: its mappings ask for it anew. */
		f->read = false;
		f->first = f->n = 0;
		if (f->slot)
			kt->wanted[f->slot] = 0;
		kt->stats.files_dropped++;
	}
	sort_array(live, nlive, sizeof(*live), by_first);
	for (size_t i = 0; i < nlive; i++) {
		memmove(kt->rows + next, kt->rows + live[i]->first, live[i]->n * sizeof(*kt->rows));
		live[i]->first = next;
		next += live[i]->n;
	}
	free(live);
	kt->next_row = next;
	return true;
}

/* Reads f's rows (unless the time of this sync is up, or too many
 * files were slow: the others are left to the frame pointer); false when
 * left for the next sync. */
static bool read_file(struct kernel_tables *kt, struct table_file *f, Elf *elf)
{
	struct cfi_rows *r;
	const char *why;
	uint32_t first;

	if (monotonic_ns() > kt->deadline) {
		kt->deferred = true;
		return false;
	}
	/* Read again only when the room is there to be made. */
	if (f->no_room && !room(kt, f->need)) {
		f->no_room = kt->forgotten + 1;
		return true;
	}
	/* One file may not take the place of all others. */
	if (kt->slow < MAX_SLOW_FILES) {
		r = cfi_rows_read(elf, kt->nrows / 4, &why);
		if (!r && strcmp(why, CFI_ROWS_TOO_SLOW) == 0) {
			kt->slow++;
			kt->stats.files_slow++;
		}
	} else {
		r = NULL;
		kt->stats.files_slow++; /* not read after those */
	}
	first = r ? write_rows(kt, r) : UINT32_MAX;
	if (r && first == UINT32_MAX && compact(kt, r->n))
		first = write_rows(kt, r);
	if (r && first == UINT32_MAX) {
		/* Walked by frame pointer until a process goes. */
		f->no_room = kt->forgotten + 1;
		f->need = (uint32_t)r->n;
		kt->stats.files_no_room++;
		cfi_rows_free(r);
		return true;
	}
	f->no_room = 0;
	if (first != UINT32_MAX) {
		f->first = first;
		f->n = (uint32_t)r->n;
		kt->stats.files++;
		kt->stats.rows += r->n;
		kt->stats.rows_unknown += r->unknown;
	} else {
		kt->stats.files_without++;
	}
	f->reached = true;
	f->read = true;
	cfi_rows_free(r);
	return true;
}

static bool waits_for_room(const struct kernel_tables *kt, const struct table_file *f)
{
	return f->no_room == kt->forgotten + 1;
}

/* The file m maps as the tables know it, read if a walk wants it, and its
 * image; NULL when it is not there yet (or not ELF), or is wanted and
 * left for the next sync. */
static struct table_file *file_of(struct kernel_tables *kt, uint32_t pid, const struct mapping *m,
				  struct elf_image **image)
{
	struct file_key k = { .dev = m->dev, .inode = m->inode };
	struct table_file *f;
	struct htab_entry *e;
	bool created;

	*image = elf_files_get(kt->files, pid, m);
	if (!*image)
		return NULL;
	k.build_id_len = (uint8_t)elf_build_id((*image)->elf, k.build_id);
	e = htab_upsert(kt->tabled, &k, sizeof(k), &created);
	if (created) {
		e->val.p = xcalloc(1, sizeof(struct table_file));
		f = e->val.p;
		f->root = elf_image_ends_stacks(*image);
		/* Past the slots, read at once, as the first walk would ask. */
		if (kt->next_slot < PROF_UNWIND_WANTED) {
			f->slot = kt->next_slot++;
			kt->by_slot[f->slot] = f;
		}
	}
	f = e->val.p;
	if (f->read || (f->slot && !kt->wanted[f->slot]) || waits_for_room(kt, f))
		return f;
	return read_file(kt, f, (*image)->elf) ? f : NULL;
}

static bool overlaps(const struct unwind_process *v, uint64_t start, uint64_t end)
{
	for (uint32_t i = 0; i < v->n; i++)
		if (start < v->m[i].end && v->m[i].start < end)
			return true;
	return false;
}

static int by_start(const void *a, const void *b)
{
	const struct unwind_mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void add_root(struct unwind_process *v, uint32_t slot)
{
	for (uint32_t i = 0; i < PROF_UNWIND_ROOTS; i++) {
		if (v->roots[i] == slot)
			return;
		if (!v->roots[i]) {
			v->roots[i] = slot;
			return;
		}
	}
}

/* Builds pid's value from its mappings (the latest of those that overlap:
 * a PID reused keeps the old process's before its own), and the slots it
 * waits on in p. */
static bool build(struct kernel_tables *kt, uint32_t pid, const struct mapping *maps, size_t n,
		  struct pushed *p)
{
	struct unwind_process *v = &kt->value;
	bool complete = true;

	memset(v, 0, sizeof(*v));
	p->nwaiting = p->nfiles = 0;
	for (size_t i = n; i-- > 0 && v->n < PROF_UNWIND_MAPPINGS;) {
		const struct mapping *m = &maps[i];
		struct elf_image *image;
		struct table_file *f;
		GElf_Addr bias;
		if (m->path[0] != '/' || overlaps(v, m->start, m->end))
			continue;
		f = file_of(kt, pid, m, &image);
		if (!f) {
			complete = false;
			continue;
		}
		if ((!f->n && !wanted_slot(f)) || !elf_image_bias(image, m, &bias))
			continue;
		if (wanted_slot(f)) {
			p->waiting[p->nwaiting++] = f->slot;
			if (f->root)
				add_root(v, f->slot);
		} else
			p->files[p->nfiles++] = f;
		v->m[v->n++] = (struct unwind_mapping){
			.start = m->start,
			.end = m->end,
			.bias = bias,
			.first = f->first,
			.n = f->n,
			.wanted = wanted_slot(f),
		};
	}
	sort_array(v->m, v->n, sizeof(v->m[0]), by_start);
	return complete;
}

/* Whether a walk of p reached one of its files not read yet. */
static bool wants(const struct kernel_tables *kt, const struct pushed *p)
{
	for (uint32_t i = 0; i < p->nwaiting; i++) {
		const struct table_file *f = kt->by_slot[p->waiting[i]];
		if (f->read || (kt->wanted[f->slot] && !waits_for_room(kt, f)))
			return true;
	}
	return false;
}

static void sync_one(void *arg, uint32_t pid)
{
	struct kernel_tables *kt = arg;
	uint64_t generation, epoch = elf_files_epoch(kt->files);
	const struct mapping *maps;
	struct pushed *p;
	struct htab_entry *e;
	bool created;
	size_t n;

	maps = processes_maps(kt->ps, pid, &n, &generation);
	if (!maps)
		return;
	e = htab_upsert(kt->pushed, &pid, sizeof(pid), &created);
	if (created)
		e->val.p = xcalloc(1, sizeof(struct pushed));
	p = e->val.p;
	p->round = kt->round;
	if (!created && p->generation == generation && !p->deferred &&
	    (!p->incomplete || p->files_epoch == epoch) && !wants(kt, p) &&
	    p->compactions == kt->stats.compactions)
		return;
	p->generation = generation;
	p->files_epoch = epoch;
	p->compactions = kt->stats.compactions;
	kt->deferred = false;
	p->incomplete = !build(kt, pid, maps, n, p);
	p->deferred = kt->deferred;
	/* Rows moved while it was built: its value points at some of them
	 * where they were, and the next sync builds it again. */
	if (p->compactions != kt->stats.compactions)
		return;
	if (bpf_map_update_elem(kt->procs_fd, &pid, &kt->value, BPF_ANY) != 0) {
		kt->stats.processes_refused++;
		return;
	}
	if (created)
		kt->stats.processes++;
}

static bool forgotten(struct htab_entry *e, void *arg)
{
	struct kernel_tables *kt = arg;
	struct pushed *p = e->val.p;

	if (p->round == kt->round)
		return false;
	bpf_map_delete_elem(kt->procs_fd, e->key);
	free(p);
	kt->forgotten++;
	return true;
}

void kernel_tables_sync(struct kernel_tables *kt)
{
	kt->round++;
	kt->deadline = monotonic_ns() + SYNC_BUDGET_NS;
	processes_each(kt->ps, sync_one, kt);
	htab_remove_if(kt->pushed, forgotten, kt);
}

const struct kernel_tables_stats *kernel_tables_stats(struct kernel_tables *kt)
{
	struct htab_entry *e = htab_entries(kt->tabled);

	kt->stats.files_unreached = 0;
	for (size_t i = 0; i < htab_count(kt->tabled); i++)
		kt->stats.files_unreached += !((struct table_file *)e[i].val.p)->reached;
	return &kt->stats;
}
