/*
 * Turning capture records into symbolized frames (docs/FORMATS.md section 2),
 * one record at a time so output starts before the input ends.
 */
#ifndef PROF_SYMBOLIZE_SYMBOLIZER_H
#define PROF_SYMBOLIZE_SYMBOLIZER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "capture.h"
#include "count_unit.h"
#include "htab.h"
#include "kernel_syms.h"
#include "modules.h"

struct symbolize_opts {
	const char *sysroot;	   /* --sysroot: where the capture's files are */
	const char *kallsyms;	   /* --kallsyms: the capture host's kallsyms */
	const char **debug_dirs;   /* --debug-dir, in order, before the default */
	size_t ndebug_dirs;
	bool inline_frames, lines; /* --inline, --lines */
	bool demangle;		   /* false with --no-demangle */
	bool debuginfod;	   /* ask debuginfod when DEBUGINFOD_URLS is set */
};

struct symbolizer {
	FILE *out;
	struct symbolize_opts opt;
	const char **debug_dirs; /* opt's, then the default one */
	char *sysroot_debug;
	char cache_dir[4096]; /* the build-id cache's default place */
	char *scratch; /* reused while formatting a stack */
	size_t scratch_cap;
	struct kernel_syms ksyms;
	struct kernel_syms kallsyms; /* fallback for addresses no KSYM covers */
	int kallsyms_state;	     /* 0 not tried, 1 loaded, -1 unavailable */
	bool live;		     /* the capture's boot id is this host's */
	struct modules modules;
	bool counting;		     /* formatting a stack the first time: count */
	struct htab *stacks;  /* stack id -> struct stack */
	struct htab *threads; /* tid -> comm */
	struct htab *procs;   /* pid -> struct proc */
	struct htab *text;    /* (pid, generation, stack id) -> formatted frames */
	struct count_unit unit; /* of the event lines' counts */
	bool unit_fixed;	/* by the first INFO or SAMPLE */
	bool have_info, have_end;
	uint64_t start_ns; /* the capture's start (INFO), ns since the epoch */
	struct cap_end end;
	uint64_t samples, frames, unresolved;
	uint64_t blocks, blocked_ns; /* of the off-CPU samples written */
	/* SAMPLE records whose count could not be written as it is
	 * (enum count_status), for the diagnostics. */
	uint64_t saturated, no_period, off_cpu_unexpected;
	uint64_t rawstacks, rawstack_bytes; /* RAWSTACK records, kept for offline unwinding */
	uint64_t last_time; /* time_ns of the last SAMPLE, to flush per interval */
	uint64_t lost[CAP_LOSS_MAX];
};

/* Returns false (with a message printed) if opt->kallsyms is unreadable. */
bool symbolizer_init(struct symbolizer *s, FILE *out, const struct symbolize_opts *opt);
void symbolizer_free(struct symbolizer *s);

/* Handles one record; SAMPLE records produce output. */
void symbolizer_record(struct symbolizer *s, const struct cap_record *rec);

/* Writes the closing comment lines (totals, losses). */
void symbolizer_finish(struct symbolizer *s);

#endif
