#include "kernel_syms.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "kallsyms_line.h"
#include "sort.h"
#include "upper_bound.h"

void kernel_syms_add(struct kernel_syms *k, const struct cap_ksym *rec)
{
	k->syms = xreserve(k->syms, &k->cap, k->n + 1, sizeof(*k->syms));
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
	size_t lo;

	/* KSYM records arrive in bursts before the stacks that need them, so
	 * sorting at the first lookup after a burst is cheap. */
	if (!k->sorted && k->n) {
		sort_array(k->syms, k->n, sizeof(*k->syms), by_start);
		k->sorted = true;
	}
	lo = UPPER_BOUND(k->syms, k->n, start, addr);
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

bool kernel_syms_load_kallsyms(struct kernel_syms *k, const char *path, char *why, size_t whylen)
{
	FILE *f = fopen(path, "re");
	char line[KALLSYMS_LINE_MAX];
	struct kallsyms_line l;
	size_t nonzero = 0;

	if (!f) {
		snprintf(why, whylen, "%m");
		return false;
	}
	while (kallsyms_line_next_code(f, line, &l)) {
		nonzero += l.addr != 0;
		struct cap_ksym rec = { l.addr, l.addr, { l.name, (uint16_t)l.name_len },
					{ l.module, (uint16_t)l.module_len } };
		kernel_syms_add(k, &rec);
	}
	fclose(f);
	if (!nonzero) {
		snprintf(why, whylen, "no symbol addresses (hidden by kptr_restrict to non-root?)");
		kernel_syms_free(k);
		memset(k, 0, sizeof(*k));
		return false;
	}
	kernel_syms_find(k, 0);
	for (size_t i = 0; i < k->n; i++)
		k->syms[i].end = i + 1 < k->n ? k->syms[i + 1].start
					      : kallsyms_last_end(k->syms[i].start);
	return true;
}
