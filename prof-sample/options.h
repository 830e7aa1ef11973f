/*
 * prof-sample's command line.
 */
#ifndef PROF_SAMPLE_OPTIONS_H
#define PROF_SAMPLE_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "targets.h"

struct options {
	uint32_t freq;
	uint64_t period;
	double duration, interval;
	const char *output;
	bool idle, quiet;
	int verbose; /* -v: a summary; -vv: libbpf's messages too */
	bool user, kernel; /* sample user mode, kernel mode */
	uint32_t stack_entries, count_entries;
	bool dwarf;	       /* --unwind=dwarf */
	uint32_t stack_size;   /* user stack bytes copied per sample in dwarf mode */
	uint32_t table_rows;   /* --unwind-table-rows: off-CPU, dwarf */
	bool keep_stack_bytes; /* write them to the capture too */
	bool no_python;	       /* --no-python: CPython processes are not marked */
	bool build_id_cache;	  /* false with --no-build-id-cache */
	const char *build_id_dir; /* --build-id-dir, or NULL: the default */
	uint64_t build_id_cache_size;
	/* --build-id-cache-list, --build-id-cache-prune: tend the cache and
	 * exit, sampling nothing. */
	bool cache_list, cache_prune;
	struct targets targets;
	char **command; /* after "--", or NULL */
	bool all;	/* -a: every process, even with a command */
	/* What is recorded: on-CPU samples, off-CPU time, or both (--wall). */
	bool on_cpu, off_cpu;
	uint64_t min_block_ns, max_block_ns; /* 0: no maximum */
	uint64_t time_resolution_ns;	     /* samples' slots */
	uint32_t states;		     /* CAP_STATE_* */
	uint32_t wakeup_depth;		     /* 0 without --wakeups */
	uint32_t rotate;		     /* --rotate SECS, or 0 */
	uint32_t keep;			     /* --keep N, or 0: every file */
};

/* Parses argv; exits 0 for --help/--version, EXIT_USAGE on errors. */
void options_parse(int argc, char **argv, struct options *o);

#endif
