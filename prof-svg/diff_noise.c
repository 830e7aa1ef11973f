#include "diff_noise.h"

#include <math.h>
#include <stdlib.h>

#include "diag.h"

/* tl's batching. */
static void plan(struct batching *b, const struct timeline *tl)
{
	uint64_t *starts = xreallocarray(NULL, tl->n + 1, sizeof(*starts));

	for (size_t i = 0; i < tl->n; i++)
		starts[i] = tl->recs[i].start_ns;
	batching_plan(b, starts, tl->n, tl->slot_ns);
	free(starts);
}

bool diff_noise(struct diff_noise *d, const struct frame_tree *t, struct timeline *before,
		struct timeline *after, const char **why)
{
	struct timeline *tl[2] = { before, after };
	struct batching b[2];
	double total[2] = { t->before[0], t->nodes[0].count }, *sum[2], *count[2];
	size_t *slot = xreallocarray(NULL, t->n, sizeof(*slot));

	*d = (struct diff_noise){ 0 };
	for (int k = 0; k < 2; k++) {
		plan(&b[k], tl[k]);
		d->nbatches[k] = b[k].n;
	}
	if (!b[0].n || !b[1].n) {
		*why = !tl[0]->slot_ns || !tl[1]->slot_ns ? "an input has no time lines"
							 : "an input has too few slots of time";
		free(slot);
		return false;
	}
	/* Frames too small in both are not compared. */
	for (size_t i = 0; i < t->n; i++) {
		bool big = share_compared(t->before[i], total[0], t->nodes[i].count, total[1]);
		slot[i] = big && i ? d->m++ : SIZE_MAX;
	}
	for (int k = 0; k < 2; k++) {
		sum[k] = xcalloc(b[k].n, sizeof(double));
		count[k] = xcalloc(d->m * b[k].n + 1, sizeof(double));
		/* A stack's count is its leaf's and every ancestor's. */
		for (size_t r = 0; r < tl[k]->n; r++) {
			const struct time_count *c = &tl[k]->recs[r];
			size_t j = batching_of(&b[k], c->start_ns);
			sum[k][j] += c->count;
			for (uint32_t i = c->node; i != FT_NONE && i != 0; i = t->nodes[i].parent)
				if (slot[i] != SIZE_MAX)
					count[k][slot[i] * b[k].n + j] += c->count;
		}
	}
	d->change = xcalloc(t->n, sizeof(*d->change));
	d->compared = xcalloc(t->n, sizeof(*d->compared));
	for (size_t i = 0; i < t->n; i++) {
		if (slot[i] == SIZE_MAX)
			continue;
		struct share p = share_estimate(count[0] + slot[i] * b[0].n, sum[0], b[0].n);
		struct share q = share_estimate(count[1] + slot[i] * b[1].n, sum[1], b[1].n);
		d->change[i] = share_compare(p, q, d->m);
		d->compared[i] = true;
		if (d->change[i].significant && fabs(d->change[i].delta) > d->maxdelta)
			d->maxdelta = fabs(d->change[i].delta);
	}
	for (int k = 0; k < 2; k++) {
		free(sum[k]);
		free(count[k]);
	}
	free(slot);
	return true;
}

void diff_noise_free(struct diff_noise *d)
{
	free(d->change);
	free(d->compared);
}
