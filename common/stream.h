/*
 * Opening the input and output of a pipeline stage.
 *
 * Every program reads a file argument or stdin ("-" or no argument) and
 * writes stdout or -o FILE.  Output errors (a full disk, a closed pipe) are
 * caught at close, so no program reports success on a truncated output.
 */
#ifndef PROF_STREAM_H
#define PROF_STREAM_H

#include <stdbool.h>
#include <stdio.h>

/* Opens path for reading ("-" or NULL is stdin); exits EXIT_USAGE with a
 * message naming the file when it cannot be opened.  When that is stdin
 * and stdin is a pipe, SIGINT is ignored from then on: the stage finishes
 * when its input ends. */
FILE *input_open(const char *path);

/* The name to use in diagnostics for path: "<stdin>" for stdin. */
const char *input_name(const char *path);

/* Opens path for writing ("-" or NULL is stdout).  With binary set (a
 * capture): refuses (EXIT_USAGE) to write to a terminal, through a symbolic
 * link, or into a file another user owns, and makes the file 0600. */
FILE *output_open(const char *path, bool binary);

/* Flushes f, for a reader to have what was written so far; on a write
 * error reports it naming path (as output_close) and returns false. */
bool output_flush(FILE *f, const char *path);

/* Flushes and closes f; on a write error reports it naming path and returns
 * false. */
bool output_close(FILE *f, const char *path);

/* Opens path read-only if it is a regular file; -1 with errno set
 * otherwise (EINVAL for a FIFO, device or directory).  Paths named by
 * untrusted input go through here: opening a FIFO would block forever, and
 * opening a device may do anything, so the type is checked before the file
 * is opened.  extra_flags may hold O_NOFOLLOW. */
int open_regular(const char *path, int extra_flags);

/* The same for path relative to the directory open as dirfd. */
int open_regular_at(int dirfd, const char *path, int extra_flags);

#endif
