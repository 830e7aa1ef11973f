/*
 * --diff BEFORE AFTER: each frame's change of share with its interval, and
 * which changed beyond sampling noise (common/share_diff.c), and whether any
 * rose by more than --threshold (and beyond noise), for an exit status CI
 * can gate on: a real change too small to matter passes, and so does noise
 * however large.
 *
 * A frame is a path from the root, as a flame graph draws it: its count is
 * inclusive, the sum of the stacks it begins.  Both profiles are folded
 * timed; each is cut into batches of its own time, and a frame's count in
 * a batch is the sum of its stacks' counts in the batch's slots.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "fold.h"
#include "share_diff.h"
#include "sort.h"

/* One profile's view: its batching, and by batch its total. */
struct side {
	struct fold_agg *agg;
	struct batching b;
	double *total; /* by batch */
	double sum;
};

static void side_plan(struct side *s, const char *name)
{
	struct agg_timed *t = s->agg->timed;
	uint64_t *starts;

	if (!s->agg->ntimed)
		errx(EXIT_USAGE, "%s: no sample with a time: --diff compares profiles in time "
		     "(prof-symbolize frames, perf script with times, or prof-fold --timed)", name);
	starts = xreallocarray(NULL, s->agg->ntimed, sizeof(*starts));
	for (size_t i = 0; i < s->agg->ntimed; i++)
		starts[i] = t[i].slot * s->agg->slot_ns;
	batching_plan(&s->b, starts, s->agg->ntimed, s->agg->slot_ns);
	free(starts);
	if (!s->b.n)
		errx(EXIT_USAGE, "%s: %zu slots of %.3g ms hold samples: --diff needs %d or more to "
		     "tell change from noise (a longer profile, or a finer --timed)", name,
		     s->b.nslots, (double)s->agg->slot_ns / 1e6, 2 * SHARE_BATCHES_MIN);
	s->total = xcalloc(s->b.n, sizeof(*s->total));
	for (size_t i = 0; i < s->agg->ntimed; i++) {
		s->total[batching_of(&s->b, t[i].slot * s->agg->slot_ns)] += (double)t[i].count;
		s->sum += (double)t[i].count;
	}
}

/* The frames of both profiles: every prefix of every stack, with its
 * inclusive totals; stacks know the frames they begin, by index. */
struct frames {
	struct htab *paths;	/* prefix -> index */
	double *sum[2];		/* by index: inclusive count in each profile */
	size_t cap;
	uint32_t **of[2];	/* by side and stack: its frames' indices */
	size_t *nof[2];
};

static void add_prefixes(struct frames *F, int side, struct fold_agg *a)
{
	struct htab_entry *e = htab_entries(a->stacks);
	size_t n = htab_count(a->stacks);

	F->nof[side] = xcalloc(n + 1, sizeof(*F->nof[side]));
	F->of[side] = xcalloc(n + 1, sizeof(*F->of[side]));
	for (size_t i = 0; i < n; i++) {
		const char *s = e[i].key;
		size_t len = e[i].len, k = 0, depth = 1;
		for (size_t j = 0; j < len; j++)
			depth += s[j] == ';';
		uint32_t *of = xreallocarray(NULL, depth, sizeof(*of));
		for (size_t j = 0; j <= len; j++) {
			if (j < len && s[j] != ';')
				continue;
			bool created;
			struct htab_entry *p = htab_upsert(F->paths, s, j, &created);
			size_t idx = (size_t)(p - htab_entries(F->paths));
			if (created) {
				size_t cap = F->cap;
				F->sum[0] = xreserve(F->sum[0], &F->cap, idx + 1, sizeof(double));
				if (F->cap != cap)
					F->sum[1] = xreallocarray(F->sum[1], F->cap, sizeof(double));
				F->sum[0][idx] = F->sum[1][idx] = 0;
			}
			F->sum[side][idx] += (double)e[i].val.u;
			of[k++] = (uint32_t)idx;
		}
		F->of[side][i] = of;
		F->nof[side][i] = k;
	}
}

struct change {
	size_t frame;
	double before, after;
	struct share_change c;
};

static int by_delta(const void *x, const void *y)
{
	const struct change *a = x, *b = y;

	if (a->c.delta != b->c.delta)
		return a->c.delta > b->c.delta ? -1 : 1;
	return (a->frame > b->frame) - (a->frame < b->frame);
}

/* A share, in percent, with its sign when asked. */
static void put_pct(FILE *out, double v, bool sign)
{
	fprintf(out, sign ? "%+.2f%%" : "%.2f%%", 100 * v);
}

bool fold_compare(struct fold_agg *before, struct fold_agg *after, const char *names[2],
		  double threshold, FILE *out)
{
	struct side S[2] = { { .agg = before }, { .agg = after } };
	struct frames F = { .paths = htab_new() };
	size_t nframes, m = 0, n = 0, nchanged = 0;
	bool failed = false;

	for (int k = 0; k < 2; k++)
		side_plan(&S[k], names[k]);
	for (int k = 0; k < 2; k++)
		add_prefixes(&F, k, S[k].agg);
	nframes = htab_count(F.paths);

	/* The frames compared, and their counts by batch in each profile. */
	size_t *slot = xreallocarray(NULL, nframes + 1, sizeof(*slot));
	for (size_t i = 0; i < nframes; i++) {
		slot[i] = share_compared(F.sum[0][i], S[0].sum, F.sum[1][i], S[1].sum) ? m++ : SIZE_MAX;
	}
	double *count[2];
	for (int k = 0; k < 2; k++) {
		struct agg_timed *t = S[k].agg->timed;
		count[k] = xcalloc(m * S[k].b.n + 1, sizeof(double));
		for (size_t i = 0; i < S[k].agg->ntimed; i++) {
			size_t j = batching_of(&S[k].b, t[i].slot * S[k].agg->slot_ns);
			for (size_t f = 0; f < F.nof[k][t[i].stack]; f++) {
				size_t at = slot[F.of[k][t[i].stack][f]];
				if (at != SIZE_MAX)
					count[k][at * S[k].b.n + j] += (double)t[i].count;
			}
		}
	}

	struct change *ch = xreallocarray(NULL, m + 1, sizeof(*ch));
	for (size_t i = 0; i < nframes; i++) {
		size_t at = slot[i];
		if (at == SIZE_MAX)
			continue;
		struct share a = share_estimate(count[0] + at * S[0].b.n, S[0].total, S[0].b.n);
		struct share b = share_estimate(count[1] + at * S[1].b.n, S[1].total, S[1].b.n);
		struct share_change c = share_compare(a, b, m);
		nchanged += c.significant;
		ch[n++] = (struct change){ i, a.p, b.p, c };
	}
	sort_array(ch, n, sizeof(*ch), by_delta);

	fprintf(out, "# %zu of %zu frames changed beyond noise (intervals at %.4g%% each, "
		     "%.0f%% for all %zu together); %s: %zu batches of %.3g s, %s: %zu of %.3g s\n",
		nchanged, m, 100 * (1 - SHARE_ALPHA / (double)(m ? m : 1)), 100 * (1 - SHARE_ALPHA), m,
		names[0], S[0].b.n, (double)S[0].b.span_ns / 1e9, names[1], S[1].b.n,
		(double)S[1].b.span_ns / 1e9);
	fprintf(out, "# mark change [interval] before after frame; \"*\": beyond noise, \"!\": "
		     "and rose by more than %.4g%%\n", 100 * threshold);
	for (size_t i = 0; i < n; i++) {
		const struct htab_entry *e = &htab_entries(F.paths)[ch[i].frame];
		bool gate = ch[i].c.significant && ch[i].c.delta > threshold;
		failed |= gate;
		fputs(gate ? "! " : ch[i].c.significant ? "* " : "  ", out);
		put_pct(out, ch[i].c.delta, true);
		fputs(" [", out);
		put_pct(out, ch[i].c.lo, true);
		fputs(", ", out);
		put_pct(out, ch[i].c.hi, true);
		fputs("] ", out);
		put_pct(out, ch[i].before, false);
		fputc(' ', out);
		put_pct(out, ch[i].after, false);
		fputc(' ', out);
		fwrite(e->key, 1, e->len, out);
		fputc('\n', out);
	}

	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < htab_count(S[k].agg->stacks); i++)
			free(F.of[k][i]);
		free(F.of[k]);
		free(F.nof[k]);
		free(count[k]);
		free(S[k].total);
	}
	free(F.sum[0]);
	free(F.sum[1]);
	free(slot);
	free(ch);
	htab_free(F.paths);
	return failed;
}
