/*
 * The time view of a timed profile: a subsecond-offset heatmap above the
 * flame graph (a column per second, a row per part of it, as FlameScope
 * draws one), and the data from which the page redraws the graph for a
 * range of time (flamegraph.js): the whole tree in preorder, the names and
 * their colours, and each slot's counts by leaf.  docs/FORMATS.md
 * section 4 describes what the page holds.
 */
#ifndef PROF_SVG_SVG_TIME_H
#define PROF_SVG_SVG_TIME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "frame_tree.h"
#include "svg_opts.h"
#include "timeline.h"

struct heatmap {
	uint64_t t0_ns;	   /* the start of the second of the first slot */
	unsigned rows;	   /* parts of a second */
	double row_ns;	   /* the time a row stands for */
	uint64_t cols;	   /* seconds from t0 to the last slot's */
	double x, y;	   /* top left of the cells */
	double cw, rh;	   /* a cell's width and height */
	double height;	   /* of the whole band: caption, cells, axis */
	double max;	   /* the largest cell */
	bool time;	   /* counts are times: blocked time drawn in blue */
};

/* Lays the heatmap of tl out in a band of the given width from y. */
void heatmap_plan(struct heatmap *h, const struct timeline *tl, const struct svg_opts *o,
		  double x, double y, double width);

/* Draws it (tl sorted by time). */
void heatmap_write(FILE *f, const struct heatmap *h, const struct timeline *tl,
		   const struct svg_opts *o);

/* The nodes of a tree, in preorder. */
struct preorder {
	uint32_t *order; /* by node: its place */
	uint32_t *nodes; /* by place: the node */
	uint32_t *depth; /* by place */
	uint32_t n;
};

/* The preorder of t's nodes, children in the order ft_sort_children left
 * them (called on every node first); the root is first.  Every node, those
 * the page cannot draw (deeper than the whole graph's deepest) included:
 * a range's frame budget counts them, as prof-svg's does. */
void tree_preorder(const struct frame_tree *t, struct preorder *p);
void preorder_free(struct preorder *p);

/* Writes the range view's data: the nodes of p, the names with their
 * colours, and tl's counts (sorted by p's places).  blocked: whole-blocked
 * frames have the blocked colours; legend: kinds have theirs. */
void timeline_data_write(FILE *f, struct frame_tree *t, const struct timeline *tl,
			 const struct preorder *p, const struct heatmap *h, const struct svg_opts *o,
			 bool blocked, bool legend);

#endif
