/*
 * Draining the BPF maps into the capture: each interval, the idle map set's
 * counts become SAMPLE records, its stacks STACK records (each distinct
 * stack once per capture), preceded by the COMM, MAP and KSYM records the
 * samples need, and the loss counters' increases become LOSS records.
 */
#ifndef PROF_SAMPLE_DRAIN_H
#define PROF_SAMPLE_DRAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "htab.h"
#include "kallsyms.h"
#include "processes.h"

struct profile_bpf;
struct raw_samples;
struct sample_key;
struct stack_trace;

struct drain_stats {
	uint64_t seen;	  /* samples the BPF program took */
	uint64_t samples; /* samples written */
	uint64_t lost[CAP_LOSS_MAX];
	uint32_t stacks; /* distinct stacks written */
};

struct drainer {
	struct profile_bpf *skel;
	struct cap_writer *w;
	struct kallsyms *ksyms; /* NULL when kernel symbols are unavailable */
	struct processes *procs;
	const uint64_t *sideband_lost;
	/* Called between the flip and the read: mmap events of every sample
	 * in the drained set have been emitted by then, and must be known
	 * before its samples are written. */
	void (*catch_up)(void *ctx);
	void *catch_up_ctx;
	struct raw_samples *raw; /* --unwind=dwarf samples, or NULL */
	bool verbose;
	bool last; /* sampling has stopped: this drain empties everything */
	uint64_t start_ns;    /* CLOCK_MONOTONIC at capture start */
	uint64_t interval;    /* drains done so far */
	struct htab *stacks;  /* stack hash -> capture stack id */
	struct htab *threads; /* tid -> last comm written */
	uint64_t counters[8]; /* BPF counters already accounted for */
	uint64_t sideband_reported;
	/* Buffers for one batch read of each map, sized by max_entries. */
	uint64_t *stack_keys;
	struct stack_trace *stack_vals;
	struct sample_key *count_keys;
	uint64_t *count_vals;
	uint32_t max_stacks, max_counts;
	struct drain_stats stats;
};

void drainer_init(struct drainer *d, struct profile_bpf *skel, struct cap_writer *w,
		  struct kallsyms *ksyms, struct processes *procs, uint64_t start_ns);
void drainer_free(struct drainer *d);

/* Switches the BPF program to the other map set, then moves everything in
 * the set it left into the capture.  Returns false on a BPF map error. */
bool drain(struct drainer *d);

uint64_t monotonic_ns(void);

/* For the samples that come other ways than the BPF maps: */

/* The capture id of the stack stored under key (prof_stack_key()), its
 * STACK record written the first time. */
uint32_t drain_stack(struct drainer *d, uint64_t key, const uint64_t *ips, uint32_t nr);

/* Makes sure pid's mappings are in the capture before a sample of its;
 * false (counted as a loss) if none could be known. */
bool drain_process(struct drainer *d, uint32_t pid, const char *comm);

/* Writes the SAMPLE record of count samples of key, whose stacks have the
 * capture ids kstack and ustack (0 for none). */
void drain_sample(struct drainer *d, const struct sample_key *key, uint32_t kstack,
		  uint32_t ustack, uint64_t count, uint64_t now);

void drain_loss(struct drainer *d, enum cap_loss_cause cause, uint64_t n);

#endif
