#include "timeline.h"

#include <stdlib.h>

#include "diag.h"
#include "sort.h"

void timeline_add(struct timeline *tl, uint64_t start_ns, uint32_t node, double count)
{
	if (!(count > 0))
		return;
	tl->recs = xreserve(tl->recs, &tl->cap, tl->n + 1, sizeof(*tl->recs));
	tl->recs[tl->n++] = (struct time_count){ start_ns, node, count };
}

static int by_time_node(const void *x, const void *y)
{
	const struct time_count *a = x, *b = y;

	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	return (a->node > b->node) - (a->node < b->node);
}

void timeline_sort(struct timeline *tl, const uint32_t *order)
{
	size_t k = 0;

	for (size_t i = 0; i < tl->n; i++)
		tl->recs[i].node = order[tl->recs[i].node];
	sort_array(tl->recs, tl->n, sizeof(*tl->recs), by_time_node);
	for (size_t i = 0; i < tl->n; i++) {
		if (k && tl->recs[k - 1].start_ns == tl->recs[i].start_ns &&
		    tl->recs[k - 1].node == tl->recs[i].node)
			tl->recs[k - 1].count += tl->recs[i].count;
		else
			tl->recs[k++] = tl->recs[i];
	}
	tl->n = k;
}

void timeline_free(struct timeline *tl)
{
	free(tl->recs);
	tl->recs = NULL;
	tl->n = tl->cap = 0;
}
