/*
 * Shared by the prof-fold fuzz targets: the input through the line reader
 * (fuzz_lines.h), and the sets of options each input is folded with.
 */
#ifndef FUZZ_FOLD_INPUT_H
#define FUZZ_FOLD_INPUT_H

#include "fold.h"
#include "fuzz_lines.h"

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
