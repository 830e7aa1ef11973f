/*
 * The file reader: a helper process, without privilege, that does for the
 * main process what may wait on a file system a user serves: opening a
 * file by its path (every directory on the way may be a FUSE mount), and
 * copying into memory a file that is not on a local file system
 * (local_fs.h), which the main process then reads instead.  prof-sample's
 * main process, which must never stall, and prof-symbolize, a filter that
 * must finish, both open every file by path through one.
 *
 * Requests are queued and sent one at a time; prof-sample takes answers
 * as its main loop comes by, prof-symbolize waits for each.  A request not
 * answered within FILE_READER_TIMEOUT_MS has its reader killed (a process
 * waiting on a FUSE server dies of SIGKILL), that file given up, and a new
 * reader started for the next.  So a user who stops the server of the
 * file system their program runs from leaves their own frames unresolved,
 * and holds up nothing else.
 *
 * Nor for long: the reader walks paths a mount at a time (path_walk.h),
 * so the mount that kept it waiting is known, and no later request asks
 * it anything (ETIMEDOUT at once).  After FILE_READER_MAX_STALLS stalls,
 * on as many mounts as a user likes to make, only local file systems are
 * walked or read (EREMOTE for the others): a run waits on file systems
 * that do not answer for at most that many timeouts.
 */
#ifndef PROF_FILE_READER_H
#define PROF_FILE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "local_fs.h"

#define FILE_READER_TIMEOUT_MS 2000
#define FILE_READER_MAX_STALLS 3
/* A file copied is at most this large: a program's or library's file is
 * tens of MiB, and the copy stays in memory while the file is used. */
#define FILE_READER_MAX_COPY (256ull << 20)

/* What a helper says of the file it gives (the opener's, prof-sample's
 * opener.h, or this reader's). */
struct opened_file {
	uint64_t dev, ino, size; /* fstat's (statx's) */
	uint32_t uid, gid, mode;
	uint64_t ctime_ns; /* its change time, which no user can set */
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
	uint64_t copied, opened, failed, started;
	uint64_t stalled;  /* readers killed for waiting too long */
	uint64_t given_up; /* files on a file system that did not answer */
};

struct file_reader;

/* A reader, as the calling process, which must hold no privilege: its
 * helper process is forked when there is a first request.  done is called
 * for each answer to file_reader_copy() and file_reader_open() (NULL if
 * only file_reader_open_wait() is used).  A reader killed while a FUSE
 * server holds it, and which cannot die before the server answers, is left
 * behind, never waited for: no more than four are. */
struct file_reader *file_reader_new(file_reader_done *done, void *ctx);
void file_reader_free(struct file_reader *r);

/* Forks the reader's process now rather than at the first request, while
 * the caller is small: each page it writes to after the fork is copied. */
void file_reader_start(struct file_reader *r);

/* Queues the copy of the file O_PATH descriptor pfd leads to (taken). */
void file_reader_copy(struct file_reader *r, uint64_t tag, int pfd);

/* How to open a path. */
enum {
	FILE_READER_FOLLOW = 1, /* follow a symbolic link at its end */
	FILE_READER_LOCAL = 2,	/* only on local file systems, all the way */
};

/* Queues opening path (absolute, or from the working directory), a
 * regular file not reached through a symbolic link at its end unless how
 * says FILE_READER_FOLLOW; copied too if not on a local file system. */
void file_reader_open(struct file_reader *r, uint64_t tag, const char *path, unsigned how);

/* Opens the first of paths[0..n) that can be opened, each as
 * file_reader_open() does with how[i], now: for a program that has
 * nothing else to do meanwhile, which waits for the answer (at most
 * FILE_READER_TIMEOUT_MS for each path once it is asked).  The places a
 * file may be go in one request (up to FILE_READER_MAX_PATHS), a round
 * trip each: most of them hold nothing.  Returns the descriptor, with its
 * index in *which and what the reader says of the file in *info; or -1,
 * with *which = n.  err[i] (if err is not NULL) is why path i was not
 * opened, for each before *which: ETIMEDOUT if its file system did not
 * answer, now or before; EREMOTE if it is not on a local file system and
 * only those are read (FILE_READER_LOCAL, or after FILE_READER_MAX_STALLS
 * stalls); EFBIG if it is not local and larger than FILE_READER_MAX_COPY;
 * EINVAL if it is not a regular file or ends in a symbolic link not to be
 * followed; EAGAIN if no reader could start; or what the kernel said. */
#define FILE_READER_MAX_PATHS 16
int file_reader_open_first(struct file_reader *r, const char *const *paths, const unsigned *how,
			   size_t n, size_t *which, int *err, struct opened_file *info);

/* The places one file may be, for file_reader_open_groups(). */
struct file_places {
	const char *const *paths;
	const unsigned *how;
	size_t n;
	int *err; /* NULL, or err[i]: why paths[i] was not opened (as above) */
	/* The answer: the first path that could be opened, paths[which],
	 * as fd (the caller's), with info; fd -1 and which n if none. */
	size_t which;
	int fd;
	struct opened_file info;
};

/* The same for several files at once, g[0..ng): their places go in as
 * few requests as fit, and the reader answers for each file in turn: the
 * round trips are the cost, where most places hold nothing. */
void file_reader_open_groups(struct file_reader *r, struct file_places *g, size_t ng);

/* The same for one path: -1 with errno set as err[0] above. */
int file_reader_open_wait(struct file_reader *r, const char *path, unsigned how,
			  struct opened_file *info);

/* Takes the answers that have come, and gives up a request that took too
 * long; never waits.  With settle_ms, waits up to that long for every
 * request to be answered (at the end of a capture). */
void file_reader_poll(struct file_reader *r, int settle_ms);

/* Whether requests are queued or being read. */
bool file_reader_busy(const struct file_reader *r);

const struct file_reader_stats *file_reader_stats(const struct file_reader *r);

#endif
