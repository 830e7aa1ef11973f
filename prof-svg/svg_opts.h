/* What the command line says about the picture. */
#ifndef PROF_SVG_OPTS_H
#define PROF_SVG_OPTS_H

#include <stdbool.h>

#include "diff_noise.h"
#include "name_attr.h"
#include "palette.h"
#include "palette_map.h"

struct svg_opts {
	const char *title, *subtitle, *notes;
	const char *countname, *nametype;
	char fonttype[128];	     /* sanitised for CSS */
	char bg_top[32], bg_bottom[32];
	double width, frameheight, fontsize, fontwidth;
	double minwidth;	     /* pixels, or percent of the graph width */
	bool minwidth_pct;
	bool minwidth_set;	     /* --minwidth given: no frame budget */
	double maxframes;	     /* frame budget; 0 = none */
	int palette;
	enum color_hash hash;
	bool inverted, flamechart, negate;
	double total;		     /* --total: scale to this many samples; 0 = input's */
	double factor;		     /* --factor: displayed count multiplier */
	double ns_per_count;	     /* counts are times: ns in one (--factor in); else 0 */
	struct palette_map *palmap;  /* --cp */
	struct name_attrs *nameattrs; /* --nameattr */
	/* --diff of timed inputs: each frame's change against noise, from the
	 * inputs (diff_noise.c); NULL colours every change. */
	const struct diff_noise *noise;
};

#endif
