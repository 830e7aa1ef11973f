/*
 * The time of a timed folded profile (docs/FORMATS.md section 3): how much
 * of each stack each slot of time holds, kept by the stack's leaf node in
 * the frame tree, for the heatmap and the range views (svg_time.c).
 */
#ifndef PROF_SVG_TIMELINE_H
#define PROF_SVG_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct time_count {
	uint64_t start_ns; /* the slot's start, as its time line said */
	uint32_t node;	   /* the stack's leaf */
	double count;
};

struct timeline {
	struct time_count *recs;
	size_t n, cap;
	uint64_t slot_ns;  /* the first time line's length */
	size_t untimed;	   /* stack lines before the first time line */
	size_t first_untimed; /* line number of the first of them */
};

void timeline_add(struct timeline *tl, uint64_t start_ns, uint32_t node, double count);
/* Sorts the counts by time, then by node renumbered as order[node] says,
 * and sums those of a node in a slot; order is indexed by node. */
void timeline_sort(struct timeline *tl, const uint32_t *order);
void timeline_free(struct timeline *tl);

#endif
