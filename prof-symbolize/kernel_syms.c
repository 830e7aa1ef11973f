#include "kernel_syms.h"

#include <stdlib.h>

#include "diag.h"

void kernel_syms_add(struct kernel_syms *k, const struct cap_ksym *rec)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? k->cap * 2 : 256;
		k->syms = xreallocarray(k->syms, k->cap, sizeof(*k->syms));
	}
	k->syms[k->n++] = (struct kernel_sym){
		.start = rec->start,
		.end = rec->end,
		.name = xstrndup(rec->name.s, rec->name.len),
		.module = xstrndup(rec->module.s, rec->module.len),
	};
	k->sorted = false;
}

static int by_start(const void *a, const void *b)
{
	const struct kernel_sym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

const struct kernel_sym *kernel_syms_find(struct kernel_syms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;

	/* KSYM records arrive in bursts before the stacks that need them, so
	 * sorting at the first lookup after a burst is cheap. */
	if (!k->sorted && k->n) {
		qsort(k->syms, k->n, sizeof(*k->syms), by_start);
		k->sorted = true;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= k->syms[lo - 1].end)
		return NULL;
	return &k->syms[lo - 1];
}

void kernel_syms_free(struct kernel_syms *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->syms[i].name);
		free(k->syms[i].module);
	}
	free(k->syms);
}
