/*
 * libFuzzer target: prof-svg's input reader (folded_read.c, on the shared
 * syntax common/folded.c) into the frame tree (frame_tree.c), then the SVG
 * writer with its escaping (svg_write.c, xml_text.c), in three shapes: a
 * flame graph, a reversed icicle flame chart, and a differential graph
 * (the input as both BEFORE and AFTER); and read as a stream of sorted
 * stacks (sorted_frames.c), whose graph, when it takes the input, must be
 * the tree's byte for byte.
 */
#include <stdlib.h>
#include <string.h>

#include "folded_read.h"
#include "frame_tree.h"
#include "palette.h"
#include "sorted_frames.h"
#include "svg_opts.h"
#include "svg_write.h"
#include "fuzz_lines.h"

/* The input, through the line reader as a file would be. */
static void read_one(struct frame_tree *t, const uint8_t *data, size_t size, enum folded_role role,
		     bool reverse, struct folded_stats *st, struct timeline *tl)
{
	struct line_reader r;

	fuzz_lr_init(&r, fuzz_input_fd(data, size));
	folded_read(&r, t, role, reverse, st, tl);
	fuzz_lr_free(&r);
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

	snprintf(o.fonttype, sizeof(o.fonttype), "Verdana");
	if (k == 1) {
		o.flamechart = o.inverted = true;
		o.palette = PAL_JAVA;
		o.hash = HASH_PERL;
	}
	if (diff) {
		read_one(t, data, size, FOLDED_BEFORE, reverse, &st, NULL);
		read_one(t, data, size, FOLDED_AFTER, reverse, &st, NULL);
		if (t->before && t->before[0] > 0)
			ft_scale_before(t, t->nodes[0].count / t->before[0]);
	} else {
		read_one(t, data, size, FOLDED_ANY, reverse, &st, &tl);
	}
	palette_background(NULL, t->diff ? -1 : o.palette, o.bg_top, o.bg_bottom);
	if (t->nodes[0].count <= 0)
		svg_write_empty(fuzz_null, &o);
	else
		svg_write(fuzz_null, t, &o, chart || diff || !tl.slot_ns || t->diff ? NULL : &tl);
	timeline_free(&tl);
	ft_free(t);
}

/* The graph drawn from a tree (tree set) or as a stream, in memory; NULL
 * if the stream does not take the input. */
static char *graph(const uint8_t *data, size_t size, const struct svg_opts *o, bool tree,
		   size_t *len)
{
	struct folded_stats st = { 0 };
	struct line_reader r;
	char *out = NULL;
	FILE *f;
	double total;

	fuzz_lr_init(&r, fuzz_input_fd(data, size));
	if (tree) {
		struct frame_tree *t = ft_new(false, false);
		folded_read(&r, t, FOLDED_ANY, false, &st, NULL);
		fuzz_lr_free(&r);
		if (t->diff || (total = t->nodes[0].count) <= 0) {
			ft_free(t);
			return NULL;
		}
		f = open_memstream(&out, len);
		svg_write(f, t, o, NULL);
		ft_free(t);
	} else {
		struct sorted_frames *sf = sorted_frames_new(o);
		const char *why = sorted_frames_read(sf, &r, &st);
		fuzz_lr_free(&r);
		if (why || sorted_frames_source(sf)->total <= 0) {
			sorted_frames_free(sf);
			return NULL;
		}
		f = open_memstream(&out, len);
		svg_write_frames(f, sorted_frames_source(sf), o);
		sorted_frames_free(sf);
	}
	fclose(f);
	return out;
}

static void stream_as_tree(const uint8_t *data, size_t size, double minwidth, double maxframes)
{
	struct svg_opts o = {
		.title = "fuzz", .countname = "samples", .nametype = "Function:", .width = 1200,
		.frameheight = 16, .fontsize = 12, .fontwidth = 0.59, .minwidth = minwidth,
		.minwidth_set = minwidth != 0.1, .maxframes = maxframes, .palette = PAL_HOT,
		.hash = HASH_NAME, .factor = 1,
	};
	size_t slen = 0, tlen = 0;
	char *s, *t;

	snprintf(o.fonttype, sizeof(o.fonttype), "Verdana");
	palette_background(NULL, o.palette, o.bg_top, o.bg_bottom);
	if (!(s = graph(data, size, &o, false, &slen)))
		return;
	t = graph(data, size, &o, true, &tlen);
	if (!t || slen != tlen || memcmp(s, t, slen) != 0)
		abort(); /* the stream drew another graph than the tree */
	free(s);
	free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (int k = 0; k < 3; k++)
		one(data, size, k);
	/* The default budget, a small one, and every frame. */
	stream_as_tree(data, size, 0.1, 4000);
	stream_as_tree(data, size, 0.1, 3);
	stream_as_tree(data, size, 0, 0);
	return 0;
}
