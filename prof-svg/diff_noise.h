/*
 * A differential graph's changes against sampling noise: for each frame of
 * the merged tree, the change of its share from BEFORE to AFTER with its
 * interval (common/share_diff.c), from the two inputs' time (timed folded
 * stacks).  Frames whose interval holds 0 are not coloured.
 */
#ifndef PROF_SVG_DIFF_NOISE_H
#define PROF_SVG_DIFF_NOISE_H

#include <stdbool.h>
#include <stddef.h>

#include "frame_tree.h"
#include "share_diff.h"
#include "timeline.h"

struct diff_noise {
	struct share_change *change; /* by node; NULL for nodes not compared */
	bool *compared;
	size_t m;		     /* frames compared */
	double maxdelta;	     /* largest |change| among the significant */
	size_t nbatches[2];
};

/* The changes of t's frames; false (and nothing set) when either input is
 * too short in time to have intervals (then *why says so). */
bool diff_noise(struct diff_noise *d, const struct frame_tree *t, struct timeline *before,
		struct timeline *after, const char **why);
void diff_noise_free(struct diff_noise *d);

#endif
