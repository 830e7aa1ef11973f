/*
 * --unwind=dwarf: the BPF program (sample_dwarf) sends each sample through
 * a ring buffer with the user registers and stack bytes.  They are unwound
 * as they arrive and aggregated as sample_fp aggregates in its maps, so the
 * capture holds the same STACK and SAMPLE records in both modes; with
 * --keep-stack-bytes the raw bytes are written too (RAWSTACK records).
 * Off-CPU blocks whose user stack the BPF program walked whole by the
 * unwind tables (kernel_tables.h) are counted in the count maps instead,
 * as --unwind=fp counts them; the rest come through the ring.
 */
#include "source.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "clock.h"
#include "count_maps.h"
#include "diag.h"
#include "htab.h"
#include "options.h"
#include "profile.h"
#include "profile.skel.h"
#include "recorder.h"
#include "elf_files.h"
#include "held_stacks.h"
#include "kernel_tables.h"
#include "python.h"
#include "unwind.h"

/* What samples are aggregated by: the count map's key, plus the capture
 * ids of its stacks. */
struct agg_key {
	struct sample_key key;
	uint32_t kstack, ustack;
};

/* How long one read of the ring may unwind before returning to the main
 * loop: well under the drain interval and the mmap-event ring's slack. */
#define RAW_BUDGET_NS (50 * 1000000ull)

struct dwarf_source {
	struct source_env env;
	struct ring_buffer *rb;
	struct elf_files *files; /* read by both unwinders: */
	struct unwinder *unw;	 /* prof-sample's, of the stacks copied, */
	/* and the BPF program's, of blocks and wakers (--off-cpu, --wall),
	 * whose blocks are counted in the count maps. */
	struct kernel_tables *tables;
	struct count_maps *maps;
	struct htab *counts; /* struct agg_key -> index in vals, since the last drain */
	struct sample_value *vals;
	size_t nvals, vals_cap;
	int held_fd;
	bool keep_stack_bytes;
	bool no_python;
	uint64_t deadline;		  /* CLOCK_MONOTONIC end of this consume's budget */
	bool out_of_time;
	uint64_t truncated[CAP_LOSS_MAX]; /* since the last drain, by cause */
	uint64_t ips[PROF_MAX_STACK];
	uint64_t sps[PROF_MAX_STACK]; /* each frame's stack pointer */
	struct python *py;
};

static const enum cap_loss_cause truncation_cause[] = {
	[UNWIND_NO_CFI] = CAP_LOSS_TRUNC_NO_CFI,
	[UNWIND_STACK_SHORT] = CAP_LOSS_TRUNC_STACK,
	[UNWIND_ERROR] = CAP_LOSS_TRUNC_ERROR,
};

static enum unwind_status unwind_user(struct dwarf_source *r, const struct raw_sample *rs,
				      uint32_t stack_len, uint32_t *nr)
{
	struct unwind_input in = {
		.pid = rs->pid,
		.tid = rs->tid,
		.regs = (const uint64_t *)rs->regs,
		.stack = rs->stack,
		.stack_len = stack_len,
		.sps = r->sps,
	};
	enum unwind_status status = unwind(r->unw, &in, r->ips, PROF_MAX_STACK, nr);
	size_t n;
	uint64_t before, after;

	if (status != UNWIND_NO_CFI || !r->env.catch_up ||
	    !processes_maps(r->env.procs, rs->pid, &n, &before))
		return status;
	/* The mmap event of the code the walk stopped in may still be in the
	 * event ring: read it, and walk again if it changed anything.  (A
	 * walk cut by the stack copy or by bad CFI it could not help.) */
	r->env.catch_up(r->env.catch_up_ctx);
	if (processes_maps(r->env.procs, rs->pid, &n, &after) && after != before)
		status = unwind(r->unw, &in, r->ips, PROF_MAX_STACK, nr);
	return status;
}

/* A process started while the ring was being read may have its mmap or
 * fork events still in the event ring (read at the start of each read of
 * this one): read them before deciding nothing is known of it. */
static void known_or_caught_up(struct dwarf_source *r, uint32_t pid)
{
	size_t n = 0;
	uint64_t generation;

	if (r->env.catch_up && (!processes_maps(r->env.procs, pid, &n, &generation) || !n))
		r->env.catch_up(r->env.catch_up_ctx);
}

/* Counts one sample (or block of weight nanoseconds) of a. */
static void add(struct dwarf_source *r, const struct agg_key *a, uint64_t weight)
{
	bool created;
	struct htab_entry *e = htab_upsert(r->counts, a, sizeof(*a), &created);

	if (created) {
		r->vals = xreserve(r->vals, &r->vals_cap, r->nvals + 1, sizeof(*r->vals));
		e->val.u = r->nvals;
		r->vals[r->nvals++] = (struct sample_value){ 0, 0 };
	}
	r->vals[e->val.u].count++;
	r->vals[e->val.u].weight += weight;
}

static int on_sample(void *ctx, void *data, size_t size)
{
	struct dwarf_source *r = ctx;
	const struct raw_sample *rs = data;
	struct agg_key a;
	uint32_t stack_len, knr, unr = 0;

	if (size < PROF_RAW_HEADER)
		return 0;
	memset(&a, 0, sizeof(a));
	a.key.pid = rs->pid;
	a.key.tid = rs->tid;
	memcpy(a.key.comm, rs->comm, sizeof(a.key.comm));
	a.key.kind = rs->kind;
	a.key.slot = rs->slot;
	a.key.span = rs->span;
	a.key.nwakers = rs->nwakers < PROF_MAX_WAKERS ? rs->nwakers : PROF_MAX_WAKERS;
	memcpy(a.key.wakers, rs->wakers, a.key.nwakers * sizeof(a.key.wakers[0]));
	stack_len = rs->stack_len <= size - PROF_RAW_HEADER ? rs->stack_len
							   : (uint32_t)(size - PROF_RAW_HEADER);
	knr = rs->kstack_nr < PROF_MAX_STACK ? rs->kstack_nr : PROF_MAX_STACK;
	if (rs->flags & PROF_RAW_KSTACK_HELD) {
		a.key.kstack = rs->kstack[0];
		a.kstack = held_stack_id(r->env.rec, r->held_fd, a.key.kstack, CAP_LOSS_KSTACK);
	} else if (knr) {
		a.key.kstack = prof_stack_key(rs->kstack, knr, 1);
		a.kstack = recorder_stack(r->env.rec, a.key.kstack, (const uint64_t *)rs->kstack,
					  knr);
	}
	if (rs->flags & PROF_RAW_USER) {
		char comm[PROF_COMM_LEN + 1] = { 0 };

		memcpy(comm, rs->comm, PROF_COMM_LEN);
		known_or_caught_up(r, rs->pid);
		if (recorder_process(r->env.rec, rs->pid, comm)) {
			enum unwind_status status = unwind_user(r, rs, stack_len, &unr);
			if (status != UNWIND_COMPLETE)
				r->truncated[truncation_cause[status]]++;
			python_merge(r->py, rs->pid, &rs->py, r->ips, r->sps, &unr, PROF_MAX_STACK);
			if (!r->no_python)
				python_check(r->py, r->env.procs, rs->pid);
		} else {
			/* Counted as proc-unreadable: its one frame stays
			 * unresolved. */
			r->ips[0] = rs->regs[PROF_UREG_IP];
			unr = 1;
		}
		a.key.ustack = prof_stack_key((const __u64 *)r->ips, unr, 0);
		a.ustack = recorder_stack(r->env.rec, a.key.ustack, r->ips, unr);
		if (r->keep_stack_bytes)
			recorder_rawstack(r->env.rec,
					  &(struct cap_rawstack){
						  .pid = rs->pid,
						  .tid = rs->tid,
						  .time_ns = monotonic_ns() - *r->env.start_ns,
						  .ustack = a.ustack,
						  .machine = UNWIND_MACHINE,
						  .nregs = PROF_NR_UREGS,
						  .stack_len = stack_len,
						  .stack = rs->stack,
					  },
					  (const uint64_t *)rs->regs);
	}
	add(r, &a, rs->weight);
	/* libbpf reads on while samples keep coming: when they come faster
	 * than they are unwound, stop (this sample is consumed) and let the
	 * drains, mmap events and exits be handled.  The ring then fills and
	 * its drops are counted. */
	if (r->deadline && monotonic_ns() >= r->deadline) {
		r->out_of_time = true;
		return -EAGAIN;
	}
	return 0;
}

/* The ring holds what comes in 128 ms (at least 32 samples) per CPU, between
 * reads every 10 ms: 16 MiB on two CPUs at 999 Hz with the default 32 KiB
 * of stack, 4 MiB at 99 Hz.  Each sample takes the room the BPF program
 * reserves for it (the stack size and a page), however little of it its
 * stack fills.  The pages are mapped twice (so that records can wrap),
 * which doubles what the ring adds to prof-sample's RSS. */
static uint32_t ring_size(const struct options *o)
{
	/* Blocks come at no set rate: room for 2000 a second per CPU, which
	 * a busy server's threads reach, where they last over --min-block. */
	double rate = (o->on_cpu ? (o->freq ? o->freq : 1e9 / (double)o->period) : 0) +
		      (o->off_cpu ? 2000 : 0);
	double per_cpu = rate * 0.128 > 32 ? rate * 0.128 : 32;
	double room = PROF_RAW_HEADER + o->stack_size + PROF_PAGE;
	double want = libbpf_num_possible_cpus() * per_cpu * room;
	uint32_t size = 1u << 20;

	while (size < want && size < (1u << 30))
		size <<= 1;
	return size;
}

static void dwarf_configure(struct profile_bpf *skel, const struct options *o)
{
	bpf_program__set_autoload(skel->progs.sample_fp, false);
	bpf_program__set_autoload(skel->progs.sample_dwarf, o->on_cpu);
	bpf_map__set_max_entries(skel->maps.raw_samples, ring_size(o));
	/* A block's stack and its waker's are walked in the kernel, in the
	 * thread's context; the stack copy is for those the tables cannot
	 * take whole (and for Python threads).  Stacks are held, so only the
	 * counts are in the count maps. */
	count_maps_configure(skel, 0, o->off_cpu ? o->count_entries : 0);
	if (o->off_cpu)
		kernel_tables_configure(skel, o->table_rows);
}

static struct bpf_program *dwarf_program(struct profile_bpf *skel)
{
	return bpf_program__autoload(skel->progs.sample_dwarf) ? skel->progs.sample_dwarf : NULL;
}

static void *dwarf_open(const struct source_env *env, const struct options *o)
{
	struct dwarf_source *r = xcalloc(1, sizeof(*r));

	r->rb = ring_buffer__new(bpf_map__fd(env->skel->maps.raw_samples), on_sample, r, NULL);
	if (!r->rb) {
		warn("cannot read the sample ring buffer");
		free(r);
		return NULL;
	}
	r->env = *env;
	r->files = elf_files_new(env->files);
	r->unw = unwinder_new(env->procs, r->files);
	if (o->off_cpu) {
		/* Without them, every block's stack is copied. */
		r->tables = kernel_tables_new(env->skel, env->procs, r->files);
		if (r->tables)
			kernel_tables_sync(r->tables);
		r->maps = count_maps_new(env);
	}
	r->py = python_new(bpf_map__fd(env->skel->maps.py_procs), env->files);
	recorder_python(env->rec, r->py);
	r->counts = htab_new();
	r->held_fd = bpf_map__fd(env->skel->maps.held_stacks);
	r->keep_stack_bytes = o->keep_stack_bytes;
	r->no_python = o->no_python;
	return r;
}

static void dwarf_close(void *state)
{
	struct dwarf_source *r = state;

	if (!r)
		return;
	ring_buffer__free(r->rb);
	count_maps_free(r->maps);
	kernel_tables_free(r->tables);
	unwinder_free(r->unw);
	elf_files_free(r->files);
	recorder_python(r->env.rec, NULL);
	python_free(r->py);
	htab_free(r->counts);
	free(r->vals);
	free(r);
}

/* Consumes for at most budget_ns (0: until the ring is empty). */
static bool consume(struct dwarf_source *r, uint64_t budget_ns)
{
	int n;

	r->deadline = budget_ns ? monotonic_ns() + budget_ns : 0;
	r->out_of_time = false;
	/* Mmap events come before the samples that need them: those of
	 * every sample already in the ring are in the event ring now. */
	if (r->env.catch_up)
		r->env.catch_up(r->env.catch_up_ctx);
	/* Then the processes they told of get their tables. */
	if (r->tables)
		kernel_tables_sync(r->tables);
	n = ring_buffer__consume(r->rb);
	if (n < 0 && !r->out_of_time && n != -EINTR) {
		errno = -n;
		warn("reading the sample ring buffer");
		return false;
	}
	return true;
}

/* Unwinds the samples waiting in the ring, for a bounded time. */
static bool dwarf_poll(void *state)
{
	return consume(state, RAW_BUDGET_NS);
}

static enum drain_result dwarf_drain(void *state, uint64_t time_ns, bool last)
{
	struct dwarf_source *r = state;
	struct htab_entry *e;
	bool emptied;

	/* The last drain comes after sampling stopped: the ring empties. */
	if (!consume(r, last ? 0 : RAW_BUDGET_NS))
		return DRAIN_ERROR;
	emptied = !r->out_of_time;
	e = htab_entries(r->counts);
	for (size_t i = 0; i < htab_count(r->counts); i++) {
		struct agg_key a;
		memcpy(&a, e[i].key, sizeof(a));
		struct taken_sample t = {
			.key = &a.key,
			.kstack = a.kstack,
			.ustack = a.ustack,
			.count = r->vals[e[i].val.u].count,
			.weight = r->vals[e[i].val.u].weight,
			.time_ns = time_ns,
		};
		held_stacks_wakers(r->env.rec, r->held_fd, &t);
		recorder_sample(r->env.rec, &t);
	}
	htab_free(r->counts);
	r->counts = htab_new();
	r->nvals = 0;
	if (r->maps && !count_maps_drain(r->maps, time_ns))
		return DRAIN_ERROR;
	for (int c = 0; c < CAP_LOSS_MAX; c++) {
		recorder_loss(r->env.rec, (enum cap_loss_cause)c, r->truncated[c]);
		r->truncated[c] = 0;
	}
	if (!emptied)
		return DRAIN_PARTIAL;
	unwinder_sweep(r->unw);
	elf_files_sweep(r->files);
	return DRAIN_COMPLETE;
}

static void dwarf_report(const void *state, bool verbose)
{
	const struct dwarf_source *r = state;
	const struct unwinder_stats *st = unwinder_stats(r->unw);
	const struct python_stats *py = python_stats(r->py);
	const struct elf_files_stats *files = elf_files_stats(r->files);

	if (verbose && py->processes)
		warnx("Python: %" PRIu64 " process(es) (3.10: %" PRIu64 ", 3.11: %" PRIu64
		      ", 3.12: %" PRIu64 ", 3.13: %" PRIu64 "), %" PRIu64 " samples with %" PRIu64
		      " Python frames; %" PRIu64 " frames unnamed, %" PRIu64 " positions without a line, %" PRIu64
		      " runs not placed, %" PRIu64 " lists cut, %" PRIu64
		      " samples of threads not running Python",
		      py->processes, py->by_version[PY_310], py->by_version[PY_311],
		      py->by_version[PY_312], py->by_version[PY_313], py->samples, py->frames,
		      py->unnamed, py->no_line, py->unplaced, py->cut, py->no_thread);
	if (verbose && py->unknown_version)
		warnx("Python: %" PRIu64 " interpreter(s) of a version not known here: their Python "
		      "frames are not walked", py->unknown_version);
	if (verbose && r->tables) {
		const struct kernel_tables_stats *kt = kernel_tables_stats(r->tables);
		warnx("unwind tables of blocks and wakers: %" PRIu64 " file(s), %" PRIu64 " rows (%" PRIu64
		      " of a rule left to the frame pointer), %" PRIu64 " process(es); %" PRIu64
		      " file(s) mapped not read (no walk reached them); walked by "
		      "frame pointer: %" PRIu64 " file(s) without CFI that can be used (%" PRIu64
		      " too slow to read), %" PRIu64 " process(es) beyond the table; the rows "
		      "compacted %" PRIu64 " time(s), dropping those of %" PRIu64 " file(s) no longer "
		      "mapped; %" PRIu64 " read(s) that found no room even so",
		      kt->files, kt->rows, kt->rows_unknown, kt->processes, kt->files_unreached,
		      kt->files_without, kt->files_slow, kt->processes_refused, kt->compactions,
		      kt->files_dropped, kt->files_no_room);
	}
	if (verbose && files->refused)
		warnx("%" PRIu64 " file(s) not unwound through: libdw could not be trusted to read "
		      "them in bounded memory (the last: %s)",
		      files->refused, files->last_refused);
	if (verbose && st->fp_in_files)
		warnx("user stacks walked by frame pointer through code without CFI: %" PRIu64
		      " (%" PRIu64 " frames)",
		      st->samples_fp_in_files, st->fp_in_files);
}

const struct source_ops dwarf_source = {
	.name = "dwarf",
	.configure = dwarf_configure,
	.program = dwarf_program,
	.open = dwarf_open,
	.close = dwarf_close,
	/* Often enough to unwind samples as they come. */
	.poll_ms = 10,
	.poll = dwarf_poll,
	.drain = dwarf_drain,
	.report = dwarf_report,
};
