/*
 * Shared by the fuzz targets of line input (prof-fold's, prof-svg's): the
 * input as a file descriptor, so that it goes through the line reader
 * (common/line_reader.c) exactly as a file or a pipe would.
 */
#ifndef FUZZ_LINES_H
#define FUZZ_LINES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "line_reader.h"

static int fuzz_fd = -1;
static FILE *fuzz_null;

/* A memfd holding data, read from its start. */
static int fuzz_input_fd(const uint8_t *data, size_t size)
{
	if (fuzz_fd < 0) {
		fuzz_fd = memfd_create("fuzz-input", MFD_CLOEXEC);
		fuzz_null = fopen("/dev/null", "w");
		if (fuzz_fd < 0 || !fuzz_null)
			abort();
	}
	if (ftruncate(fuzz_fd, 0) != 0 || pwrite(fuzz_fd, data, size, 0) != (ssize_t)size ||
	    lseek(fuzz_fd, 0, SEEK_SET) != 0)
		abort();
	return fuzz_fd;
}

/*
 * The line reader of each run reuses the buffer of the previous one: under
 * ASan, a fresh 4 MB buffer per run (and its shadow) costs ten times the
 * parse of a small input.  The first run, and the run after one that grew
 * the buffer, get theirs from lr_init() itself, so every run starts with
 * the buffer size lr_init() gives; a reused buffer keeps its redzones, so an
 * overflow is still caught.
 */
static char *fuzz_lr_buf;
static uint64_t *fuzz_lr_newlines; /* and its bit map of newlines */
static size_t fuzz_lr_cap;

static void fuzz_lr_init(struct line_reader *r, int fd)
{
	if (!fuzz_lr_buf) {
		lr_init(r, fd, "fuzz");
		fuzz_lr_buf = r->buf;
		fuzz_lr_newlines = r->newlines;
		fuzz_lr_cap = r->cap;
		return;
	}
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->name = "fuzz";
	r->buf = fuzz_lr_buf;
	r->newlines = fuzz_lr_newlines;
	r->cap = fuzz_lr_cap;
}

static void fuzz_lr_free(struct line_reader *r)
{
	if (r->buf != fuzz_lr_buf || r->newlines != fuzz_lr_newlines || r->cap != fuzz_lr_cap) {
		lr_free(r);
		fuzz_lr_buf = NULL;
	}
}

#endif
