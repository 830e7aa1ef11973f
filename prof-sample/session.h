/*
 * One capture's run, from the loaded BPF program to the END record: what
 * sampling needs while it runs (kernel symbols, the process table and the
 * process events that feed it, the file opener and the build-id cache, the
 * recorder and the sample source), the drain at each interval, and the
 * totals reported at the end.
 */
#ifndef PROF_SAMPLE_SESSION_H
#define PROF_SAMPLE_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "build_id_cache.h"
#include "cgroup_trust.h"
#include "kallsyms.h"
#include "mapped_files.h"
#include "opener.h"
#include "options.h"
#include "processes.h"
#include "profile.h"
#include "sideband.h"
#include "sink.h"
#include "source.h"

struct profile_bpf;
struct recorder;

struct session {
	const struct options *opt;
	struct profile_bpf *skel;
	const struct source_ops *src;
	void *src_state;
	struct recorder *rec;
	struct kallsyms ksyms;
	struct opener opener;
	struct build_id_cache cache;
	struct cgroup_trust cgroups;
	bool have_cache, have_sideband, show_progress;
	struct mapped_files files;
	struct processes procs;
	struct sideband sb;
	struct sink *out;	/* where the capture goes */
	int ncpus;
	uint64_t start_ns, next_drain_ns, deadline_ns, next_sweep_ns;
	uint64_t file_start_ns, next_rotation_ns; /* of the file being written */
	uint64_t counters[PROF_NR_COUNTERS]; /* the BPF program's, already recorded */
	uint64_t sideband_reported;
};

/* Readies the capture with the loaded skel and its source src, to be
 * written in out's file (out's first file is had by session_begin()); with
 * --rotate, in out's next file every period.  False, with a message
 * printed, if it cannot; session_close() is due either way (and does
 * nothing to a session never opened, all zeros). */
bool session_open(struct session *s, struct profile_bpf *skel, const struct source_ops *src,
		  const struct options *o, struct sink *out);
void session_close(struct session *s);

/* The helpers the session's files need, forked while prof-sample may
 * still give them what they keep: the file opener, the keeper of the
 * build-id cache.  Without them the capture goes on (said). */
void session_start_helpers(struct session *s);

/* Once sampling runs on ncpus CPUs: the INFO record in out's first file,
 * then the mappings of the processes running, read while prof-sample may
 * still read anyone's. */
void session_begin(struct session *s, int ncpus);

/* Gives up privilege (privileges.h), then starts what reads files by path
 * without it.  False, with a message, if the drop fails. */
bool session_drop_privileges(struct session *s);

enum step {
	STEP_ON,     /* sampling goes on */
	STEP_DONE,   /* the duration has ended */
	STEP_FAILED, /* the capture could not go on (said) */
};

/* Waits for and handles what comes (samples to unwind, process events),
 * draining at each interval, and going on in a new file after the drain
 * that ends a --rotate period. */
enum step session_step(struct session *s);

/* After sampling has stopped: the last drain and the END record. */
void session_finish(struct session *s);

/* Tells the totals and losses on stderr (an empty capture only if
 * say_empty: not after a command that could not run, which said so);
 * true if samples, stacks or blocks were lost. */
bool session_report(struct session *s, bool say_empty);

#endif
