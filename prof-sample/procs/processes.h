/*
 * What prof-sample knows of each process: its executable mappings, learnt
 * from mmap events as they happen (so a process that lives milliseconds is
 * still known after it exits) and from /proc for processes that were
 * running before the capture started; its cgroup and its perf map.  Only
 * what is true of the processes: what a capture file has said of them is
 * the recorder's, which asks here.
 */
#ifndef PROF_SAMPLE_PROCESSES_H
#define PROF_SAMPLE_PROCESSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "build_id.h"
#include "cgroup_trust.h"
#include "htab.h"
#include "mapped_files.h"
#include "mapping.h"
#include "perf_map.h"


struct processes {
	uint64_t generations; /* mapping-set versions handed out so far */
	struct mapped_files *files;
	struct cgroup_trust *cgroups; /* NULL: no cgroup's name is trusted */
	struct htab *byid;	      /* pid -> struct process */
	uint64_t interval;	      /* drain intervals ended so far */
	int tmp_dir;		      /* /tmp, where perf maps are, or -1 */
	uint64_t tmp_mount;	      /* its mount: a perf map must be on it */
	uint64_t gone_checked;	      /* interval of processes_forget_gone()'s last call, plus one */
};

void processes_init(struct processes *ps, struct mapped_files *files);
void processes_free(struct processes *ps);

/* An executable mapping appeared (m->path is copied). */
void processes_mmap(struct processes *ps, uint32_t pid, const struct mapping *m);

/* A new process inherits its parent's mappings. */
void processes_fork(struct processes *ps, uint32_t ppid, uint32_t pid);

/* The process exited during the current drain interval. */
void processes_exit(struct processes *ps, uint32_t pid);

/* The record of the process now under pid, made empty if there is none:
 * what the functions below are asked about.  It stays valid until
 * processes_reap() or processes_forget_gone(). */
struct process;
struct process *processes_get(struct processes *ps, uint32_t pid);

/* Called for every sampled process before its samples are written: the
 * first time, readies every mapping known (their build-ids), reading
 * /proc for processes that predate the capture.  Returns false if nothing
 * at all is known. */
bool processes_sampled(struct processes *ps, struct process *p);

/* A sampled process's mappings as a capture tells them: in the order they
 * were learnt, the first ninherited its parent's at the fork.  The list
 * only grows while epoch stays the same (a new process under the pid, or
 * a fork seen after the child's samples, gives another).  parent is the
 * process that forked it while it is still under ppid, with its own list
 * still beginning with the inherited ones (parent_epoch is its epoch),
 * else NULL. */
struct process_listing {
	const struct mapping *maps;
	size_t n, ninherited;
	uint64_t epoch;
	struct process *parent;
	uint32_t ppid;
	uint64_t parent_epoch;
};
void processes_listing(struct processes *ps, struct process *p, struct process_listing *l);

/* A number that only this process has (not 0), for what is kept of it
 * elsewhere: PIDs are reused. */
uint64_t processes_id(const struct process *p);

/* Its cgroup v2 path, read when prof-sample first met the process or now,
 * and how many of its names the host made (checked then); NULL if
 * unknown. */
const char *processes_cgroup(struct processes *ps, struct process *p, uint16_t *trusted);

/* Reads the symbols of its perf map added since *cursor, calling fn with
 * each (name is not NUL-terminated); at most once per drain interval for
 * a cursor, whose last reading *read_in notes. */
void processes_perf_map(struct processes *ps, struct process *p, struct perf_map_cursor *cursor,
			uint64_t *read_in, perf_map_add_fn *fn, void *ctx);

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

/* Forgets the processes that were not there at the last call nor since
 * sampled: their exit may have been among the events lost.  Called far
 * apart (a sample of theirs could still be on its way otherwise). */
void processes_forget_gone(struct processes *ps);

/* The mappings known for pid, or NULL; *generation changes whenever they
 * do, and is the same only for the same mappings: those a parent's
 * children inherited and did not change, or one process's between two
 * changes (two processes that had the same PID differ). */
const struct mapping *processes_maps(struct processes *ps, uint32_t pid, size_t *n,
				     uint64_t *generation);

/* Calls fn with every pid the table knows, exited or not. */
void processes_each(struct processes *ps, void (*fn)(void *arg, uint32_t pid), void *arg);

#endif
