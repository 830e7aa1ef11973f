/*
 * A pprof profile (github.com/google/pprof, proto/profile.proto) being
 * built and written: its strings, mappings, functions, locations and
 * stacks (runs of locations) each stored once, and its samples summed by
 * stacks and labels.  A sample holds the ids of its stacks, not their
 * locations: many samples share a stack, and a copy each would cost their
 * number times its depth.  Ids are 1-based, in the order things were
 * first added; 0 is "none".
 *
 * It is encoded as protobuf as it is made, and handed on in pieces: each
 * location when it is made, the samples when their tables are full
 * (pprof_make_room) and at the end, the rest at the end (pprof_end).
 * So what it holds is bounded whatever the capture, and it is never held
 * whole: encoded, it is as large as its samples times their depth.
 */
#ifndef PROF_SYMBOLIZE_PPROF_PROFILE_H
#define PROF_SYMBOLIZE_PPROF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "htab.h"
#include "protobuf.h"

/* A sample's labels: pid and tid are numbers, the others string indices
 * (0, the empty string: no such label). */
struct pprof_labels {
	uint64_t pid, tid, comm, cgroup, container_id, systemd_unit, waker, state;
};

struct pprof {
	struct htab *strings;	/* string -> index; entry order is the table's */
	struct htab *mappings;	/* (start, limit, offset, file, build id) -> id */
	struct htab *functions; /* (name, system name, file) -> id */
	struct htab *locations; /* (mapping id, address, (function id, line)...) -> id */
	struct htab *stacks;	/* (location id...) -> id */
	struct htab *samples;	/* (labels, stack ids) -> index in values */
	struct pb out;		/* the encoded profile not yet handed on */
	uint64_t nlocations;	/* location ids given */
	uint64_t stack_ids;	/* location ids the stacks hold */
	uint64_t epoch;		/* times the stacks and samples were written out */
	/* The most it holds (pprof_init sets them): locations, location ids
	 * in stacks, samples. */
	size_t max_locations, max_stack_ids, max_samples;
	struct pprof_mapping {
		uint64_t resolved, unresolved; /* its locations with and without lines */
	} *maps;
	size_t maps_cap;
	uint64_t (*values)[2];
	size_t values_cap;
	uint64_t kernel, kstart, klimit; /* the kernel's mapping, the addresses it spans */
	bool lines, inline_frames;	 /* what the mappings' functions have */
	/* What the caller sets before encoding: two sample types (type and
	 * unit string indices), the default one last; the period's. */
	uint64_t sample_type[2][2], period_type[2];
	uint64_t period, time_nanos, duration_nanos;
	uint64_t comments[16];
	size_t ncomments;
};

/* write receives the profile (not compressed), piece by piece. */
void pprof_init(struct pprof *p, void (*write)(void *ctx, const uint8_t *data, size_t len),
		void *ctx);
void pprof_free(struct pprof *p);

/* The index of a string, "" being 0. */
uint64_t pprof_string(struct pprof *p, const char *s, size_t len);

/* A file's mapping; build_id is the hex string, "" when unknown. */
uint64_t pprof_mapping(struct pprof *p, uint64_t start, uint64_t limit, uint64_t offset,
		       const char *file, const char *build_id);

/* The kernel's one mapping, [kernel.kallsyms], spanning every kernel
 * address seen; ip is one of them. */
uint64_t pprof_kernel_mapping(struct pprof *p, uint64_t ip);

uint64_t pprof_function(struct pprof *p, uint64_t name, uint64_t system_name, uint64_t file);

/* A location: lines holds nlines (function id, line number) pairs,
 * innermost first; none for an address not symbolized. */
uint64_t pprof_location(struct pprof *p, uint64_t mapping, uint64_t address, const uint64_t *lines,
			size_t nlines);

/* An address not symbolized, shown as function (a name such as
 * "[libc.so.6]"): its mapping keeps no HasFunctions, so that pprof
 * symbolizes it again where it can, replacing that name. */
uint64_t pprof_unresolved_location(struct pprof *p, uint64_t mapping, uint64_t address,
				   uint64_t function);

/* A run of location ids, leaf first, stored once however many samples
 * and processes share it: its id (the empty run has one too). */
uint64_t pprof_stack(struct pprof *p, const uint64_t *locs, size_t nlocs);

/* The stacks of a sample, leaf first: its locations are theirs, one after
 * another; 0 is none. */
#define PPROF_SAMPLE_STACKS 3

/* Adds values to the sample of these labels and stacks, summing with
 * saturation. */
void pprof_sample(struct pprof *p, const struct pprof_labels *labels,
		  const uint64_t stacks[PPROF_SAMPLE_STACKS], const uint64_t values[2]);

/* Before a sample's stacks are made: if the stacks and samples are as
 * many as the profile holds, writes the samples out and forgets both,
 * and the stack ids given so far are no longer valid: p->epoch changes. */
void pprof_make_room(struct pprof *p);

/* Writes what is left of the profile: the samples held, the mappings,
 * functions and strings, and the fields that describe it, which the
 * caller sets first. */
void pprof_end(struct pprof *p);

#endif
