/*
 * The merged call tree of a folded profile.
 *
 * Every stack is added root first; a frame merges with the sibling of the
 * same name (or, for a flame chart, only with the latest sibling, so that
 * the x axis stays the input order).  Counts are inclusive.  In
 * differential mode each node also carries the inclusive count of the
 * "before" profile.
 *
 * Stacks of time spent blocked carry the marker frame "[off-cpu]"
 * (docs/FORMATS.md section 3); the marker and the frames of the blocked
 * thread before it (after it, with reverse) also count that time as
 * blocked, so that a frame whose whole count is blocked can be told from
 * one that mixes on- and off-CPU time.  The waker frames past the marker
 * do not: they are another thread's.
 *
 * Memory is 24 bytes per node, 8-byte hash slots (load under 1/2) for the
 * children of the nodes whose children come out of bytewise order (few in
 * sorted input), 8 more per node for a differential, a flame chart or
 * blocked time, and the interned names.
 */
#ifndef PROF_SVG_FRAME_TREE_H
#define PROF_SVG_FRAME_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "name_table.h"

#define FT_NONE UINT32_MAX

struct ft_node {
	uint32_t name;	  /* index into the name table; FT_NONE for the root */
	uint32_t parent;  /* FT_NONE for the root */
	uint32_t child;	  /* first child (newest first until ft_sort_children) */
	uint32_t sibling; /* next sibling, FT_NONE at the end */
	double count;	  /* inclusive count */
};

struct frame_tree {
	struct name_table *names;
	struct ft_node *nodes;
	size_t n, cap;
	double *before; /* differential: inclusive "before" counts, or NULL */
	double *start;	/* flame chart: x of each node in samples, or NULL */
	double *blocked; /* inclusive blocked counts, or NULL until a marker */
	uint32_t marker; /* the name "[off-cpu]", FT_NONE until interned */
	/* (parent, name) -> node for the children of the nodes set in
	 * hashed, those whose children came out of order: each slot holds
	 * node + 1 in its low half and 32 bits of the key's hash in its high
	 * half, so that a probe rarely has to read the node.  NULL until a
	 * node needs it, and for a flame chart. */
	uint64_t *slots;
	size_t nslots, nhashed;
	uint64_t *hashed; /* bit set of nodes */
	double time;	 /* flame chart: running total of counts */
	bool chart, diff;
	/* The previous stack, so that a sorted input (the norm) reuses its
	 * common prefix without a lookup per frame. */
	char *prev;
	size_t prev_len, prev_cap;
	uint32_t *path;	 /* node of each frame of prev, root first */
	size_t *path_end; /* byte offset in prev where that frame ends */
	size_t path_n, path_cap;
	size_t path_marker; /* depth of prev's first marker frame, or SIZE_MAX */
	/* Scratch: the frames of a stack past those it shares with prev. */
	struct nt_key *new_keys;
	uint32_t *new_names;
	bool *new_created;
	size_t new_cap;
	uint32_t kinds;	 /* bit set of frame kinds seen (1 << enum frame_kind) */
	size_t stacks;	 /* stacks added */
};

struct frame_tree *ft_new(bool chart, bool diff);
void ft_free(struct frame_tree *t);

/* Makes room for nodes nodes at once: growing the arrays as they fill
 * costs a move of each and the faults of fresh pages. */
void ft_reserve(struct frame_tree *t, size_t nodes);

/* Adds one stack "a;b;c" (len bytes, without the count) with its count and,
 * in differential mode, its "before" count.  With reverse set the frames are
 * taken leaf first.  Returns the stack's last node. */
uint32_t ft_add(struct frame_tree *t, const char *stack, size_t len, bool reverse,
	    double count, double before);

/* The name of node i (the root has "all") and its length. */
const char *ft_name(const struct frame_tree *t, uint32_t i, size_t *len);

/* Whether node i's whole count is blocked time: then every count added to
 * it was added to its blocked count too, in the same order, so the two
 * sums are equal to the bit. */
static inline bool ft_blocked(const struct frame_tree *t, uint32_t i)
{
	return t->blocked && t->blocked[i] > 0 && t->blocked[i] == t->nodes[i].count;
}

/* Orders node i's children: by name, or in input order for a flame chart.
 * Call it once per node, once all stacks are in. */
void ft_sort_children(struct frame_tree *t, uint32_t i);

/* Turns differential mode on (the tree holds only the root so far). */
void ft_enable_diff(struct frame_tree *t);

/* Multiplies every "before" count by factor (--normalize). */
void ft_scale_before(struct frame_tree *t, double factor);

#endif
