/*
 * --unwind=fp: the kernel walks both stacks by frame pointers and the BPF
 * programs (sample_fp, and offcpu_switch for blocks) count samples per
 * (thread, name, stacks) in one of two map sets.  Each drain flips the
 * set being filled, then reads and empties the other.
 */
#include "source.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag.h"
#include "options.h"
#include "profile.h"
#include "profile.skel.h"
#include "recorder.h"
#include "held_stacks.h"

struct fp_source {
	struct source_env env;
	/* Buffers for one batch read of each map, sized by max_entries;
	 * allocated once, so only the pages a drain fills are touched. */
	uint64_t *stack_keys;
	struct stack_trace *stack_vals;
	struct sample_key *count_keys;
	struct sample_value *count_vals;
	uint32_t max_stacks, max_counts;
	int held_fd;
};

static void fp_configure(struct profile_bpf *skel, const struct options *o)
{
	bpf_program__set_autoload(skel->progs.sample_dwarf, false);
	bpf_program__set_autoload(skel->progs.sample_fp, o->on_cpu);
	bpf_map__set_max_entries(skel->maps.stacks0, o->stack_entries);
	bpf_map__set_max_entries(skel->maps.stacks1, o->stack_entries);
	bpf_map__set_max_entries(skel->maps.counts0, o->count_entries);
	bpf_map__set_max_entries(skel->maps.counts1, o->count_entries);
	/* The ring stays at its one-page minimum. */
}

static struct bpf_program *fp_program(struct profile_bpf *skel)
{
	return bpf_program__autoload(skel->progs.sample_fp) ? skel->progs.sample_fp : NULL;
}

static void *fp_open(const struct source_env *env, const struct options *o)
{
	struct fp_source *s = xcalloc(1, sizeof(*s));
	struct profile_bpf *skel = env->skel;

	(void)o;
	s->env = *env;
	s->held_fd = bpf_map__fd(skel->maps.held_stacks);
	s->max_stacks = bpf_map__max_entries(skel->maps.stacks0);
	s->max_counts = bpf_map__max_entries(skel->maps.counts0);
	s->stack_keys = xcalloc(s->max_stacks, sizeof(*s->stack_keys));
	s->stack_vals = xcalloc(s->max_stacks, sizeof(*s->stack_vals));
	s->count_keys = xcalloc(s->max_counts, sizeof(*s->count_keys));
	s->count_vals = xcalloc(s->max_counts, sizeof(*s->count_vals));
	return s;
}

static void fp_close(void *state)
{
	struct fp_source *s = state;

	if (!s)
		return;
	free(s->stack_keys);
	free(s->stack_vals);
	free(s->count_keys);
	free(s->count_vals);
	free(s);
}

/* Reads and deletes every entry of a map nobody writes to any more.
 * Returns the number of entries, or -errno. */
static long take_all(int fd, void *keys, size_t key_size, void *vals, size_t val_size,
		     uint32_t max)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	/* Batch tokens are opaque; hash maps use a bucket index. */
	uint64_t in[8], out[8];
	uint32_t total = 0;
	bool first = true;

	while (total < max) {
		uint32_t n = max - total;
		int err = bpf_map_lookup_and_delete_batch(fd, first ? NULL : in, out,
							  (char *)keys + total * key_size,
							  (char *)vals + total * val_size, &n, &opts);
		total += n;
		if (err)
			return errno == ENOENT ? (long)total : -errno;
		memcpy(in, out, sizeof(in));
		first = false;
	}
	return total;
}

static enum drain_result fp_drain(void *state, uint64_t time_ns, bool last)
{
	struct fp_source *s = state;
	struct profile_bpf *skel = s->env.skel;
	struct recorder *rec = s->env.rec;
	uint32_t set = skel->bss->active;
	int counts_fd = bpf_map__fd(set ? skel->maps.counts1 : skel->maps.counts0);
	int stacks_fd = bpf_map__fd(set ? skel->maps.stacks1 : skel->maps.stacks0);
	long nstacks, ncounts;

	(void)last; /* each drain empties the set it leaves */
	/* Flip, then give programs that read the old value time to finish;
	 * they run for microseconds in interrupt context.  A Ctrl-C must not
	 * cut the wait short: this may be the last drain. */
	__atomic_store_n(&skel->bss->active, set ^ 1, __ATOMIC_SEQ_CST);
	struct timespec wait = { 0, 2000000 };
	while (nanosleep(&wait, &wait) != 0 && errno == EINTR)
		;
	/* The mmap events of every sample in the set left are out by now,
	 * and must be known before its samples are written. */
	if (s->env.catch_up)
		s->env.catch_up(s->env.catch_up_ctx);

	nstacks = take_all(stacks_fd, s->stack_keys, sizeof(*s->stack_keys), s->stack_vals,
			   sizeof(*s->stack_vals), s->max_stacks);
	ncounts = take_all(counts_fd, s->count_keys, sizeof(*s->count_keys), s->count_vals,
			   sizeof(*s->count_vals), s->max_counts);
	if (nstacks < 0 || ncounts < 0) {
		errno = (int)-(nstacks < 0 ? nstacks : ncounts);
		warn("draining the BPF maps");
		return DRAIN_ERROR;
	}
	for (long i = 0; i < nstacks; i++) {
		const struct stack_trace *st = &s->stack_vals[i];
		recorder_stack(rec, s->stack_keys[i], (const uint64_t *)st->ip,
			       st->nr < PROF_MAX_STACK ? (uint32_t)st->nr : PROF_MAX_STACK);
	}
	for (long i = 0; i < ncounts; i++) {
		const struct sample_key *k = &s->count_keys[i];
		bool held = k->kind == PROF_OFF_CPU;
		/* A clock sample's kernel stack is held when it was taken at a
		 * switch (a tick charged where its task was switched out); it
		 * is in the drained map otherwise, and written by now. */
		struct taken_sample t = {
			.key = k,
			.kstack = held_stack_id(rec, s->held_fd, k->kstack, CAP_LOSS_KSTACK),
			.ustack = held ? held_stack_id(rec, s->held_fd, k->ustack, CAP_LOSS_USTACK)
				       : recorder_stack_id(rec, k->ustack),
			.count = s->count_vals[i].count,
			.weight = s->count_vals[i].weight,
			.time_ns = time_ns,
		};
		held_stacks_wakers(rec, s->held_fd, &t);
		recorder_sample(rec, &t);
	}
	return DRAIN_COMPLETE;
}

const struct source_ops fp_source = {
	.name = "fp",
	.configure = fp_configure,
	.program = fp_program,
	.open = fp_open,
	.close = fp_close,
	.poll_ms = 100,
	.drain = fp_drain,
};
