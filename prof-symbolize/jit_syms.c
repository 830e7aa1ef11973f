#include "jit_syms.h"

#include <stdlib.h>

#include "diag.h"
#include "sort.h"
#include "upper_bound.h"

/* How far back from the last function starting at or below an address the
 * lookup looks for an older, longer one that covers it: JITs write small
 * functions side by side, and a hostile map must not make it linear. */
#define MAX_SCAN_BACK 64

void jit_syms_add(struct jit_syms *j, uint64_t start, uint64_t size, const char *name, size_t len)
{
	j->v = xreserve(j->v, &j->cap, j->n + 1, sizeof(*j->v));
	j->v[j->n++] = (struct jit_sym){ start, size, xstrndup(name, len) };
	if (size > j->max_size)
		j->max_size = size;
}

static const struct jit_sym *sorting;

static int by_start(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t sx = sorting[x].start, sy = sorting[y].start;

	return sx != sy ? (sx > sy) - (sx < sy) : (x > y) - (x < y);
}

static void reindex(struct jit_syms *j)
{
	j->order = xreallocarray(j->order, j->n, sizeof(*j->order));
	for (size_t i = 0; i < j->n; i++)
		j->order[i] = (uint32_t)i;
	sorting = j->v;
	sort_array(j->order, j->n, sizeof(*j->order), by_start);
	j->nordered = j->n;
}

/* The i-th start address, in address order. */
static uint64_t ordered_start(const void *ctx, size_t i)
{
	const struct jit_syms *j = ctx;

	return j->v[j->order[i]].start;
}

const struct jit_sym *jit_syms_find(struct jit_syms *j, uint64_t ip)
{
	const struct jit_sym *best = NULL;
	size_t lo;

	if (!j->n)
		return NULL;
	if (j->nordered != j->n)
		reindex(j);
	/* The first function starting past ip. */
	lo = upper_bound(j->n, ip, ordered_start, j);
	for (size_t k = lo, scanned = 0; k-- > 0 && scanned < MAX_SCAN_BACK; scanned++) {
		const struct jit_sym *s = &j->v[j->order[k]];
		if (ip - s->start >= j->max_size)
			break; /* none further back reaches ip */
		if (ip - s->start < s->size && (!best || s > best))
			best = s;
	}
	return best;
}

void jit_syms_free(struct jit_syms *j)
{
	for (size_t i = 0; i < j->n; i++)
		free(j->v[i].name);
	free(j->v);
	free(j->order);
	*j = (struct jit_syms){ 0 };
}
