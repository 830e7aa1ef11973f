/*
 * The double-buffered maps the BPF programs count in (bpf/stacks.bpf.h):
 * samples and blocks per (thread, name, stacks), and the stacks of the
 * samples.  Each drain flips the set being filled, then reads and empties
 * the other.  sample_fp counts every sample there; with --unwind=dwarf,
 * blocks whose user stack the kernel walked by the unwind tables are
 * counted there too.
 */
#ifndef PROF_SAMPLE_COUNT_MAPS_H
#define PROF_SAMPLE_COUNT_MAPS_H

#include <stdbool.h>
#include <stdint.h>

struct profile_bpf;
struct source_env;

/* Before the BPF object is loaded: room for stacks and counts (0: the
 * maps are not used, and as small as a map can be). */
void count_maps_configure(struct profile_bpf *skel, uint32_t stacks, uint32_t counts);

struct count_maps *count_maps_new(const struct source_env *env);
void count_maps_free(struct count_maps *cm);

/* Hands the recorder what was counted since the last drain, stamped
 * time_ns; false with a message printed. */
bool count_maps_drain(struct count_maps *cm, uint64_t time_ns);

#endif
