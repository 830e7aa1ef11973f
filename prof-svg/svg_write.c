#include "svg_write.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "frame_kind.h"
#include "time_text.h"
#include "number_text.h"
#include "svg_time.h"
#include "text_chunk.h"
#include "xml_text.h"

#define XPAD 10.0
#define FRAMEPAD 1.0

/* Where things go, in pixels. */
struct layout {
	double width, height, fh, fontsize;
	double top;	  /* y of the first frame row in an icicle */
	double bottom;	  /* height of the details band below the frames */
	double title_y, subtitle_y, legend_y;
	double offcpu_x, offcpu_y; /* where the off-CPU legend starts */
	double wpt;	  /* pixels per sample */
	double minw;	  /* smallest drawn count, in samples */
	double timemax;	  /* the count that is 100% */
	double maxdelta;  /* differential: largest |inclusive delta| drawn */
	unsigned depthmax;
	size_t nblocked;  /* frames drawn whose time is all blocked */
	size_t drawn;	  /* frames drawn */
	size_t omitted;	  /* frames of the profile too narrow to be drawn */
	bool legend;	  /* frames coloured by kind, as a legend shows */
	bool blocked;	  /* those frames coloured as blocked, with a legend */
	uint32_t listed;  /* the kinds the kind legend lists, 0 for none */
};

struct walk_item {
	uint32_t node;
	uint32_t depth;
	double x;
};

struct walker {
	struct walk_item *stack;
	size_t n, cap;
	uint32_t *kids;
	size_t nkids, kidcap;
};

static void push(struct walker *w, uint32_t node, uint32_t depth, double x)
{
	w->stack = xreserve(w->stack, &w->cap, w->n + 1, sizeof(*w->stack));
	w->stack[w->n++] = (struct walk_item){ node, depth, x };
}

/* The tree as a source of frames; its children are ordered in the first
 * walk, unless sorted already. */
struct tree_source {
	struct frame_tree *t;
	bool sorted;
};

static void tree_walk(const struct frame_source *s, double minw, frame_fn fn, void *ctx)
{
	struct tree_source *ts = s->data;
	struct frame_tree *t = ts->t;
	struct walker w = { 0 };
	bool sort = !ts->sorted;

	if (t->nodes[0].count < minw || t->nodes[0].count <= 0)
		return;
	push(&w, 0, 0, 0);
	while (w.n) {
		struct walk_item it = w.stack[--w.n];
		const struct ft_node *nd = &t->nodes[it.node];
		double sum = 0, x;
		struct drawn_frame fr = { .count = nd->count, .x = it.x, .depth = it.depth,
					  .node = it.node, .blocked = ft_blocked(t, it.node) };

		fr.name = ft_name(t, it.node, &fr.len);
		fn(ctx, &fr);
		if (sort)
			ft_sort_children(t, it.node);
		w.nkids = 0;
		for (uint32_t c = nd->child; c != FT_NONE; c = t->nodes[c].sibling) {
			sum += t->nodes[c].count;
			if (t->nodes[c].count < minw || t->nodes[c].count <= 0)
				continue;
			w.kids = xreserve(w.kids, &w.kidcap, w.nkids + 1, sizeof(*w.kids));
			w.kids[w.nkids++] = c;
		}
		/* Self time comes first, as in flamegraph.pl's sorted flow. */
		x = it.x + fmax(0, nd->count - sum);
		size_t first = w.n;
		for (uint32_t c = nd->child; c != FT_NONE; c = t->nodes[c].sibling) {
			double cx = t->start ? t->start[c] : x;
			if (t->nodes[c].count >= minw && t->nodes[c].count > 0)
				push(&w, c, it.depth + 1, cx);
			x += t->nodes[c].count;
		}
		/* Reverse the pushed children so the first is visited first. */
		for (size_t a = first, b = w.n; b > a + 1; a++, b--) {
			struct walk_item tmp = w.stack[a];
			w.stack[a] = w.stack[b - 1];
			w.stack[b - 1] = tmp;
		}
	}
	ts->sorted = true;
	free(w.stack);
	free(w.kids);
}

static double *tree_counts(const struct frame_source *s, double minw, size_t *n)
{
	const struct frame_tree *t = ((const struct tree_source *)s->data)->t;
	double *counts = NULL;
	size_t cap = 0;

	*n = 0;
	for (size_t i = 0; i < t->n; i++) {
		double c = t->nodes[i].count;
		if (c < minw || c <= 0)
			continue;
		counts = xreserve_from(counts, &cap, *n + 1, sizeof(*counts), 4096);
		counts[(*n)++] = c;
	}
	return counts;
}

/* The k-th greatest of v[0..n) (from 0), moving the elements: an
 * expected linear time select, where sorting all the counts was a tenth of
 * the run. */
static double kth_greatest(double *v, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, want = (ptrdiff_t)k;

	while (lo < hi) {
		double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi];
		double pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		ptrdiff_t i = lo, j = hi;

		/* Hoare's partition, greater first: then v[lo..j] >= pivot,
		 * v[i..hi] <= pivot and what lies between equals it. */
		while (i <= j) {
			while (v[i] > pivot)
				i++;
			while (v[j] < pivot)
				j--;
			if (i <= j) {
				double tmp = v[i];
				v[i++] = v[j];
				v[j--] = tmp;
			}
		}
		if (want <= j)
			hi = j;
		else if (want >= i)
			lo = i;
		else
			break;
	}
	return v[want];
}

/* The smallest count drawn so that at most o->maxframes frames are: a
 * frame's parent is never narrower than the frame, so the frames wider
 * than any threshold form whole subtrees and can be counted flat. */
static double budget_min(const struct frame_source *src, double minw, double maxframes,
			 size_t *omitted)
{
	double v;
	size_t n, k = (size_t)maxframes;
	double *counts = src->counts(src, minw, &n);

	*omitted = 0;
	if (n <= k || k == 0) {
		free(counts);
		return minw;
	}
	v = nextafter(kth_greatest(counts, n, k), INFINITY);
	for (size_t i = 0; i < n; i++)
		*omitted += counts[i] < v;
	free(counts);
	return v > minw ? v : minw;
}

struct measurer {
	struct layout *L;
	const struct frame_tree *t; /* differential: the tree, else NULL */
};

static void measure(void *ctx, const struct drawn_frame *fr)
{
	struct measurer *m = ctx;
	struct layout *L = m->L;

	if (fr->depth > L->depthmax)
		L->depthmax = fr->depth;
	L->nblocked += fr->blocked;
	L->drawn++;
	if (m->t && fr->node != 0) {
		double d = fabs(fr->count - m->t->before[fr->node]);
		if (d > L->maxdelta)
			L->maxdelta = d;
	}
}

void svg_format_count(char *buf, size_t size, double v)
{
	char raw[64], *dot;
	size_t n, intlen, out = 0;

	if (v == floor(v) && v >= 0 && v < 1e15) {
		/* A sample count, the usual case: printf's exact conversion
		 * was a sixth of the time of writing a frame. */
		char *p = number_digits(raw + sizeof(raw) - 1, (unsigned long long)v);
		raw[sizeof(raw) - 1] = '\0';
		memmove(raw, p, (size_t)(raw + sizeof(raw) - p));
	} else if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(raw, sizeof(raw), "%.0f", v);
	} else {
		snprintf(raw, sizeof(raw), "%.3f", v);
	}
	if ((dot = strchr(raw, '.'))) {
		n = strlen(raw);
		while (raw[n - 1] == '0')
			raw[--n] = '\0';
		if (raw[n - 1] == '.')
			raw[--n] = '\0';
	}
	dot = strchr(raw, '.');
	intlen = dot ? (size_t)(dot - raw) : strlen(raw);
	for (size_t i = 0; raw[i] && out + 2 < size; i++) {
		if (i && i < intlen && raw[i - 1] != '-' && (intlen - i) % 3 == 0)
			buf[out++] = ',';
		buf[out++] = raw[i];
	}
	buf[out] = '\0';
}

static void put_style(FILE *f, const struct svg_opts *o, bool timed)
{
	fprintf(f,
		"<style type=\"text/css\"><![CDATA[\n"
		"text { font-family: %s; font-size: %.4gpx; fill: rgb(0,0,0); }\n"
		"#title { text-anchor: middle; font-size: %.4gpx; }\n"
		"#subtitle { text-anchor: middle; fill: rgb(110,110,110); }\n"
		"#unzoom, #search, #ignorecase { cursor: pointer; }\n"
		"#search, #ignorecase { opacity: 0.3; }\n"
		"#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity: 1; }\n"
		"#unzoom.hide { display: none; }\n"

		"#frames > g { cursor: pointer; }\n"
		"#frames > g:hover > rect, #frames > g:hover > a > rect { stroke: rgb(0,0,0); "
		"stroke-width: 0.5; vector-effect: non-scaling-stroke; }\n"
		"#frames > g.parent { opacity: 0.5; }\n"
		"#frames > g.match > rect, #frames > g.match > a > rect { fill: rgb(230,0,230); }\n"
		"%s"
		"]]></style>\n",
		o->fonttype, o->fontsize, o->fontsize + 5,
		timed ? "#heat-range { text-anchor: end; cursor: pointer; }\n"
			"#heatmap { cursor: crosshair; }\n" : "");
}

static void put_header(FILE *f, const struct svg_opts *o, double width, double height, bool timed)
{
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
		"xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\">\n"
		"<!-- Flame graph drawn by prof-svg " PROF_VERSION " -->\n",
		width, height, width, height);
	if (o->notes) {
		fputs("<desc id=\"notes\">", f);
		xml_puts(f, o->notes);
		fputs("</desc>\n", f);
	}
	fprintf(f,
		"<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
		"<stop stop-color=\"%s\" offset=\"5%%\"/><stop stop-color=\"%s\" offset=\"95%%\"/>"
		"</linearGradient></defs>\n",
		o->bg_top, o->bg_bottom);
	put_style(f, o, timed);
	fputs("<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"url(#background)\"/>\n", f);
}

static void put_text(FILE *f, const char *id, const char *cls, double x, double y, const char *s)
{
	fprintf(f, "<text id=\"%s\"%s%s%s x=\"%.2f\" y=\"%.2f\">", id, cls ? " class=\"" : "",
		cls ? cls : "", cls ? "\"" : "", x, y);
	if (s)
		xml_puts(f, s);
	fputs("</text>\n", f);
}

void svg_write_empty(FILE *f, const struct svg_opts *o)
{
	double h = o->fontsize * 5 + 20;

	put_header(f, o, o->width, h, false);
	put_text(f, "title", NULL, o->width / 2, o->fontsize * 2, o->title);
	put_text(f, "empty", NULL, XPAD, o->fontsize * 4, "No stack counts found");
	fputs("</svg>\n", f);
}

struct writer {
	FILE *f;
	const struct svg_opts *o;
	const struct layout *L;
	const struct frame_tree *t; /* differential: the tree, else NULL */
};

static double frame_y(const struct layout *L, bool inverted, unsigned depth)
{
	if (inverted)
		return L->top + depth * L->fh;
	return L->height - L->bottom - (depth + 1) * L->fh + FRAMEPAD;
}

static struct rgb frame_color(const struct writer *w, const struct drawn_frame *fr)
{
	const struct svg_opts *o = w->o;
	const char *name = fr->name;
	size_t len = fr->len;
	uint32_t i = fr->node;
	struct rgb c;

	if (w->t) {
		if ((len == 2 && !memcmp(name, "--", 2)) || (len == 1 && name[0] == '-'))
			return palette_color(o->palette, o->hash, name, len);
		/* Against noise, only a change beyond it is coloured. */
		if (o->noise) {
			const struct share_change *ch = &o->noise->change[i];
			return palette_diff_color(o->noise->compared[i] && ch->significant ? ch->delta : 0,
						  o->noise->maxdelta, o->negate);
		}
		return palette_diff_color(fr->count - w->t->before[i], w->L->maxdelta, o->negate);
	}
	/* Not pinned by --cp: blocked is what the frame is here, not its
	 * name's colour. */
	if (w->L->blocked && fr->blocked)
		return palette_blocked_color(o->hash, name, len);
	c = palette_frame_color(o->palette, o->hash, name, len, w->L->legend);
	if (o->palmap)
		c = palette_map_get(o->palmap, name, len, c);
	return c;
}

static void put_info(const struct writer *w, struct text_chunk *k, const struct drawn_frame *fr,
		     size_t shown_len)
{
	const struct svg_opts *o = w->o;
	double count = fr->count;
	uint32_t i = fr->node;
	char num[64];

	xml_chunk(k, fr->name, shown_len);
	if (o->ns_per_count > 0) {
		time_format(num, sizeof(num), count * o->ns_per_count);
		chunk_lit(k, " (");
		chunk_str(k, num);
	} else {
		svg_format_count(num, sizeof(num), count * o->factor);
		chunk_lit(k, " (");
		chunk_str(k, num);
		chunk_lit(k, " ");
		xml_chunk(k, o->countname, strlen(o->countname));
	}
	chunk_lit(k, ", ");
	chunk_fixed(k, 100 * count / w->L->timemax, 2);
	chunk_lit(k, "%");
	if (w->t && o->noise && o->noise->compared[i]) {
		/* The change of share, with its interval. */
		const struct share_change *c = &o->noise->change[i];
		fprintf(chunk_file(k), "; %+.2f%% [%+.2f%%, %+.2f%%]%s", 100 * c->delta, 100 * c->lo,
			100 * c->hi, c->significant ? "" : ", within noise");
	} else if (w->t) {
		double delta = count - w->t->before[i];
		fprintf(chunk_file(k), "; %s%.2f%%", delta > 0 ? "+" : "", 100 * delta / w->L->timemax);
	}
	chunk_lit(k, ")");
}

static void draw(void *ctx, const struct drawn_frame *fr)
{
	const struct writer *w = ctx;
	const struct layout *L = w->L;
	const struct svg_opts *o = w->o;
	struct text_chunk k = { .f = w->f };
	size_t len = fr->len, shown_len;
	const char *name = fr->name;
	const struct name_attr *na = NULL;
	double count = fr->count;
	double x = XPAD + fr->x * L->wpt, width = count * L->wpt;
	double y = frame_y(L, o->inverted, fr->depth);
	struct rgb c = frame_color(w, fr);

	frame_kind_of(name, len, &shown_len);
	if (fr->depth != 0)
		na = name_attrs_find(o->nameattrs, name, len);
	chunk_lit(&k, "<g class=\"f");
	if (na && na->cls) {
		chunk_lit(&k, " ");
		chunk_str(&k, na->cls);
	}
	chunk_lit(&k, "\"");
	if (na && na->id)
		fprintf(chunk_file(&k), " id=\"%s\"", na->id);
	if (na && na->g_extra)
		chunk_str(&k, na->g_extra);
	if (na && na->title) {
		chunk_lit(&k, " data-name=\"");
		xml_chunk(&k, name, shown_len);
		chunk_lit(&k, "\"");
	}
	chunk_lit(&k, " data-x=\"");
	chunk_g15(&k, fr->x);
	chunk_lit(&k, "\" data-w=\"");
	chunk_g15(&k, count);
	chunk_lit(&k, "\" data-d=\"");
	chunk_int(&k, fr->depth);
	chunk_lit(&k, "\"><title>");
	if (na && na->title)
		chunk_str(&k, na->title);
	else
		put_info(w, &k, fr, shown_len);
	chunk_lit(&k, "</title>");
	if (na && na->href) {
		fprintf(chunk_file(&k), "<a xlink:href=\"%s\" target=\"%s\"%s>", na->href,
			na->target ? na->target : "_top", na->a_extra ? na->a_extra : "");
	}
	chunk_lit(&k, "<rect x=\"");
	chunk_fixed(&k, x, 2);
	chunk_lit(&k, "\" y=\"");
	chunk_fixed(&k, y, 1);
	chunk_lit(&k, "\" width=\"");
	chunk_fixed(&k, width, 2);
	chunk_lit(&k, "\" height=\"");
	chunk_fixed(&k, L->fh - FRAMEPAD, 1);
	chunk_lit(&k, "\" fill=\"rgb(");
	chunk_int(&k, c.r);
	chunk_lit(&k, ",");
	chunk_int(&k, c.g);
	chunk_lit(&k, ",");
	chunk_int(&k, c.b);
	chunk_lit(&k, ")\"/><text x=\"");
	chunk_fixed(&k, x + 3, 2);
	chunk_lit(&k, "\" y=\"");
	chunk_fixed(&k, y + (L->fh - FRAMEPAD) / 2 + o->fontsize / 3, 2);
	chunk_lit(&k, "\">");
	xml_chunk_label(&k, name, shown_len, (long)(width / (o->fontsize * o->fontwidth)));
	if (na && na->href)
		chunk_lit(&k, "</text></a></g>\n");
	else
		chunk_lit(&k, "</text></g>\n");
	chunk_flush(&k);
}

static const char *const KIND_LABEL[KIND_COUNT] = { "user",  "kernel", "JIT",
						    "inlined", "waker", "Python" };

/* The width of a legend of n entries whose labels are chars long in all. */
static double legend_width(const struct svg_opts *o, int n, size_t chars)
{
	return n * (o->fontsize * 0.9 + 4) + (chars + 3 * (n - 1)) * o->fontsize * o->fontwidth;
}

/* Draws a swatch and its label at x; returns where the next one goes. */
static double legend_entry(FILE *f, const struct svg_opts *o, double x, double y, struct rgb c,
			   const char *label)
{
	double sw = o->fontsize * 0.9;

	fprintf(f,
		"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
		"fill=\"rgb(%d,%d,%d)\"/><text x=\"%.2f\" y=\"%.2f\">%s</text>",
		x, y - sw + 1, sw, sw, c.r, c.g, c.b, x + sw + 4, y, label);
	return x + legend_width(o, 1, strlen(label) + 3);
}

static void put_legend(FILE *f, const struct svg_opts *o, const struct layout *L)
{
	double x = XPAD;

	fputs("<g id=\"legend\">", f);
	for (int k = 0; k < KIND_COUNT; k++)
		if (k == KIND_USER || (L->listed & (1u << k)))
			x = legend_entry(f, o, x, L->legend_y,
					 palette_kind_color(o->palette, (enum frame_kind)k),
					 KIND_LABEL[k]);
	fputs("</g>\n", f);
}

/* What time the colours stand for: on-CPU (every kind the kind legend
 * lists), blocked, and the wakers', whose frames are neither. */
static const char *const OFFCPU_LABEL[] = { "on-CPU", "off-CPU (blocked)", "waker" };

static int offcpu_entries(uint32_t kinds)
{
	return kinds & (1u << KIND_WAKER) ? 3 : 2;
}

static void put_offcpu_legend(FILE *f, uint32_t kinds, const struct svg_opts *o,
			      const struct layout *L)
{
	struct rgb c[] = { palette_kind_color(o->palette, KIND_USER), palette_blocked_swatch(),
			   palette_kind_color(o->palette, KIND_WAKER) };
	double x = L->offcpu_x;

	fputs("<g id=\"offcpu-legend\">", f);
	for (int i = 0; i < offcpu_entries(kinds); i++)
		x = legend_entry(f, o, x, L->offcpu_y, c[i], OFFCPU_LABEL[i]);
	fputs("</g>\n", f);
}

/* The legend band under the titles: the kinds at the left, the off-CPU
 * legend at the right, or on a row of its own when the two would meet. */
static void place_legends(struct layout *L, uint32_t kinds, const struct svg_opts *o)
{
	double kinds_end = XPAD, w;
	size_t chars = 0;

	for (int k = 0; k < KIND_COUNT; k++)
		if (k == KIND_USER || (L->listed & (1u << k)))
			kinds_end += legend_width(o, 1, strlen(KIND_LABEL[k]) + 3);
	L->legend_y = L->top + o->fontsize / 2;
	L->top += o->fontsize * 2;
	if (!L->blocked)
		return;
	for (int i = 0; i < offcpu_entries(kinds); i++)
		chars += strlen(OFFCPU_LABEL[i]);
	/* A character to spare: the widths are the font's average. */
	w = legend_width(o, offcpu_entries(kinds), chars + 1);
	L->offcpu_x = fmax(XPAD, L->width - XPAD - w);
	L->offcpu_y = L->legend_y;
	if (L->listed && kinds_end > L->offcpu_x) {
		L->offcpu_y = L->top + o->fontsize / 2;
		L->top += o->fontsize * 2;
	}
}

static void put_config(FILE *f, const struct svg_opts *o, const struct layout *L,
		       const struct heatmap *h)
{
	/* Numbers only: no user-controlled text ever reaches a script. */
	fprintf(f,
		"<script type=\"text/ecmascript\"><![CDATA[\n"
		"var fgConf = { xpad: %g, width: %.15g, total: %.17g, fontsize: %g, "
		"fontwidth: %g, inverted: %s, diff: %s",
		XPAD, L->width, L->timemax, o->fontsize, o->fontwidth,
		o->inverted ? "true" : "false", L->maxdelta > 0 ? "true" : "false");
	/* Counts that are times: the nanoseconds in one, for search totals. */
	if (o->ns_per_count > 0)
		fprintf(f, ", ns: %.17g", o->ns_per_count);
	/* A search cannot see frames that are not drawn: its share is then
	 * only a lower bound, and says so. */
	if (L->omitted)
		fprintf(f, ", omitted: %zu", L->omitted);
	/* What a range view needs to draw frames as these are drawn. */
	if (h)
		fprintf(f,
			",\nheat: { x: %.15g, y: %.15g, cw: %.15g, rh: %.15g, rows: %u, cols: %llu, "
			"rowNs: %.15g, t0: %.15g, time: %s },\n"
			"fh: %.15g, y0: %.15g, depthmax: %u, minw: %.15g, minwPct: %s, maxframes: %.15g, "
			"blocked: %s, factor: %.17g",
			h->x, h->y, h->cw, h->rh, h->rows, (unsigned long long)h->cols, h->row_ns,
			(double)h->t0_ns / 1e9, h->time ? "true" : "false", L->fh,
			frame_y(L, o->inverted, 0), L->depthmax, o->minwidth,
			o->minwidth_pct ? "true" : "false", o->minwidth_set ? 0 : o->maxframes,
			L->blocked ? "true" : "false", o->factor);
	fputs(" };\n]]></script>\n", f);
}

double svg_min_count(const struct svg_opts *o, double timemax)
{
	double wpt = (o->width - 2 * XPAD) / timemax;

	return (o->minwidth_pct ? o->minwidth / 100 * (o->width - 2 * XPAD) : o->minwidth) / wpt;
}

/* The graph of src; t is the tree src is made of, or NULL: a differential
 * or a heatmap (tl) needs one. */
static void write_graph(FILE *f, const struct frame_source *src, struct frame_tree *t,
			const struct svg_opts *o, struct timeline *tl)
{
	struct layout L = { 0 };
	double total = src->total;
	const struct frame_tree *diff = t && t->before ? t : NULL;
	struct writer w = { f, o, &L, diff };
	struct measurer m = { &L, diff };
	size_t omitted = 0;
	struct heatmap heat, *h = tl && tl->n ? &heat : NULL;
	struct preorder pre = { 0 };

	L.width = o->width;
	L.fh = o->frameheight;
	L.fontsize = o->fontsize;
	L.timemax = o->total > total ? o->total : total;
	L.wpt = (L.width - 2 * XPAD) / L.timemax;
	L.minw = svg_min_count(o, L.timemax);
	if (!o->minwidth_set && o->maxframes > 0)
		L.minw = budget_min(src, L.minw, o->maxframes, &omitted);
	src->walk(src, L.minw, measure, &m);
	L.omitted = src->nonzero;
	L.omitted -= L.drawn < L.omitted ? L.drawn : L.omitted;
	L.title_y = o->fontsize * 2;
	L.top = o->fontsize * 3;
	if (o->subtitle) {
		L.subtitle_y = L.top + o->fontsize / 2;
		L.top += o->fontsize * 2;
	}
	if (!diff && palette_uses_kinds(o->palette)) {
		L.blocked = L.nblocked > 0;
		/* The off-CPU legend has the wakers. */
		L.listed = src->kinds & ~1u & ~(L.blocked ? 1u << KIND_WAKER : 0);
		L.legend = L.listed || L.blocked;
	}
	if (L.legend)
		place_legends(&L, src->kinds, o);
	if (h) {
		tree_preorder(t, &pre);
		timeline_sort(tl, pre.order);
		heatmap_plan(h, tl, o, XPAD, L.top, L.width - 2 * XPAD);
		L.top += h->height;
	}
	L.bottom = o->fontsize * 2 + 10;
	L.height = L.top + (L.depthmax + 1) * L.fh + L.bottom;

	put_header(f, o, L.width, L.height, h != NULL);
	if (omitted)
		fprintf(f, "<!-- %zu frames narrower than %.2f px are not drawn: the frame "
			   "budget is %.0f; an explicit minimum width draws them -->\n",
			omitted, L.minw * L.wpt, o->maxframes);
	put_text(f, "title", NULL, L.width / 2, L.title_y, o->title);
	if (o->subtitle)
		put_text(f, "subtitle", NULL, L.width / 2, L.subtitle_y, o->subtitle);
	fprintf(f, "<text id=\"details\" x=\"%.2f\" y=\"%.2f\" data-nametype=\"", XPAD,
		L.height - L.bottom / 2 + o->fontsize / 3);
	xml_puts(f, o->nametype);
	if (h) {
		fputs("\" data-countname=\"", f);
		xml_puts(f, o->countname);
	}
	fputs("\"> </text>\n", f);
	put_text(f, "unzoom", "hide", XPAD, L.title_y, "Reset Zoom");
	put_text(f, "search", NULL, L.width - XPAD - 100, L.title_y, "Search");
	put_text(f, "ignorecase", NULL, L.width - XPAD - 16, L.title_y, "ic");
	put_text(f, "matched", NULL, L.width - XPAD - 100, L.height - L.bottom / 2 + o->fontsize / 3,
		 " ");
	if (L.listed)
		put_legend(f, o, &L);
	if (L.blocked)
		put_offcpu_legend(f, src->kinds, o, &L);
	if (h)
		heatmap_write(f, h, tl, o);
	/* Zooming scales #frames; the clip keeps it inside the margins. */
	fprintf(f, "<defs><clipPath id=\"fgclip\"><rect x=\"%.2f\" y=\"0\" width=\"%.2f\" "
		   "height=\"%.2f\"/></clipPath></defs>\n<g clip-path=\"url(#fgclip)\">\n"
		   "<g id=\"frames\">\n",
		XPAD, L.width - 2 * XPAD, L.height);
	src->walk(src, L.minw, draw, &w);
	fputs("</g>\n</g>\n", f);
	if (h)
		timeline_data_write(f, t, tl, &pre, h, o, L.blocked, L.legend);
	put_config(f, o, &L, h);
	if (h)
		preorder_free(&pre);
	fputs("<script type=\"text/ecmascript\"><![CDATA[\n", f);
	fputs(svg_script_js, f);
	fputs("]]></script>\n</svg>\n", f);
}

void svg_write(FILE *f, struct frame_tree *t, const struct svg_opts *o, struct timeline *tl)
{
	struct tree_source ts = { t, false };
	struct frame_source src = { .total = t->nodes[0].count, .kinds = t->kinds,
				    .counts = tree_counts, .walk = tree_walk, .data = &ts };

	for (size_t i = 0; i < t->n; i++)
		src.nonzero += t->nodes[i].count > 0;
	/* A range may draw any node: all are ordered, once, as the graph is. */
	if (tl && tl->n) {
		for (size_t i = 0; i < t->n; i++)
			ft_sort_children(t, (uint32_t)i);
		ts.sorted = true;
	}
	write_graph(f, &src, t, o, tl);
}

void svg_write_frames(FILE *f, const struct frame_source *src, const struct svg_opts *o)
{
	write_graph(f, src, NULL, o, NULL);
}
