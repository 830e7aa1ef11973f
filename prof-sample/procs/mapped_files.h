/*
 * The files that sampled processes map, each opened once per capture and
 * known by its identity: the inode (device and number) of the very file.
 *
 * A file is opened through the file opener (opener.c) while a process maps
 * it, which reaches it wherever it is; failing that (the mapping is gone,
 * or there is no opener), by its path, and only once prof-sample has no
 * privilege left: a path is whatever the process's owner made it.  Either
 * way it is used only if it is the file that was mapped: same inode where
 * /proc told it, same build-id where the kernel read one.  A file found by
 * path that cannot be checked either way is not used.
 *
 * The main process waits on no file system a user may serve: a file on
 * one that is not local (local_fs.h), and every path, is handed to the
 * file reader (file_reader.h), which copies or opens it while sampling
 * goes on; until it has, the file is pending, and its frames are cut
 * short (and counted) as if it had no CFI.
 *
 * A build-id names content, and anyone can give their file any build-id:
 * so files are never shared by build-id across trust.  A mapping is found
 * by its inode; by its build-id only when that is a system file's (owned
 * by root, on a local file system, writable by no one else): taking a
 * system file's CFI and symbols for a user's copy with the same build-id
 * misleads only that user, where the other way round a user could name
 * and unwind root's frames.
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
#include "file_reader.h"
#include "htab.h"
#include "local_fs.h"
#include "opener.h"

struct mapping;

/* Who controls a file's content, as far as prof-sample can tell. */
enum file_trust {
	TRUST_UNKNOWN, /* not read, on a file system that is not local, or
			  writable by others than its owner */
	TRUST_SYSTEM,  /* root's: owned by root, on a local file system, and
			  writable by no other user or group */
	TRUST_USER,    /* its owner's: on a local file system, and not
			  writable by everyone */
};

struct mapped_file {
	int fd;		  /* kept open (within the budget), or -1 */
	bool opened;	  /* identity below read from the file itself */
	bool pending;	  /* with the file reader: asked for, not had yet */
	uint64_t serial;  /* unique in the run: the reader's tag */
	uint64_t dev, ino;
	uint32_t uid, gid, mode;
	struct fs_info fs; /* not on a local file system: fd is a copy */
	uint64_t want_ino; /* what a file opened by path must have, if known */
	bool given_up;	   /* its file system did not answer the reader */
	uint8_t build_id_len;
	uint8_t build_id[BUILD_ID_MAX];
	uint32_t failed_pid; /* the last process it could not be opened for, */
	uint64_t failed_ns;  /* and when (CLOCK_MONOTONIC): tried again later */
	bool stored;	     /* offered to the build-id cache */
	uint64_t used;	     /* the sweeps done when it was last asked for */
};

struct mapped_files {
	struct opener *opener;	    /* NULL: by path only */
	struct file_reader *reader; /* NULL until prof-sample holds no privilege */
	struct htab *byid;	    /* keys: see mapped_files.c */
	struct htab *byserial;	    /* serial -> struct mapped_file, while pending */
	struct mapped_file **all;
	size_t n, cap;
	size_t open_fds, max_fds;
	uint64_t sweeps, serials;
	uint64_t epoch; /* files the reader brought: Dwfls that lacked one rebuild */
	uint64_t opened_privileged, opened_by_path, copied, mismatched, unreadable,
		released; /* for -v */
};

void mapped_files_init(struct mapped_files *mf, struct opener *opener);
void mapped_files_free(struct mapped_files *mf);

/* Once prof-sample holds no privilege: files the opener cannot give are
 * looked for by path, and those not on a local file system copied, by a
 * file reader. */
void mapped_files_start_reader(struct mapped_files *mf);

/* Takes what the file reader has brought; with settle_ms, waits that long
 * at most for the rest (at the end of a capture). */
void mapped_files_poll(struct mapped_files *mf, int settle_ms);

/* The file m maps in process pid: a new descriptor (the caller closes it)
 * and, in *file if given, what is known of it; -1 if it cannot be opened
 * as the mapped file, with errno EINPROGRESS if the file reader has it and
 * it may come later.  A failure is remembered for that process, and not
 * tried again for it within 50 ms. */
int mapped_files_open(struct mapped_files *mf, uint32_t pid, const struct mapping *m,
		      struct mapped_file **file);

/* Opens m's file now, while pid surely maps it, so that it is there when
 * the process has gone, and fills in what m lacks of what it learnt: the
 * build-id, the inode, and who controls the file. */
void mapped_files_identify(struct mapped_files *mf, uint32_t pid, struct mapping *m);

/* Who controls f's content: with TRUST_SYSTEM or TRUST_USER, that is the
 * user mapped_file_owner() says (a FUSE file's is its server's). */
enum file_trust mapped_file_trust(const struct mapped_file *f);
uint32_t mapped_file_owner(const struct mapped_file *f);

/* Counts m's file as asked for now, if it is known. */
void mapped_files_touch(struct mapped_files *mf, const struct mapping *m);

/* Closes and forgets the files not asked for since MAPPED_FILES_IDLE sweeps
 * ago.  Called after each complete drain, once the samples of the
 * processes that have gone are all written. */
#define MAPPED_FILES_IDLE 30
void mapped_files_sweep(struct mapped_files *mf);

#endif
