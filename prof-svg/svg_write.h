/*
 * Drawing a frame tree as a standalone, interactive SVG flame graph
 * (docs/FORMATS.md section 4).
 */
#ifndef PROF_SVG_SVG_WRITE_H
#define PROF_SVG_SVG_WRITE_H

#include <stdio.h>

#include "drawn_frames.h"
#include "frame_tree.h"
#include "svg_opts.h"
#include "timeline.h"

/* The flame graph's script, flamegraph.js, NUL-terminated (flamegraph_js.S). */
extern const char svg_script_js[];

/* Writes the flame graph of t; with the counts of tl by time (tl NULL or
 * empty: none), a heatmap above it and the data to draw any range. */
void svg_write(FILE *f, struct frame_tree *t, const struct svg_opts *o, struct timeline *tl);

/* Writes the flame graph of the frames of src, which needs no tree: no
 * differential, no heatmap. */
void svg_write_frames(FILE *f, const struct frame_source *src, const struct svg_opts *o);

/* The smallest count --minwidth draws when timemax is 100%, before any
 * frame budget: it never falls as timemax grows. */
double svg_min_count(const struct svg_opts *o, double timemax);

/* Writes the SVG that says there is nothing to draw. */
void svg_write_empty(FILE *f, const struct svg_opts *o);

/* Formats a count like flamegraph.pl: thousands separators, and up to 3
 * decimals only for fractional counts. */
void svg_format_count(char *buf, size_t size, double v);

#endif
