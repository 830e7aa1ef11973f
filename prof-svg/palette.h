/*
 * Frame colours: flamegraph.pl's palettes, picked by a hash of the frame
 * name so the same name gets the same colour in every graph, the kind
 * colours of annotated frames, the differential scale, and the consistent
 * palette file (--cp) that pins colours across runs.
 */
#ifndef PROF_SVG_PALETTE_H
#define PROF_SVG_PALETTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frame_kind.h"

enum palette {
	PAL_HOT, PAL_MEM, PAL_IO, PAL_WAKEUP, PAL_CHAIN, PAL_JAVA, PAL_JS, PAL_PERL,
	PAL_RED, PAL_GREEN, PAL_BLUE, PAL_AQUA, PAL_YELLOW, PAL_PURPLE, PAL_ORANGE,
	PAL_COUNT
};

enum color_hash {
	HASH_NAME,  /* default: a 64-bit hash of the whole name */
	HASH_PERL,  /* --hash: flamegraph.pl's namehash, for identical colours */
	HASH_RANDOM /* --random */
};

struct rgb {
	uint8_t r, g, b;
};

/* The palette named name, or -1. */
int palette_from_name(const char *name);
const char *palette_name(int pal);

/* The colour of a frame named s[0..len). */
struct rgb palette_color(int pal, enum color_hash how, const char *s, size_t len);

/* The same in a graph with a legend (by_kind): each kind of frame in the
 * colour of its legend entry. */
struct rgb palette_frame_color(int pal, enum color_hash how, const char *s, size_t len,
			       bool by_kind);

/* The colour of a frame named s[0..len) whose time is all blocked (off-CPU),
 * in the palettes that colour by kind, and the colour that stands for
 * blocked time in their legend. */
struct rgb palette_blocked_color(enum color_hash how, const char *s, size_t len);
struct rgb palette_blocked_swatch(void);

/* The colour that stands for frame kind k in the legend of palette pal. */
struct rgb palette_kind_color(int pal, enum frame_kind k);

/* Whether palette pal colours annotated frames by kind. */
bool palette_uses_kinds(int pal);

/* Differential colour: red for growth, blue for shrinkage, white for none;
 * max is the largest |delta| in the graph. */
struct rgb palette_diff_color(double delta, double max, bool negate);

/* flamegraph.pl's namehash, in [0, 1]. */
double palette_perl_namehash(const char *s, size_t len, bool reversed);

/* Background gradient for --bgcolors (or the palette's default when name is
 * NULL): two CSS colours, or false for an unknown/unsafe name. */
bool palette_background(const char *name, int pal, char top[32], char bottom[32]);

/* Parses "rgb(R,G,B)" exactly; false if it is anything else. */
bool palette_parse_rgb(const char *s, size_t len, struct rgb *out);

#endif
