/*
 * What prof-sample knows of each process: its executable mappings, learnt
 * from mmap events as they happen (so a process that lives milliseconds is
 * still known after it exits) and from /proc for processes that were
 * running before the capture started.  A process's MAP records are written
 * when it is first sampled, and as they change afterwards.
 */
#ifndef PROF_SAMPLE_PROCESSES_H
#define PROF_SAMPLE_PROCESSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "build_id.h"
#include "build_id_cache.h"
#include "capture.h"
#include "htab.h"
#include "mapped_files.h"

struct mapping {
	uint64_t start, end, pgoff, dev, inode;
	uint8_t build_id_len;
	uint8_t build_id[BUILD_ID_MAX];
	char *path;
};

struct processes {
	struct cap_writer *w;
	uint64_t generations; /* mapping-set versions handed out so far */
	struct mapped_files *files;
	struct build_id_cache *cache; /* NULL: none */
	struct htab *byid;	      /* pid -> struct process */
};

void processes_init(struct processes *ps, struct cap_writer *w, struct mapped_files *files);
void processes_free(struct processes *ps);

/* An executable mapping appeared (m->path is copied). */
void processes_mmap(struct processes *ps, uint32_t pid, const struct mapping *m);

/* A new process inherits its parent's mappings. */
void processes_fork(struct processes *ps, uint32_t ppid, uint32_t pid);

/* The process exited during drain interval `interval`. */
void processes_exit(struct processes *ps, uint32_t pid, uint64_t interval);

/* Called for every sampled pid before its samples are written: the first
 * time, writes every mapping known, reading /proc for processes that
 * predate the capture.  Returns false if nothing at all is known. */
bool processes_sampled(struct processes *ps, uint32_t pid);

/* Writes the JSYM records of pid's perf map added since the last call
 * (at most once per drain interval). */
void processes_perf_map(struct processes *ps, uint32_t pid, uint64_t interval);

/* Reads the mappings of a process running, or of all, from /proc: called
 * before prof-sample gives up the privilege to read other users' (the
 * mmap events tell of every process started after).  Their build-ids are
 * read when a process is first sampled, without privilege. */
void processes_snapshot(struct processes *ps, uint32_t pid);
void processes_snapshot_all(struct processes *ps);

/* Forgets processes that exited before interval `interval` was drained:
 * any sample of theirs has been written by now.  A PID recycled within one
 * interval keeps the old process's mappings before its own, which it
 * overrides where they overlap. */
void processes_reap(struct processes *ps, uint64_t interval);

/* The mappings known for pid, or NULL; *generation changes whenever they
 * do, and is the same only for the same mappings: those a parent's
 * children inherited and did not change, or one process's between two
 * changes (two processes that had the same PID differ). */
const struct mapping *processes_maps(struct processes *ps, uint32_t pid, size_t *n,
				     uint64_t *generation);

#endif
