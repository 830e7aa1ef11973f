/*
 * The capture's one writer.  Sample sources hand it stacks and samples; it
 * asks the process table what their processes have mapped.  It decides
 * what the capture says and when, and alone keeps what the file being
 * written has said: each distinct stack once, a thread's name when it
 * changes, the kernel symbols a stack needs, a process's mappings (as they
 * grow), cgroup and perf-map symbols before the samples that need them,
 * losses as they are counted, and the totals at the end.
 */
#ifndef PROF_SAMPLE_RECORDER_H
#define PROF_SAMPLE_RECORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "capture.h"
#include "kallsyms.h"
#include "processes.h"
#include "profile.h"

struct recorder;

struct recorder_stats {
	uint64_t taken;	  /* samples (and blocks) the BPF program took */
	uint64_t samples; /* samples (and blocks) written */
	uint64_t blocks;  /* off-CPU blocks written */
	uint64_t weight;  /* their nanoseconds */
	uint64_t lost[CAP_LOSS_MAX];
	uint32_t stacks; /* distinct stacks written */
};

/* A recorder that writes nothing until recorder_next_file() gives it its
 * first file.  ksyms may be NULL (kernel frames then stay addresses).  The
 * process table is consulted for each sampled process. */
struct recorder *recorder_new(struct kallsyms *ksyms, struct processes *procs, bool verbose);
void recorder_free(struct recorder *r);

struct build_id_cache;
/* The files whose mappings the capture names are offered to cache from
 * now on (NULL: none). */
void recorder_keep_files(struct recorder *r, struct build_id_cache *cache);

void recorder_info(struct recorder *r, const struct cap_info *info, uint64_t clock_start_ns);

/* The capture id of the stack stored under key (prof_stack_key()), its
 * STACK record (and its kernel frames' KSYM records) written the first
 * time. */
uint32_t recorder_stack(struct recorder *r, uint64_t key, const uint64_t *ips, uint32_t nr);

/* recorder_stack() for a stack taken in a scheduler's tracepoint and held
 * (held_stacks.h): a kernel stack's first frames, the tracepoint's
 * dispatch to the BPF program, are no part of what blocked and are left
 * out. */
uint32_t recorder_held_stack(struct recorder *r, uint64_t key, const uint64_t *ips, uint32_t nr);

/* The capture id of a stack already written, or 0. */
uint32_t recorder_stack_id(const struct recorder *r, uint64_t key);

/* Makes sure pid's mappings known so far are in the capture before a
 * sample of its; false (counted as a loss) if none could be known. */
bool recorder_process(struct recorder *r, uint32_t pid, const char *comm);

/* Samples (or blocks) of one key as a source hands them over: with the
 * capture ids of the stacks the key names by hash (0: none). */
struct taken_sample {
	const struct sample_key *key;
	uint32_t kstack, ustack;
	uint32_t waker_kstack[PROF_MAX_WAKERS], waker_ustack[PROF_MAX_WAKERS];
	uint64_t count;	 /* samples or blocks */
	uint64_t weight; /* off-CPU: their nanoseconds */
	uint64_t time_ns;
};

/* Writes a SAMPLE with what it needs first: its process's cgroup, the
 * names of its thread and wakers, their processes' mappings and new
 * perf-map symbols. */
void recorder_sample(struct recorder *r, const struct taken_sample *s);

/* The stack bytes and registers a sample was unwound from
 * (--keep-stack-bytes). */
void recorder_rawstack(struct recorder *r, const struct cap_rawstack *raw, const uint64_t *regs);

struct python;
/* Where the Python functions of user stacks are named (python.h). */
void recorder_python(struct recorder *r, const struct python *py);

void recorder_loss(struct recorder *r, enum cap_loss_cause cause, uint64_t n);

/* The BPF program's running total of samples taken. */
void recorder_taken(struct recorder *r, uint64_t taken);

/* Pushes what was written to the output; false, with a message, once its
 * reader has gone or the disk is full. */
bool recorder_flush(struct recorder *r);

/* Writes the END record. */
void recorder_end(struct recorder *r, uint64_t duration_ns);

/* The totals of the file being written; of the whole run in *run. */
const struct recorder_stats *recorder_stats(const struct recorder *r);
void recorder_run_stats(const struct recorder *r, struct recorder_stats *run);

/* The capture the records go to from now on, named out_path in messages
 * (NULL or "-": stdout): the first, or once the END record is written
 * (--rotate) the next, where nothing was said yet, so that everything is
 * said again as the samples need it.  The caller gives it its INFO. */
void recorder_next_file(struct recorder *r, FILE *out, const char *out_path);

#endif
