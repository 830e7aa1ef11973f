/*
 * Shared by the prof-fold fuzz targets: the input as a file descriptor, so
 * that it goes through the line reader (line_reader.c) exactly as a file
 * or a pipe would, and the two sets of options each input is folded with.
 */
#ifndef FUZZ_FOLD_INPUT_H
#define FUZZ_FOLD_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fold.h"

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

static const char *fuzz_skip[] = { "main", "b" };
static const char *fuzz_noskip[] = { "\001never a frame" };

/* Option set k: 0 is the default, 1 turns on everything that changes how a
 * frame or a stack is built, 2 is the default with the frame cache.
 * Allocating and freeing the 2 MB frame cache costs more than parsing a
 * small input, so sets 0 and 1 leave it out (any --skip-after does, and
 * one that matches nothing changes nothing else). */
static struct fold_opts fuzz_opts(int k)
{
	struct fold_opts o = { .format = FMT_AUTO };

	if (k == 0) {
		o.skip_after = fuzz_noskip;
		o.nskip_after = 1;
	} else if (k == 1) {
		o.include_pid = o.include_tid = true;
		o.annotate_kernel = o.annotate_jit = o.include_addrs = true;
		o.inline_annotate = o.context = o.no_comm = true;
		o.event_filter = "cpu-clock";
		o.skip_after = fuzz_skip;
		o.nskip_after = 2;
	}
	return o;
}

/* Whether this input also takes option set 2 (one in 8, chosen by its
 * bytes, so that a reproducer takes the same path when run alone). */
static int fuzz_sets(const uint8_t *data, size_t size)
{
	uint32_t h = 2166136261u ^ (uint32_t)size;

	for (size_t i = 0; i < size && i < 64; i++)
		h = (h ^ data[i]) * 16777619u;
	return (h & 7) == 0 ? 3 : 2;
}

#endif
