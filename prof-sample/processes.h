/*
 * What prof-sample knows of each process: its executable mappings, learnt
 * from mmap events as they happen (so a process that lives milliseconds is
 * still known after it exits) and from /proc for processes that were
 * running before the capture started.  A process's mappings are reported
 * (struct process_news) when it is first sampled, and as they change
 * afterwards; its perf map's symbols as they are added.
 */
#ifndef PROF_SAMPLE_PROCESSES_H
#define PROF_SAMPLE_PROCESSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "build_id.h"
#include "build_id_cache.h"
#include "cgroup_trust.h"
#include "htab.h"
#include "mapped_files.h"
#include "mapping.h"


/* Where what the table learns of a sampled process goes (the capture). */
struct process_news {
	void *ctx;
	void (*map)(void *ctx, uint32_t pid, const struct mapping *m);
	/* pid has its parent's mappings, reported before. */
	void (*fork)(void *ctx, uint32_t pid, uint32_t ppid);
	/* A symbol of pid's perf map (name is not NUL-terminated). */
	void (*jit_symbol)(void *ctx, uint32_t pid, uint64_t start, uint64_t size,
			   const char *name, size_t len);
	/* pid's cgroup v2 path (not NUL-terminated), of which the first
	 * trusted names the host's cgroup manager made. */
	void (*cgroup)(void *ctx, uint32_t pid, const char *path, size_t len, uint16_t trusted);
};

struct processes {
	const struct process_news *news;
	uint64_t generations; /* mapping-set versions handed out so far */
	struct mapped_files *files;
	struct build_id_cache *cache; /* NULL: none */
	struct cgroup_trust *cgroups; /* NULL: no cgroup's name is trusted */
	struct htab *byid;	      /* pid -> struct process */
	uint64_t interval;	      /* drain intervals ended so far */
	int tmp_dir;		      /* /tmp, where perf maps are, or -1 */
	uint64_t tmp_mount;	      /* its mount: a perf map must be on it */
	uint64_t file;		      /* capture files finished so far (--rotate) */
};

void processes_init(struct processes *ps, const struct process_news *news,
		    struct mapped_files *files);
void processes_free(struct processes *ps);

/* An executable mapping appeared (m->path is copied). */
void processes_mmap(struct processes *ps, uint32_t pid, const struct mapping *m);

/* A new process inherits its parent's mappings. */
void processes_fork(struct processes *ps, uint32_t ppid, uint32_t pid);

/* The process exited during the current drain interval. */
void processes_exit(struct processes *ps, uint32_t pid);

/* Called for every sampled pid before its samples are written: the first
 * time, reports every mapping known, reading /proc for processes that
 * predate the capture.  Returns false if nothing at all is known. */
bool processes_sampled(struct processes *ps, uint32_t pid);

/* Reports pid's cgroup once per capture file, before its first sample
 * there: read when prof-sample first met the process, or now, and which
 * of its names the host made checked then. */
void processes_cgroup(struct processes *ps, uint32_t pid);

/* Reports the symbols of pid's perf map added since the last call (at
 * most once per drain interval). */
void processes_perf_map(struct processes *ps, uint32_t pid);

/* Reads the mappings of a process running, or of all, from /proc: called
 * before prof-sample gives up the privilege to read other users' (the
 * mmap events tell of every process started after).  Their build-ids are
 * read when a process is first sampled, without privilege. */
void processes_snapshot(struct processes *ps, uint32_t pid);
void processes_snapshot_all(struct processes *ps);

/* A drain interval ended: its samples have been written. */
void processes_next_interval(struct processes *ps);

/* Forgets processes that exited before the last interval ended: any
 * sample of theirs has been written by now.  A PID recycled within one
 * interval keeps the old process's mappings before its own, which it
 * overrides where they overlap. */
void processes_reap(struct processes *ps);

/* A capture file was finished and the next begun (--rotate): everything
 * is reported again, as to a new reader, and processes that have gone
 * without a sample in the file finished are forgotten (their exit may
 * have been among the events lost). */
void processes_next_file(struct processes *ps);

/* The mappings known for pid, or NULL; *generation changes whenever they
 * do, and is the same only for the same mappings: those a parent's
 * children inherited and did not change, or one process's between two
 * changes (two processes that had the same PID differ). */
const struct mapping *processes_maps(struct processes *ps, uint32_t pid, size_t *n,
				     uint64_t *generation);

/* Calls fn with every pid the table knows, exited or not. */
void processes_each(struct processes *ps, void (*fn)(void *arg, uint32_t pid), void *arg);

#endif
