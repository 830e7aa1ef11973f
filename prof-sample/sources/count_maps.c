#include "count_maps.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag.h"
#include "held_stacks.h"
#include "profile.h"
#include "profile.skel.h"
#include "recorder.h"
#include "source.h"

struct count_maps {
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

void count_maps_configure(struct profile_bpf *skel, uint32_t stacks, uint32_t counts)
{
	bpf_map__set_max_entries(skel->maps.stacks0, stacks ? stacks : 1);
	bpf_map__set_max_entries(skel->maps.stacks1, stacks ? stacks : 1);
	bpf_map__set_max_entries(skel->maps.counts0, counts ? counts : 1);
	bpf_map__set_max_entries(skel->maps.counts1, counts ? counts : 1);
}

struct count_maps *count_maps_new(const struct source_env *env)
{
	struct count_maps *cm = xcalloc(1, sizeof(*cm));
	struct profile_bpf *skel = env->skel;

	cm->env = *env;
	cm->held_fd = bpf_map__fd(skel->maps.held_stacks);
	cm->max_stacks = bpf_map__max_entries(skel->maps.stacks0);
	cm->max_counts = bpf_map__max_entries(skel->maps.counts0);
	cm->stack_keys = xcalloc(cm->max_stacks, sizeof(*cm->stack_keys));
	cm->stack_vals = xcalloc(cm->max_stacks, sizeof(*cm->stack_vals));
	cm->count_keys = xcalloc(cm->max_counts, sizeof(*cm->count_keys));
	cm->count_vals = xcalloc(cm->max_counts, sizeof(*cm->count_vals));
	return cm;
}

void count_maps_free(struct count_maps *cm)
{
	if (!cm)
		return;
	free(cm->stack_keys);
	free(cm->stack_vals);
	free(cm->count_keys);
	free(cm->count_vals);
	free(cm);
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

bool count_maps_drain(struct count_maps *cm, uint64_t time_ns)
{
	struct profile_bpf *skel = cm->env.skel;
	struct recorder *rec = cm->env.rec;
	uint32_t set = skel->bss->active;
	int counts_fd = bpf_map__fd(set ? skel->maps.counts1 : skel->maps.counts0);
	int stacks_fd = bpf_map__fd(set ? skel->maps.stacks1 : skel->maps.stacks0);
	long nstacks, ncounts;

	/* Flip, then give programs that read the old value time to finish;
	 * they run for microseconds in interrupt context.  A Ctrl-C must not
	 * cut the wait short: this may be the last drain. */
	__atomic_store_n(&skel->bss->active, set ^ 1, __ATOMIC_SEQ_CST);
	struct timespec wait = { 0, 2000000 };
	while (nanosleep(&wait, &wait) != 0 && errno == EINTR)
		;
	/* The mmap events of every sample in the set left are out by now,
	 * and must be known before its samples are written. */
	if (cm->env.catch_up)
		cm->env.catch_up(cm->env.catch_up_ctx);

	nstacks = take_all(stacks_fd, cm->stack_keys, sizeof(*cm->stack_keys), cm->stack_vals,
			   sizeof(*cm->stack_vals), cm->max_stacks);
	ncounts = take_all(counts_fd, cm->count_keys, sizeof(*cm->count_keys), cm->count_vals,
			   sizeof(*cm->count_vals), cm->max_counts);
	if (nstacks < 0 || ncounts < 0) {
		errno = (int)-(nstacks < 0 ? nstacks : ncounts);
		warn("draining the BPF maps");
		return false;
	}
	for (long i = 0; i < nstacks; i++) {
		const struct stack_trace *st = &cm->stack_vals[i];
		recorder_stack(rec, cm->stack_keys[i], (const uint64_t *)st->ip,
			       st->nr < PROF_MAX_STACK ? (uint32_t)st->nr : PROF_MAX_STACK);
	}
	for (long i = 0; i < ncounts; i++) {
		const struct sample_key *k = &cm->count_keys[i];
		bool held = k->kind == PROF_OFF_CPU;
		/* A clock sample's kernel stack is held when it was taken at a
		 * switch (a tick charged where its task was switched out); it
		 * is in the drained map otherwise, and written by now. */
		struct taken_sample t = {
			.key = k,
			.kstack = held_stack_id(rec, cm->held_fd, k->kstack, CAP_LOSS_KSTACK),
			.ustack = held ? held_stack_id(rec, cm->held_fd, k->ustack, CAP_LOSS_USTACK)
				       : recorder_stack_id(rec, k->ustack),
			.count = cm->count_vals[i].count,
			.weight = cm->count_vals[i].weight,
			.time_ns = time_ns,
		};
		held_stacks_wakers(rec, cm->held_fd, &t);
		recorder_sample(rec, &t);
	}
	return true;
}
