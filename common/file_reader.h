/*
 * The file reader: a helper process, without privilege, that does for the
 * main process what may wait on a file system a user serves: opening a
 * file by its path (every directory on the way may be a FUSE mount), and
 * copying into memory a file that is not on a local file system
 * (local_fs.h), which the main process then reads instead.
 *
 * The main process never waits for it.  Requests are queued and sent one
 * at a time; answers are taken as the main loop comes by; a request not
 * answered within FILE_READER_TIMEOUT_MS has its reader killed (a process
 * waiting on a FUSE server dies of SIGKILL), that file given up, and a new
 * reader started for the next.  So a user who stops the server of the
 * file system their program runs from leaves their own frames unresolved,
 * and holds up nothing else.
 */
#ifndef PROF_FILE_READER_H
#define PROF_FILE_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "local_fs.h"

#define FILE_READER_TIMEOUT_MS 2000
/* A file copied is at most this large: a program's or library's file is
 * tens of MiB, and the copy stays in memory while the file is used. */
#define FILE_READER_MAX_COPY (256ull << 20)

/* What a helper says of the file it gives (the opener's, prof-sample's
 * opener.h, or this reader's). */
struct opened_file {
	uint64_t dev, ino, size; /* fstat's (statx's) */
	uint32_t uid, gid, mode;
	/* Its file system.  On a local one (FS_LOCAL) the descriptor reads
	 * the file; else it is something to copy (an O_PATH descriptor, from
	 * the opener) or a copy (from this reader). */
	struct fs_info fs;
};

struct read_result {
	uint64_t tag; /* the request's */
	int fd;	      /* the file, or -1 (err says why) */
	int err;
	/* On a local file system (info.fs) fd reads the file itself; else
	 * it is a sealed copy. */
	struct opened_file info;
};

/* Called for each request answered, or given up; r->fd is the callee's. */
typedef void file_reader_done(void *ctx, const struct read_result *r);

struct file_reader_stats {
	uint64_t copied, opened, failed, stalled, started;
};

struct file_reader;

/* A reader for a process that holds no privilege: its helper process is
 * forked when there is a first request. */
struct file_reader *file_reader_new(file_reader_done *done, void *ctx);
void file_reader_free(struct file_reader *r);

/* Queues the copy of the file O_PATH descriptor pfd leads to (taken). */
void file_reader_copy(struct file_reader *r, uint64_t tag, int pfd);

/* Queues opening path, a regular file not reached through a symbolic
 * link at its end; copied too if not on a local file system. */
void file_reader_open(struct file_reader *r, uint64_t tag, const char *path);

/* Takes the answers that have come, and gives up a request that took too
 * long; never waits.  With settle_ms, waits up to that long for every
 * request to be answered (at the end of a capture). */
void file_reader_poll(struct file_reader *r, int settle_ms);

/* Whether requests are queued or being read. */
bool file_reader_busy(const struct file_reader *r);

const struct file_reader_stats *file_reader_stats(const struct file_reader *r);

#endif
