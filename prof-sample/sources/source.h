/*
 * A sample source: one way of sampling, made of the BPF program that takes
 * the samples and the code that turns what that program leaves (maps, a
 * ring buffer) into stacks and samples for the recorder.  main() picks one
 * by the options; the session drives it through this interface and knows
 * nothing else of it.
 *
 * A new source adds its BPF program to bpf/profile.bpf.c, a file here
 * defining its struct source_ops, and a line in source_for().
 */
#ifndef PROF_SAMPLE_SOURCE_H
#define PROF_SAMPLE_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

struct bpf_program;
struct mapped_files;
struct options;
struct processes;
struct profile_bpf;
struct recorder;

/* What a source works with once the BPF object is loaded. */
struct source_env {
	struct profile_bpf *skel;
	struct recorder *rec;
	struct processes *procs;
	struct mapped_files *files;
	/* Reads the process events (mmaps, forks, exits) pending: those of
	 * every sample taken so far are there by then.  NULL: none come. */
	void (*catch_up)(void *ctx);
	void *catch_up_ctx;
	/* CLOCK_MONOTONIC at the start of the capture file being written
	 * (the session moves it on at each --rotate). */
	const uint64_t *start_ns;
};

enum drain_result {
	DRAIN_ERROR,	/* a message was printed */
	DRAIN_PARTIAL,	/* samples of exited processes may still be behind */
	DRAIN_COMPLETE, /* every sample taken so far was handed over */
};

struct source_ops {
	const char *name;
	/* Before the BPF object is loaded: keeps only its own program to
	 * load, and sizes its maps (those it does not use to nothing). */
	void (*configure)(struct profile_bpf *skel, const struct options *o);
	/* The program the sampling clock runs. */
	struct bpf_program *(*program)(struct profile_bpf *skel);
	/* After loading: its state, or NULL with a message printed. */
	void *(*open)(const struct source_env *env, const struct options *o);
	void (*close)(void *state);
	/* How long the session may wait between two polls, in ms. */
	int poll_ms;
	/* Handles samples as they come, for a bounded time (NULL: the
	 * source has nothing to do between drains).  False on error. */
	bool (*poll)(void *state);
	/* Hands the recorder the samples taken since the last drain,
	 * stamped time_ns; every one of them if last (sampling has
	 * stopped). */
	enum drain_result (*drain)(void *state, uint64_t time_ns, bool last);
	/* What only this source knows of the capture, said at its end
	 * (NULL: nothing). */
	void (*report)(const void *state, bool verbose);
};

extern const struct source_ops fp_source;    /* --unwind=fp */
extern const struct source_ops dwarf_source; /* --unwind=dwarf */

const struct source_ops *source_for(const struct options *o);

#endif
