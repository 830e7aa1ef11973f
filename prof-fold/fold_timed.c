/*
 * --timed: the counts of each stack by slot of time, and their output as
 * timed folded stacks (docs/FORMATS.md section 3): a time line per slot
 * that holds samples, in order of time, then that slot's stacks, bytewise
 * sorted as the untimed output is.  Summed over the slots, each stack's
 * count is its untimed count: readers that skip the time lines see the
 * same profile.
 *
 * A sample is charged to the slot its time falls in, its time being the
 * end of the slot it was taken in (prof-symbolize) or the instant it was
 * (perf script): the slot that holds (time - 1 ns).  Time blocked, whose
 * event line is the block's end and its count the nanoseconds it lasted,
 * is shared out over the slots it covered, so that a slot holds the time
 * threads spent blocked in it, not the waits that happened to end then; a
 * line of several blocks (prof-symbolize's "# blocks N") as N blocks of
 * equal length, all ending then.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "fold.h"
#include "folded.h"
#include "sort.h"

/* A blocked line covers at most this many slots (11.6 days of 1 s slots,
 * 2.9 hours of 10 ms ones); time before them is charged to the first. */
#define SPREAD_MAX ((uint64_t)1 << 20)

static void put(struct fold_agg *a, uint64_t slot, size_t stack, uint64_t count)
{
	struct agg_timed *t;

	if (!count)
		return;
	a->timed = xreserve(a->timed, &a->timed_cap, a->ntimed + 1, sizeof(*a->timed));
	t = &a->timed[a->ntimed++];
	t->slot = slot;
	t->stack = stack;
	t->count = count;
}

void agg_time(struct fold_agg *a, size_t stack, uint64_t end_ns, uint64_t count, uint64_t blocks)
{
	const uint64_t S = a->slot_ns;
	uint64_t last = end_ns ? (end_ns - 1) / S : 0, len, begin, first, left = count;

	if (!blocks || count <= 1) {
		put(a, last, stack, count);
		return;
	}
	/* Each block lasted its share of the count, and ended at end_ns. */
	len = count / blocks + (count % blocks != 0);
	begin = end_ns > len ? end_ns - len : 0;
	first = begin / S;
	if (last - first >= SPREAD_MAX) {
		first = last - (SPREAD_MAX - 1);
		begin = first * S;
	}
	/* The count of [t, end_ns), in proportion; what began before the
	 * slots kept goes to the first. */
#define SINCE(t) ((uint64_t)((unsigned __int128)count * (end_ns - (t)) / len))
	for (uint64_t k = last; k > first; k--) {
		uint64_t share = SINCE(k * S) - (k == last ? 0 : SINCE((k + 1) * S));
		put(a, k, stack, share);
		left -= share;
	}
#undef SINCE
	put(a, first, stack, left);
}

/* By slot, then by the stack's rank in the bytewise order. */
static int by_slot_rank(const void *x, const void *y)
{
	const struct agg_timed *p = x, *q = y;

	if (p->slot != q->slot)
		return p->slot < q->slot ? -1 : 1;
	return (p->stack > q->stack) - (p->stack < q->stack);
}

void agg_write_timed(struct fold_agg *a, FILE *out, struct htab_entry **sorted, size_t n)
{
	struct htab_entry *e = htab_entries(a->stacks);
	size_t *rank = xreallocarray(NULL, htab_count(a->stacks) + 1, sizeof(*rank)), k = 0;

	/* Stacks a filter dropped rank past the end, and are left out. */
	for (size_t i = 0; i < htab_count(a->stacks); i++)
		rank[i] = SIZE_MAX;
	for (size_t i = 0; i < n; i++)
		rank[sorted[i] - e] = i;
	for (size_t i = 0; i < a->ntimed; i++)
		if (rank[a->timed[i].stack] != SIZE_MAX) {
			a->timed[k] = a->timed[i];
			a->timed[k++].stack = rank[a->timed[i].stack];
		}
	sort_array(a->timed, k, sizeof(*a->timed), by_slot_rank);
	for (size_t i = 0; i < k;) {
		uint64_t slot = a->timed[i].slot;
		folded_write_time(out, slot * a->slot_ns, a->slot_ns);
		for (; i < k && a->timed[i].slot == slot;) {
			size_t s = a->timed[i].stack;
			uint64_t sum = 0;
			for (; i < k && a->timed[i].slot == slot && a->timed[i].stack == s; i++)
				sum = sum + a->timed[i].count < sum ? UINT64_MAX : sum + a->timed[i].count;
			folded_write_stack(out, sorted[s]->key, sorted[s]->len, sum);
		}
	}
	free(rank);
}
