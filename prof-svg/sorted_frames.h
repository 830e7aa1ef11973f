/*
 * The flame graph of sorted folded stacks, read as a stream: the same
 * graph as the merged tree's (frame_tree.h), without building the tree.
 *
 * Sorted stacks, as prof-fold and the stackcollapse scripts write them,
 * come in the tree's depth-first order: a frame is complete once a stack
 * leaves it, and its count is then the counts of the stacks read since it
 * began.  So nothing is looked up and no name is interned: each frame is
 * found once, at the stack that begins it, and its name is kept only if
 * it may still be drawn when it ends.  What decides that (the smallest
 * count --minwidth draws and the frame budget's threshold) only grows as
 * stacks come, so a frame too narrow when it ends is too narrow for good.
 * Memory is the frames that may be drawn, the stack being read, and the
 * counts of frames wide enough to count in the budget.
 *
 * Input that is not so is said, and drawn from the tree: a frame that
 * sorts before its previous sibling (unsorted input, or a name such as
 * "a.cold" that sorts before "a;" though after "a"), a stack that ends at
 * a frame after stacks through its children, two columns (a
 * differential), time lines (a heatmap), decimal counts or a total past
 * 2^53 (where the sums' order would change their rounding).
 */
#ifndef PROF_SVG_SORTED_FRAMES_H
#define PROF_SVG_SORTED_FRAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "drawn_frames.h"
#include "folded_read.h"
#include "line_reader.h"
#include "svg_opts.h"

struct sorted_frames;

/* For the graph o describes. */
struct sorted_frames *sorted_frames_new(const struct svg_opts *o);
void sorted_frames_free(struct sorted_frames *sf);

/* Reads r's stacks, counting its other lines in st.  NULL once read, or
 * why the tree must draw them (the input must then be read again, from
 * the start, into a tree). */
const char *sorted_frames_read(struct sorted_frames *sf, struct line_reader *r,
			       struct folded_stats *st);

/* The frames read, to draw; valid until sorted_frames_free. */
const struct frame_source *sorted_frames_source(struct sorted_frames *sf);

#endif
