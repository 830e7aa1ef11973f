#include "recorder.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "htab.h"
#include "profile.h"
#include "python.h"
#include "stream.h"

struct recorder {
	struct cap_writer w;
	const char *out_path; /* as given: NULL or "-" for stdout */
	struct kallsyms *ksyms;	  /* NULL: kernel symbols are unavailable */
	struct processes *procs;
	struct process_news news; /* ctx is this recorder */
	bool verbose;
	struct htab *stacks;  /* stack key -> capture stack id */
	struct htab *threads; /* tid -> last name written */
	const struct python *py;  /* names the Python functions of stacks */
	struct htab *pysyms;	  /* Python function ids written */
	struct recorder_stats stats; /* of the file being written */
	struct recorder_stats done;  /* of the files finished before it */
};

static void on_map(void *ctx, uint32_t pid, const struct mapping *m)
{
	struct recorder *r = ctx;

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
}

static void on_fork(void *ctx, uint32_t pid, uint32_t ppid)
{
	struct recorder *r = ctx;

	capw_fork(&r->w, pid, ppid);
}

static void on_jit_symbol(void *ctx, uint32_t pid, uint64_t start, uint64_t size,
			  const char *name, size_t len)
{
	struct recorder *r = ctx;

	capw_jsym(&r->w, pid, start, size, name, len);
}

static void on_cgroup(void *ctx, uint32_t pid, const char *path, size_t len, uint16_t trusted)
{
	struct recorder *r = ctx;

	capw_cgroup(&r->w, pid, path, len, trusted);
}

struct recorder *recorder_new(struct kallsyms *ksyms, struct processes *procs, bool verbose)
{
	struct recorder *r = xcalloc(1, sizeof(*r));

	r->ksyms = ksyms;
	r->procs = procs;
	r->news = (struct process_news){
		.ctx = r,
		.map = on_map,
		.fork = on_fork,
		.jit_symbol = on_jit_symbol,
		.cgroup = on_cgroup,
	};
	r->verbose = verbose;
	r->stacks = htab_new();
	r->threads = htab_new();
	r->pysyms = htab_new();
	return r;
}

void recorder_free(struct recorder *r)
{
	if (!r)
		return;
	htab_free(r->stacks);
	htab_free(r->pysyms);
	htab_free_values(r->threads, free);
	capw_free(&r->w);
	free(r);
}

const struct process_news *recorder_news(struct recorder *r)
{
	return &r->news;
}

void recorder_info(struct recorder *r, const struct cap_info *info)
{
	capw_info(&r->w, info);
}

static void write_ksyms(struct recorder *r, const uint64_t *ips, uint32_t nr)
{
	for (uint32_t i = 0; i < nr && r->ksyms; i++) {
		struct ksym *k = kallsyms_find(r->ksyms, ips[i]);
		if (k && !k->written) {
			capw_ksym(&r->w, k->start, k->end, k->name, k->module);
			k->written = true;
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

struct kallsyms *recorder_kallsyms(struct recorder *r)
{
	return r->ksyms;
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

bool recorder_process(struct recorder *r, uint32_t pid, const char *comm)
{
	if (processes_sampled(r->procs, pid))
		return true;
	recorder_loss(r, CAP_LOSS_PROC, 1);
	if (r->verbose) {
		char shown[PROF_COMM_LEN + 1];
		snprintf(shown, sizeof(shown), "%s", comm);
		printable(shown, strlen(shown));
		warnx("process %u (%s) exited before its mappings were known", pid, shown);
	}
	return false;
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

/* What a thread's frames need: its name, and for user frames its
 * process's mappings and perf-map symbols. */
static void note_frames_of(struct recorder *r, uint32_t pid, uint32_t tid, const char *comm,
			   bool user)
{
	if (user) {
		recorder_process(r, pid, comm);
		processes_perf_map(r->procs, pid);
	}
	note_thread(r, pid, tid, comm);
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
		.time_ns = s->time_ns,
		.kind = k->kind == PROF_OFF_CPU ? CAP_OFF_CPU : CAP_ON_CPU,
		.weight = s->weight,
		.nwakers = k->nwakers < PROF_MAX_WAKERS ? k->nwakers : PROF_MAX_WAKERS,
	};

	processes_cgroup(r->procs, k->pid);
	note_frames_of(r, k->pid, k->tid, k->comm, k->ustack);
	for (uint32_t i = 0; i < out.nwakers; i++) {
		const struct waker *w = &k->wakers[i];
		note_frames_of(r, w->pid, w->tid, w->comm, s->waker_ustack[i]);
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
		htab_free(r->stacks);
		htab_free(r->pysyms);
		htab_free_values(r->threads, free);
		r->stacks = htab_new();
		r->threads = htab_new();
		r->pysyms = htab_new();
		if (r->ksyms)
			kallsyms_unwritten(r->ksyms);
	}
	capw_init(&r->w, out);
	r->out_path = out_path;
}
