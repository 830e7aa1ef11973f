/*
 * What the SVG writer draws, from whichever source holds the profile: the
 * merged call tree (frame_tree.h), or the frames of sorted input read as a
 * stream (sorted_frames.h), which draws the same graph without a tree.
 */
#ifndef PROF_SVG_DRAWN_FRAMES_H
#define PROF_SVG_DRAWN_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct drawn_frame {
	const char *name; /* "all" for the root */
	size_t len;
	double count;	  /* inclusive */
	double x;	  /* in counts, from the graph's left */
	uint32_t depth;	  /* the root's is 0 */
	uint32_t node;	  /* the tree's node (differential colours), else 0 */
	bool blocked;	  /* the whole count is time spent blocked */
};

typedef void (*frame_fn)(void *ctx, const struct drawn_frame *fr);

struct frame_source {
	double total;	   /* the root's count */
	uint32_t kinds;	   /* bit set of the frame kinds of every name */
	size_t nonzero;	   /* frames whose count is above 0 */
	/* The counts of the frames of at least minw and above 0, in
	 * *n, allocated. */
	double *(*counts)(const struct frame_source *s, double minw, size_t *n);
	/* Visits the frames of at least minw and above 0 (under a root
	 * that is too), parents first, siblings in name order. */
	void (*walk)(const struct frame_source *s, double minw, frame_fn fn, void *ctx);
	void *data;
};

#endif
