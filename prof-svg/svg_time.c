#include "svg_time.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "number_text.h"
#include "palette.h"
#include "palette_map.h"
#include "xml_text.h"

#define NS 1000000000ull
/* FlameScope's 50 rows a second: 20 ms, finer than a human reads a
 * stall, coarser than the default slot. */
#define ROWS_MAX 50u
#define ROW_PX 4.0

void heatmap_plan(struct heatmap *h, const struct timeline *tl, const struct svg_opts *o,
		  double x, double y, double width)
{
	uint64_t first = tl->recs[0].start_ns, last = tl->recs[tl->n - 1].start_ns;

	memset(h, 0, sizeof(*h));
	h->t0_ns = first / NS * NS;
	h->cols = (last - h->t0_ns) / NS + 1;
	h->rows = tl->slot_ns >= NS ? 1 : NS / tl->slot_ns < ROWS_MAX ? (unsigned)(NS / tl->slot_ns)
								   : ROWS_MAX;
	h->row_ns = (double)NS / h->rows;
	h->x = x;
	h->cw = width / (double)h->cols;
	h->rh = h->rows == 1 ? ROW_PX * 4 : ROW_PX;
	/* A caption line above the cells, the seconds below them. */
	h->y = y + o->fontsize * 1.5;
	h->height = o->fontsize * 1.5 + h->rows * h->rh + o->fontsize * 1.6;
	h->time = o->ns_per_count > 0;
	/* The largest cell: the counts come in order of time, and so cells in
	 * order of column and row. */
	double cell = 0;
	uint64_t at = UINT64_MAX;
	for (size_t i = 0; i < tl->n; i++) {
		uint64_t rel = tl->recs[i].start_ns - h->t0_ns;
		uint64_t c = rel / NS * h->rows + (uint64_t)((double)(rel % NS) / h->row_ns);
		if (c != at)
			cell = 0, at = c;
		cell += tl->recs[i].count;
		if (cell > h->max)
			h->max = cell;
	}
}

/* Pale for little to deep red for the most samples, or to deep blue for
 * the most time blocked; an empty cell is not drawn. */
static void heat_color(FILE *f, double v, double max, bool time)
{
	double k = max > 0 ? v / max : 0;
	long deep = lround(255 - 75 * k), pale = lround(230 * (1 - k)), mid = lround(215 * (1 - k));

	fputs(" fill=\"rgb(", f);
	put_int(f, time ? mid : deep);
	fputc(',', f);
	put_int(f, pale);
	fputc(',', f);
	put_int(f, time ? deep : mid);
	fputs(")\"", f);
}

static void put_cell(FILE *f, const struct heatmap *h, uint64_t cell, double v)
{
	uint64_t c = cell / h->rows, r = cell % h->rows;

	fputs("<rect x=\"", f);
	put_fixed(f, h->x + (double)c * h->cw, 2);
	fputs("\" y=\"", f);
	put_fixed(f, h->y + (double)r * h->rh, 2);
	fputs("\" width=\"", f);
	put_fixed(f, h->cw, 3);
	fputs("\" height=\"", f);
	put_fixed(f, h->rh, 2);
	fputs("\" data-n=\"", f);
	put_g15(f, v);
	fputs("\"", f);
	heat_color(f, v, h->max, h->time);
	fputs("/>\n", f);
}

void heatmap_write(FILE *f, const struct heatmap *h, const struct timeline *tl,
		   const struct svg_opts *o)
{
	char text[160];
	double cell = 0;
	uint64_t at = UINT64_MAX, step;

	snprintf(text, sizeof(text),
		 "Time: a column a second, a row every %.0f ms of it (the first at the top): "
		 "drag over it to draw that range",
		 h->row_ns / 1e6);
	fprintf(f, "<g id=\"heatmap\">\n<text id=\"heat-caption\" x=\"%.2f\" y=\"%.2f\">", h->x,
		h->y - o->fontsize * 0.4);
	xml_puts(f, text);
	fputs("</text>\n", f);
	fprintf(f, "<rect id=\"heat-bg\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
		   "fill=\"rgb(250,250,250)\" stroke=\"rgb(200,200,200)\" stroke-width=\"0.5\"/>\n",
		h->x, h->y, h->cw * (double)h->cols, h->rh * h->rows);
	fputs("<g id=\"heat-cells\">\n", f);
	for (size_t i = 0; i < tl->n; i++) {
		uint64_t rel = tl->recs[i].start_ns - h->t0_ns;
		uint64_t c = rel / NS * h->rows + (uint64_t)((double)(rel % NS) / h->row_ns);
		if (c != at) {
			if (at != UINT64_MAX)
				put_cell(f, h, at, cell);
			cell = 0, at = c;
		}
		cell += tl->recs[i].count;
	}
	if (at != UINT64_MAX)
		put_cell(f, h, at, cell);
	fputs("</g>\n", f);
	/* Seconds under the columns, at most one label per 40 px. */
	step = 1;
	while (h->cw * (double)step < 40)
		step = step < 5 ? step + (step == 1 ? 1 : 3) : step * 2;
	for (uint64_t c = 0; c < h->cols; c += step)
		fprintf(f, "<text class=\"heat-sec\" x=\"%.2f\" y=\"%.2f\">%llus</text>\n",
			h->x + (double)c * h->cw, h->y + h->rows * h->rh + o->fontsize * 1.1,
			(unsigned long long)c);
	/* The range drawn, outlined by the script; and the way back. */
	fputs("<path id=\"heat-sel\" d=\"\" fill=\"rgb(0,120,255)\" fill-opacity=\"0.25\" "
	      "stroke=\"rgb(0,80,200)\" stroke-width=\"1\"/>\n", f);
	fprintf(f, "<text id=\"heat-range\" x=\"%.2f\" y=\"%.2f\"> </text>\n",
		h->x + h->cw * (double)h->cols, h->y - o->fontsize * 0.4);
	fputs("</g>\n", f);
}

void tree_preorder(const struct frame_tree *t, struct preorder *p)
{
	uint32_t *stack = xreallocarray(NULL, t->n, sizeof(*stack));
	unsigned *sdepth = xreallocarray(NULL, t->n, sizeof(*sdepth));
	size_t sp = 0;

	p->order = xreallocarray(NULL, t->n, sizeof(*p->order));
	p->nodes = xreallocarray(NULL, t->n, sizeof(*p->nodes));
	p->depth = xreallocarray(NULL, t->n, sizeof(*p->depth));
	p->n = 0;
	stack[sp] = 0;
	sdepth[sp++] = 0;
	while (sp) {
		uint32_t i = stack[--sp];
		unsigned d = sdepth[sp];
		size_t first = sp;
		p->order[i] = p->n;
		p->nodes[p->n] = i;
		p->depth[p->n++] = d;
		for (uint32_t c = t->nodes[i].child; c != FT_NONE; c = t->nodes[c].sibling) {
			stack[sp] = c;
			sdepth[sp++] = d + 1;
		}
		/* The first child on top. */
		for (size_t a = first, b = sp; b > a + 1; a++, b--) {
			uint32_t s = stack[a];
			stack[a] = stack[b - 1];
			stack[b - 1] = s;
		}
	}
	free(stack);
	free(sdepth);
}

void preorder_free(struct preorder *p)
{
	free(p->order);
	free(p->nodes);
	free(p->depth);
}

static void put_base36(FILE *f, uint32_t v)
{
	char buf[8];
	int n = 0;

	do
		buf[n++] = "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36];
	while (v /= 36);
	while (n)
		fputc(buf[--n], f);
}

static void put_hex(FILE *f, struct rgb c)
{
	fprintf(f, "%02x%02x%02x", c.r, c.g, c.b);
}

/* The names, one a line: a line break in one (a lone '\r') would split
 * it, and is written as U+FFFD. */
static void put_names(FILE *f, const struct frame_tree *t)
{
	fputs("<metadata id=\"fg-names\">", f);
	for (size_t i = 0; i < nt_count(t->names); i++) {
		size_t len;
		const char *s = nt_name(t->names, (uint32_t)i, &len), *end = s + len, *cr;
		while ((cr = memchr(s, '\r', (size_t)(end - s)))) {
			xml_put(f, s, (size_t)(cr - s));
			fputs("\xef\xbf\xbd", f);
			s = cr + 1;
		}
		xml_put(f, s, (size_t)(end - s));
		fputc('\n', f);
	}
	fputs("</metadata>\n", f);
}

void timeline_data_write(FILE *f, struct frame_tree *t, const struct timeline *tl,
			 const struct preorder *p, const struct heatmap *h, const struct svg_opts *o,
			 bool blocked, bool legend)
{
	put_names(f, t);
	/* Each name's colour, then its colour when all its time is blocked. */
	fputs("<metadata id=\"fg-colors\">", f);
	for (size_t i = 0; i < nt_count(t->names); i++) {
		size_t len;
		const char *name = nt_name(t->names, (uint32_t)i, &len);
		struct rgb c = palette_frame_color(o->palette, o->hash, name, len, legend);
		if (o->palmap)
			c = palette_map_get(o->palmap, name, len, c);
		put_hex(f, c);
		put_hex(f, palette_blocked_color(o->hash, name, len));
		fputc(i % 16 == 15 ? '\n' : ' ', f);
	}
	fputs("</metadata>\n", f);

	/* The nodes past the root in preorder, each a name in base 36, after
	 * "!" when all its time is blocked, and after ",UP " when it is not
	 * the child of the node before it but of that node's UP-th ancestor's
	 * parent: 1.8 million nodes of deep C++ stacks take 8 MB so, 14 as
	 * pairs of decimal numbers, and the page loads at about 70 ms a MB. */
	fputs("<metadata id=\"fg-tree\">", f);
	for (uint32_t k = 1, prev = 0; k < p->n; k++) {
		uint32_t i = p->nodes[k], d = p->depth[k];
		if (prev + 1 > d) {
			fputc(',', f);
			put_base36(f, prev + 1 - d);
			fputc(' ', f);
		}
		if (blocked && ft_blocked(t, i))
			fputc('!', f);
		put_base36(f, t->nodes[i].name);
		fputc(k % 32 == 0 ? '\n' : ' ', f);
		prev = d;
	}
	fputs("</metadata>\n", f);

	/* A line a slot: its start from t0 in ns, then each leaf's preorder
	 * place in base 36 and its count. */
	fputs("<metadata id=\"fg-time\">", f);
	for (size_t i = 0; i < tl->n;) {
		uint64_t s = tl->recs[i].start_ns;
		fprintf(f, "%llu", (unsigned long long)(s - h->t0_ns));
		for (; i < tl->n && tl->recs[i].start_ns == s; i++) {
			fputc(' ', f);
			put_base36(f, tl->recs[i].node);
			fputc(' ', f);
			put_g15(f, tl->recs[i].count);
		}
		fputc('\n', f);
	}
	fputs("</metadata>\n", f);
}
