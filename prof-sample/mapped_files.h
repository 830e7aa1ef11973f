/*
 * The files that sampled processes map, each opened once per capture and
 * known by its identity: inode (the kernel's) and build-id.
 *
 * A file is opened through the file opener (opener.c) while a process maps
 * it, which reaches it wherever it is; failing that (the mapping is gone,
 * or there is no opener), by its path, and only once prof-sample has no
 * privilege left: a path is whatever the process's owner made it.  Either way it is
 * used only if it is the file that was mapped: same inode where /proc told
 * it, same build-id where the kernel read one.  A file found by path that
 * cannot be checked either way is not used.
 *
 * A file is let go of once nobody has asked for it for 30 drains: a
 * descriptor held on the file of a process long gone would keep its space
 * on disk after it is deleted, and its file system mounted (a container's,
 * after the container has gone).  A file asked for again is opened again,
 * through a process that maps it.  Not sooner: a process that lives less
 * than the events' latency (10 ms, 100 with --unwind=fp) may be gone
 * before its mmap event is read, and its file then has no other way in
 * when only the process could reach it (a private directory, a
 * container's); a health check run every few seconds must find the file
 * its last run opened.
 */
#ifndef PROF_SAMPLE_MAPPED_FILES_H
#define PROF_SAMPLE_MAPPED_FILES_H

#include <stdbool.h>
#include <stdint.h>

#include "build_id.h"
#include "htab.h"
#include "opener.h"

struct mapping;

struct mapped_file {
	int fd; /* kept open (within the budget), or -1 */
	bool opened; /* identity below read from the file itself */
	uint64_t dev, ino;
	uint8_t build_id_len;
	uint8_t build_id[BUILD_ID_MAX];
	uint32_t failed_pid; /* the last process it could not be opened for, */
	uint64_t failed_ns;  /* and when (CLOCK_MONOTONIC): tried again later */
	bool stored;	     /* offered to the build-id cache */
	uint64_t used;	     /* the sweeps done when it was last asked for */
};

struct mapped_files {
	struct opener *opener; /* NULL: by path only */
	bool by_path;	       /* set once prof-sample holds no privilege */
	struct htab *byid;     /* "b" + build-id, "i" + dev:inode -> struct mapped_file */
	struct mapped_file **all;
	size_t n, cap;
	size_t open_fds, max_fds;
	uint64_t sweeps;
	uint64_t opened_privileged, opened_by_path, mismatched, unreadable, released; /* for -v */
};

void mapped_files_init(struct mapped_files *mf, struct opener *opener);
void mapped_files_free(struct mapped_files *mf);

/* The file m maps in process pid: a new descriptor (the caller closes it)
 * and, in *file if given, what is known of it; -1 if it cannot be opened
 * as the mapped file.  A failure is remembered for that process, and not
 * tried again for it within 50 ms. */
int mapped_files_open(struct mapped_files *mf, uint32_t pid, const struct mapping *m,
		      struct mapped_file **file);

/* Fills in m's build-id from its file, if m has none yet. */
void mapped_files_identify(struct mapped_files *mf, uint32_t pid, struct mapping *m);

/* Opens m's file now, while pid surely maps it, so that it is there when
 * the process has gone: unless it was opened before. */
void mapped_files_prefetch(struct mapped_files *mf, uint32_t pid, const struct mapping *m);

/* Counts m's file as asked for now, if it is known. */
void mapped_files_touch(struct mapped_files *mf, const struct mapping *m);

/* Closes and forgets the files not asked for since MAPPED_FILES_IDLE sweeps
 * ago.  Called after each complete drain, once the samples of the
 * processes that have gone are all written. */
#define MAPPED_FILES_IDLE 30
void mapped_files_sweep(struct mapped_files *mf);

#endif
