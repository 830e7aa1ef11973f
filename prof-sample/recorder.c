#include "recorder.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "build_id_cache.h"
#include "diag.h"
#include "htab.h"
#include "profile.h"
#include "python.h"
#include "stream.h"

/* What the file being written has said of a process. */
struct said {
	uint64_t id;	/* processes_id() */
	uint64_t epoch; /* of the list of mappings of which */
	size_t maps;	/* the first maps were said */
	bool cgroup;
	struct perf_map_cursor perf_map; /* how much of its perf map */
	uint64_t perf_map_read;		 /* the interval it was read in */
};

struct recorder {
	struct cap_writer w;
	const char *out_path; /* as given: NULL or "-" for stdout */
	struct kallsyms *ksyms;	  /* NULL: kernel symbols are unavailable */
	struct processes *procs;
	struct build_id_cache *cache; /* keeps the files MAP records name; NULL: none */
	bool verbose;
	uint64_t clock_start_ns; /* CLOCK_MONOTONIC at the file's start */
	uint64_t resolution_ns;	 /* of the samples' slots; 0: none */
	/* What the file being written has said, each thing once: */
	struct htab *stacks;	/* stack key -> capture stack id */
	struct htab *threads;	/* tid -> last name written */
	struct htab *processes; /* pid -> struct said */
	uint8_t *ksyms_said;	/* by index in ksyms */
	struct htab *pysyms;	/* Python function ids written */
	const struct python *py;  /* names the Python functions of stacks */
	struct recorder_stats stats; /* of the file being written */
	struct recorder_stats done;  /* of the files finished before it */
};

static void write_map(struct recorder *r, uint32_t pid, const struct mapping *m)
{
	capw_map(&r->w, &(struct cap_map){
				.pid = pid,
				.start = m->start,
				.end = m->end,
				.pgoff = m->pgoff,
				.dev = m->dev,
				.inode = m->inode,
				.build_id_len = m->build_id_len,
				.build_id = m->build_id,
				.path = cap_cstr(m->path),
				.owner = m->trusted ? m->owner : CAP_OWNER_UNKNOWN,
			});
	build_id_cache_offer(r->cache, pid, m);
}

/* Nothing said yet: for a new recorder, and for each new file. */
static void unsaid(struct recorder *r)
{
	r->stacks = htab_new();
	r->threads = htab_new();
	r->processes = htab_new();
	r->pysyms = htab_new();
	if (r->ksyms)
		r->ksyms_said = xcalloc(r->ksyms->n ? r->ksyms->n : 1, 1);
}

static void free_said(struct recorder *r)
{
	htab_free(r->stacks);
	htab_free(r->pysyms);
	htab_free_values(r->threads, free);
	htab_free_values(r->processes, free);
	free(r->ksyms_said);
}

struct recorder *recorder_new(struct kallsyms *ksyms, struct processes *procs, bool verbose)
{
	struct recorder *r = xcalloc(1, sizeof(*r));

	r->ksyms = ksyms;
	r->procs = procs;
	r->verbose = verbose;
	unsaid(r);
	return r;
}

void recorder_free(struct recorder *r)
{
	if (!r)
		return;
	free_said(r);
	capw_free(&r->w);
	free(r);
}

void recorder_keep_files(struct recorder *r, struct build_id_cache *cache)
{
	r->cache = cache;
}

void recorder_info(struct recorder *r, const struct cap_info *info, uint64_t clock_start_ns)
{
	r->clock_start_ns = clock_start_ns;
	r->resolution_ns = info->time_resolution_ns;
	capw_info(&r->w, info);
}

static void write_ksyms(struct recorder *r, const uint64_t *ips, uint32_t nr)
{
	for (uint32_t i = 0; i < nr && r->ksyms; i++) {
		const struct ksym *k = kallsyms_find(r->ksyms, ips[i]);
		if (k && !r->ksyms_said[k - r->ksyms->syms]) {
			capw_ksym(&r->w, k->start, k->end, k->name, k->module);
			r->ksyms_said[k - r->ksyms->syms] = 1;
		}
	}
}

/* The PYSYM records a user stack's Python frames need, before it. */
static void write_pysyms(struct recorder *r, const uint64_t *ips, uint32_t nr)
{
	for (uint32_t i = 0; i < nr && r->py; i++) {
		uint32_t id = (uint32_t)(ips[i] & ~PY_IP_BASE);
		const char *name, *file;
		int32_t line, at;
		bool created;
		if (!(ips[i] & PY_IP_BASE) || ips[i] - PY_IP_BASE > UINT32_MAX)
			continue;
		htab_upsert(r->pysyms, &id, sizeof(id), &created);
		if (created && python_function(r->py, id, &name, &file, &line, &at))
			capw_pysym(&r->w, id, line, name, file, at);
	}
}

void recorder_python(struct recorder *r, const struct python *py)
{
	r->py = py;
}

/* Readers keep no more of a STACK: a deeper one would be cut. */
_Static_assert(PROF_MAX_STACK <= CAP_MAX_FRAMES, "STACK records deeper than readers keep");

uint32_t recorder_stack(struct recorder *r, uint64_t key, const uint64_t *ips, uint32_t nr)
{
	bool created;
	struct htab_entry *e = htab_upsert(r->stacks, &key, sizeof(key), &created);

	if (!created)
		return (uint32_t)e->val.u;
	e->val.u = ++r->stats.stacks;
	if (key & PROF_KERNEL_STACK)
		write_ksyms(r, ips, nr);
	else
		write_pysyms(r, ips, nr);
	capw_stack(&r->w, (uint32_t)e->val.u, nr, ips);
	return (uint32_t)e->val.u;
}

uint32_t recorder_held_stack(struct recorder *r, uint64_t key, const uint64_t *ips, uint32_t nr)
{
	uint32_t skip = 0;

	if ((key & PROF_KERNEL_STACK) && r->ksyms)
		skip = kallsyms_tracing_frames(r->ksyms, ips, nr);
	return recorder_stack(r, key, ips + skip, nr - skip);
}

uint32_t recorder_stack_id(const struct recorder *r, uint64_t key)
{
	struct htab_entry *e = key ? htab_find(r->stacks, &key, sizeof(key)) : NULL;

	return e ? (uint32_t)e->val.u : 0;
}

void recorder_loss(struct recorder *r, enum cap_loss_cause cause, uint64_t n)
{
	if (!n)
		return;
	r->stats.lost[cause] += n;
	capw_loss(&r->w, cause, n);
}

/* What was said of p, the process now under pid: nothing, if it is not
 * the one that was. */
static struct said *said_of(struct recorder *r, uint32_t pid, const struct process *p)
{
	bool created;
	struct htab_entry *e = htab_upsert(r->processes, &pid, sizeof(pid), &created);
	uint64_t id = processes_id(p);
	struct said *s;

	if (created)
		e->val.p = xcalloc(1, sizeof(struct said));
	s = e->val.p;
	if (s->id != id)
		*s = (struct said){ .id = id };
	return s;
}

/* A process and what the file has said of it, looked up once a sample. */
struct subject {
	uint32_t pid;
	struct process *p;
	struct said *s;
};

static struct subject subject_of(struct recorder *r, uint32_t pid)
{
	struct process *p = processes_get(r->procs, pid);

	return (struct subject){ pid, p, said_of(r, pid, p) };
}

static void say_maps_depth(struct recorder *r, const struct subject *who, int depth);

/* Says once that a process has its parent's mappings, rather than each of
 * them: a child of a server with thousands of mappings would otherwise
 * repeat them all.  The parent's are said first if they were not. */
static void say_fork(struct recorder *r, const struct subject *who,
		     const struct process_listing *l, int depth)
{
	struct subject parent;

	if (who->s->maps || !l->ninherited || !l->parent || depth > 32)
		return;
	parent = (struct subject){ l->ppid, l->parent, said_of(r, l->ppid, l->parent) };
	say_maps_depth(r, &parent, depth + 1);
	if (parent.s->epoch != l->parent_epoch || parent.s->maps < l->ninherited)
		return;
	capw_fork(&r->w, who->pid, l->ppid);
	who->s->maps = l->ninherited;
}

/* The mappings of a process not said yet, the inherited ones first; a
 * file whose mapping is said is kept in the build-id cache. */
static void say_maps_depth(struct recorder *r, const struct subject *who, int depth)
{
	struct process_listing l;
	struct said *s = who->s;

	processes_listing(r->procs, who->p, &l);
	if (s->epoch != l.epoch) {
		s->epoch = l.epoch;
		s->maps = 0;
	}
	say_fork(r, who, &l, depth);
	/* s stays valid: values are held by pointer, apart from the table. */
	for (; s->maps < l.n; s->maps++)
		write_map(r, who->pid, &l.maps[s->maps]);
}

static bool say_process(struct recorder *r, const struct subject *who, const char *comm)
{
	bool known = processes_sampled(r->procs, who->p);

	say_maps_depth(r, who, 0);
	if (known)
		return true;
	recorder_loss(r, CAP_LOSS_PROC, 1);
	if (r->verbose) {
		char shown[PROF_COMM_LEN + 1];
		snprintf(shown, sizeof(shown), "%s", comm);
		printable(shown, strlen(shown));
		warnx("process %u (%s) exited before its mappings were known", who->pid, shown);
	}
	return false;
}

bool recorder_process(struct recorder *r, uint32_t pid, const char *comm)
{
	struct subject who = subject_of(r, pid);

	return say_process(r, &who, comm);
}

/* A COMM record when a thread is first seen and whenever its name changes
 * (exec, prctl): the name is the one the thread had at each sample. */
static void note_thread(struct recorder *r, uint32_t pid, uint32_t tid, const char *name)
{
	bool created;
	struct htab_entry *e = htab_upsert(r->threads, &tid, sizeof(tid), &created);
	char comm[PROF_COMM_LEN + 1] = { 0 };

	memcpy(comm, name, PROF_COMM_LEN);
	if (created)
		e->val.p = xcalloc(1, sizeof(comm));
	else if (strcmp(e->val.p, comm) == 0)
		return;
	memcpy(e->val.p, comm, sizeof(comm));
	capw_comm(&r->w, pid, tid, comm);
}

struct jsym_ctx {
	struct recorder *r;
	uint32_t pid;
};

static void write_jsym(void *ctx, uint64_t start, uint64_t size, const char *name, size_t len)
{
	const struct jsym_ctx *c = ctx;

	capw_jsym(&c->r->w, c->pid, start, size, name, len);
}

/* The symbols of a process's perf map added since the file last said
 * them. */
static void say_perf_map(struct recorder *r, const struct subject *who)
{
	processes_perf_map(r->procs, who->p, &who->s->perf_map, &who->s->perf_map_read, write_jsym,
			   &(struct jsym_ctx){ r, who->pid });
}

/* A process's cgroup, once a file. */
static void say_cgroup(struct recorder *r, const struct subject *who)
{
	uint16_t trusted;
	const char *path;

	if (who->s->cgroup)
		return;
	who->s->cgroup = true;
	if ((path = processes_cgroup(r->procs, who->p, &trusted)))
		capw_cgroup(&r->w, who->pid, path, strlen(path), trusted);
}

/* What a thread's frames need: its name, and for user frames its
 * process's mappings and perf-map symbols. */
static void note_frames_of(struct recorder *r, const struct subject *who, uint32_t tid,
			   const char *comm, bool user)
{
	if (user) {
		say_process(r, who, comm);
		say_perf_map(r, who);
	}
	note_thread(r, who->pid, tid, comm);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Where the slot of k lies in the file, as times since its start: the end
 * no later than the drain that took the samples, the start no earlier
 * than the file's (a block may have begun in the file before). */
static void date(const struct recorder *r, const struct sample_key *k, uint64_t drained_ns,
		 struct cap_sample *out)
{
	uint64_t res = r->resolution_ns, t0 = r->clock_start_ns;
	uint64_t end = (k->slot + 1) * res, begin = (k->slot - min_u64(k->span, k->slot)) * res;

	out->time_ns = !res ? drained_ns : end > t0 ? min_u64(end - t0, drained_ns) : 0;
	out->begin_ns = !res ? drained_ns : begin > t0 ? min_u64(begin - t0, out->time_ns) : 0;
}

void recorder_sample(struct recorder *r, const struct taken_sample *s)
{
	const struct sample_key *k = s->key;
	struct cap_sample out = {
		.pid = k->pid,
		.tid = k->tid,
		.kstack = s->kstack,
		.ustack = s->ustack,
		.count = s->count,
		.kind = k->kind == PROF_OFF_CPU ? CAP_OFF_CPU : CAP_ON_CPU,
		.weight = s->weight,
		.nwakers = k->nwakers < PROF_MAX_WAKERS ? k->nwakers : PROF_MAX_WAKERS,
	};
	struct subject who = subject_of(r, k->pid);

	date(r, k, s->time_ns, &out);
	say_cgroup(r, &who);
	note_frames_of(r, &who, k->tid, k->comm, k->ustack);
	for (uint32_t i = 0; i < out.nwakers; i++) {
		const struct waker *w = &k->wakers[i];
		struct subject waker = subject_of(r, w->pid);
		note_frames_of(r, &waker, w->tid, w->comm, s->waker_ustack[i]);
		out.waker[i] = (struct cap_waker){ w->pid, w->tid, s->waker_kstack[i],
						   s->waker_ustack[i] };
	}
	capw_sample(&r->w, &out);
	r->stats.samples += s->count;
	if (out.kind == CAP_OFF_CPU)
		r->stats.blocks += s->count;
	r->stats.weight += s->weight;
}

void recorder_rawstack(struct recorder *r, const struct cap_rawstack *raw, const uint64_t *regs)
{
	capw_rawstack(&r->w, raw, regs);
}

void recorder_taken(struct recorder *r, uint64_t taken)
{
	r->stats.taken = taken - r->done.taken;
}

bool recorder_flush(struct recorder *r)
{
	return output_flush(r->w.f, r->out_path);
}

void recorder_end(struct recorder *r, uint64_t duration_ns)
{
	const struct recorder_stats *st = &r->stats;

	capw_end(&r->w, &(struct cap_end){
				.duration_ns = duration_ns,
				.samples = st->samples,
				/* Samples lost whole, as opposed to stacks lost
				 * or cut short. */
				.lost = st->lost[CAP_LOSS_COUNT_MAP] + st->lost[CAP_LOSS_RING] +
					st->lost[CAP_LOSS_SWITCH],
				.stacks = st->stacks,
				.taken = st->taken,
				.weight = st->weight,
			});
}

const struct recorder_stats *recorder_stats(const struct recorder *r)
{
	return &r->stats;
}

void recorder_run_stats(const struct recorder *r, struct recorder_stats *run)
{
	*run = r->done;
	run->taken += r->stats.taken;
	run->samples += r->stats.samples;
	run->blocks += r->stats.blocks;
	run->weight += r->stats.weight;
	run->stacks += r->stats.stacks;
	for (int c = 0; c < CAP_LOSS_MAX; c++)
		run->lost[c] += r->stats.lost[c];
}

void recorder_next_file(struct recorder *r, FILE *out, const char *out_path)
{
	if (r->w.f) {
		recorder_run_stats(r, &r->done);
		r->stats = (struct recorder_stats){ 0 };
		capw_free(&r->w);
		/* What a file says once is said again in the next: each is
		 * read alone. */
		free_said(r);
		unsaid(r);
	}
	capw_init(&r->w, out);
	r->out_path = out_path;
}
