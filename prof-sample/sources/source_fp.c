/*
 * --unwind=fp: the kernel walks both stacks by frame pointers and the BPF
 * programs (sample_fp, and offcpu_switch for blocks) count samples per
 * (thread, name, stacks) in the count maps (count_maps.h).
 */
#include "source.h"

#include <bpf/libbpf.h>
#include <stdlib.h>

#include "count_maps.h"
#include "diag.h"
#include "options.h"
#include "profile.skel.h"

struct fp_source {
	struct count_maps *maps;
};

static void fp_configure(struct profile_bpf *skel, const struct options *o)
{
	bpf_program__set_autoload(skel->progs.sample_dwarf, false);
	bpf_program__set_autoload(skel->progs.sample_fp, o->on_cpu);
	count_maps_configure(skel, o->stack_entries, o->count_entries);
	/* The ring stays at its one-page minimum. */
}

static struct bpf_program *fp_program(struct profile_bpf *skel)
{
	return bpf_program__autoload(skel->progs.sample_fp) ? skel->progs.sample_fp : NULL;
}

static void *fp_open(const struct source_env *env, const struct options *o)
{
	struct fp_source *s = xcalloc(1, sizeof(*s));

	(void)o;
	s->maps = count_maps_new(env);
	return s;
}

static void fp_close(void *state)
{
	struct fp_source *s = state;

	if (!s)
		return;
	count_maps_free(s->maps);
	free(s);
}

static enum drain_result fp_drain(void *state, uint64_t time_ns, bool last)
{
	struct fp_source *s = state;

	(void)last; /* each drain empties the set it leaves */
	return count_maps_drain(s->maps, time_ns) ? DRAIN_COMPLETE : DRAIN_ERROR;
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
