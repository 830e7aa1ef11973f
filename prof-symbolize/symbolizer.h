/*
 * Turning capture records into symbolized stacks, one record at a time so
 * output starts before the input ends.  The symbolizer resolves; a sink
 * writes what it resolved: the frames of docs/FORMATS.md section 2
 * (frames_text.c) or a pprof profile, section 6 (pprof_sink.c).
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
#include "stack_table.h"

struct symbolize_opts {
	const char *sysroot;	   /* --sysroot: where the capture's files are */
	const char *kallsyms;	   /* --kallsyms: the capture host's kallsyms */
	const char **debug_dirs;   /* --debug-dir, in order, before the default */
	size_t ndebug_dirs;
	bool inline_frames, lines; /* --inline, --lines */
	bool demangle;		   /* false with --no-demangle */
	bool cgroup;		   /* --cgroup: event lines end in the cgroup */
	bool each_sample;	   /* --each-sample: a line per sample, count 1 */
	bool debuginfod;	   /* ask debuginfod when DEBUGINFOD_URLS is set */
	bool bare_unresolved;	   /* pprof: unresolved locations without a function */
};

/* One frame of a resolved stack.  The functions inlined at an address
 * come before the one they were inlined into, innermost first, with the
 * same ip; the frame that is not inlined ends the address's frames. */
struct frame {
	uint64_t ip;	/* as sampled */
	struct resolved r; /* r.name NULL: unresolved */
	enum frame_where {
		FRAME_KERNEL, /* module: the kernel module, "" for the image */
		FRAME_FILE,   /* a mapped file: map, module (its base name, or ""), fileoff */
		FRAME_JIT,    /* a JIT symbol of process pid */
		FRAME_PYTHON, /* a Python function: r.name, r.file, first_line, and r.line
			       * the line it was at (its first if not known) */
		FRAME_NONE,   /* nothing maps ip */
	} where;
	const char *module;
	const struct cap_map *map;
	uint64_t fileoff; /* of ip in the file */
	uint32_t pid;
	int32_t first_line; /* FRAME_PYTHON */
};

struct symbolizer;

/* What receives the symbolizer's results. */
struct sink {
	/* The first INFO, info, fixed the unit of the counts, s->unit. */
	void (*unit)(struct sink *k, struct symbolizer *s, const struct cap_info *info);
	/* A SAMPLE, of `count` in that unit; the sink asks for its stacks
	 * with symbolizer_frames. */
	void (*sample)(struct sink *k, struct symbolizer *s, const struct cap_sample *smp,
		       uint64_t count);
	/* The capture ended (or broke off): what was read is complete. */
	void (*finish)(struct sink *k, struct symbolizer *s);
	void (*free)(struct sink *k);
	/* Frees what a slot (symbolizer_slot) holds; NULL: nothing to. */
	void (*free_slot)(void *slot);
};

struct symbolizer {
	struct sink *sink;
	struct symbolize_opts opt;
	const char **debug_dirs; /* opt's, then the default one */
	char *sysroot_debug;
	char cache_dir[4096]; /* the build-id cache's default place */
	struct frame *fr; /* the frames symbolizer_frames returns */
	size_t fr_cap;
	struct kernel_syms ksyms;
	struct kernel_syms kallsyms; /* fallback for addresses no KSYM covers */
	int kallsyms_state;	     /* 0 not tried, 1 loaded, -1 unavailable */
	bool live;		     /* the capture's boot id is this host's */
	struct file_reader *reader;  /* opens every file named by a path */
	struct modules modules;
	struct stack_table stacks;
	struct htab *threads; /* tid -> comm */
	struct htab *procs;   /* pid -> struct proc */
	struct htab *pysyms;  /* Python function id -> struct pysym */
	struct proc *last_proc; /* of last_pid: records come in runs of one process */
	uint32_t last_pid;
	uint64_t comms; /* COMM records so far: a thread's name may have changed */
	struct htab *cgroups; /* pid -> its cgroup (path, names trusted) */
	/* (pid, generation, stack id) -> the sink's, malloc'd: the slots
	 * stacks' entries do not hold (a second process or generation). */
	struct htab *cache;
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
	/* STACK records deeper than CAP_MAX_FRAMES, and their frames the
	 * reader left out past it. */
	uint64_t stacks_cut, frames_cut;
	uint64_t last_time; /* time_ns of the last SAMPLE, to flush per interval */
	uint64_t lost[CAP_LOSS_MAX];
};

/* Returns false (with a message printed) if opt->kallsyms is unreadable.
 * The caller then sets s->sink, before the first record. */
bool symbolizer_init(struct symbolizer *s, const struct symbolize_opts *opt);
void symbolizer_free(struct symbolizer *s);

/* Handles one record; SAMPLE records produce output. */
void symbolizer_record(struct symbolizer *s, const struct cap_record *rec);

/* Has the sink write what it still holds (totals, losses, a profile). */
void symbolizer_finish(struct symbolizer *s);

/* The sink's cache slot for stack `id` (not 0) of process pid (kernel: of
 * the kernel) as the process's mappings and JIT symbols are now, for what
 * it made of the stack (freed with the sink's free_slot); *first tells
 * whether this is the first time it is asked for, when the slot holds
 * NULL.  The slot is valid until the next call or record. */
void **symbolizer_slot(struct symbolizer *s, uint32_t pid, uint32_t id, bool kernel, bool *first);

/* The frames of that stack, leaf first, kernel ones as they are and user
 * ones resolved in pid's mappings, in an array valid until the next call;
 * the number of frames in *n.  first (as symbolizer_slot said) counts them
 * in the totals and reports an undefined stack. */
const struct frame *symbolizer_frames(struct symbolizer *s, uint32_t pid, uint32_t id, bool kernel,
				      bool first, size_t *n);

/* The thread's name (NULL: no COMM record gave one) and the process's
 * cgroup (NULL: no CGROUP record gave one), with in *trusted (unless
 * NULL) how many of its names the sampled host made (CAP_CGROUP_ALL:
 * the capture did not say). */
const char *symbolizer_comm(struct symbolizer *s, uint32_t tid);
const char *symbolizer_cgroup(struct symbolizer *s, uint32_t pid, uint32_t *trusted);

#endif
