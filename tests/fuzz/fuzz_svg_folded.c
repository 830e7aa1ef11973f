/*
 * libFuzzer target: prof-svg's input reader (folded_read.c, on the shared
 * syntax common/folded.c) into the frame tree (frame_tree.c), then the SVG
 * writer with its escaping (svg_write.c, xml_text.c), in three shapes: a
 * flame graph, a reversed icicle flame chart, and a differential graph
 * (the input as both BEFORE and AFTER).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folded_read.h"
#include "frame_tree.h"
#include "palette.h"
#include "svg_opts.h"
#include "svg_write.h"

static FILE *null_out;

static FILE *input(const uint8_t *data, size_t size)
{
	FILE *f = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");

	if (!f)
		abort();
	return f;
}

static void one(const uint8_t *data, size_t size, int k)
{
	struct svg_opts o = {
		.title = "fuzz", .countname = "samples", .nametype = "Function:", .width = 1200,
		.frameheight = 16, .fontsize = 12, .fontwidth = 0.59, .minwidth = 0.1,
		.maxframes = 4000, .palette = PAL_HOT, .hash = HASH_NAME, .factor = 1,
	};
	struct folded_stats st = { 0 };
	struct timeline tl = { 0 };
	bool chart = k == 1, diff = k == 2, reverse = k == 1;
	struct frame_tree *t = ft_new(chart, diff);
	FILE *f;

	snprintf(o.fonttype, sizeof(o.fonttype), "Verdana");
	if (k == 1) {
		o.flamechart = o.inverted = true;
		o.palette = PAL_JAVA;
		o.hash = HASH_PERL;
	}
	if (diff) {
		f = input(data, size);
		folded_read(f, t, FOLDED_BEFORE, reverse, &st, NULL);
		fclose(f);
		f = input(data, size);
		folded_read(f, t, FOLDED_AFTER, reverse, &st, NULL);
		fclose(f);
		if (t->before && t->before[0] > 0)
			ft_scale_before(t, t->nodes[0].count / t->before[0]);
	} else {
		f = input(data, size);
		folded_read(f, t, FOLDED_ANY, reverse, &st, &tl);
		fclose(f);
	}
	palette_background(NULL, t->diff ? -1 : o.palette, o.bg_top, o.bg_bottom);
	if (t->nodes[0].count <= 0)
		svg_write_empty(null_out, &o);
	else
		svg_write(null_out, t, &o, chart || diff || !tl.slot_ns || t->diff ? NULL : &tl);
	timeline_free(&tl);
	ft_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!null_out && !(null_out = fopen("/dev/null", "w")))
		abort();
	for (int k = 0; k < 3; k++)
		one(data, size, k);
	return 0;
}
