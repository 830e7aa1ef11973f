#include "kallsyms.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "kallsyms_line.h"
#include "sort.h"
#include "upper_bound.h"

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

bool kallsyms_load(struct kallsyms *ks, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[KALLSYMS_LINE_MAX];
	struct kallsyms_line l;
	size_t cap = 0, strcap = 0, used = 0;
	bool nonzero = false;

	memset(ks, 0, sizeof(*ks));
	if (!f)
		return false;
	while (kallsyms_line_next_code(f, line, &l)) {
		ks->syms = xreserve_from(ks->syms, &cap, ks->n + 1, sizeof(*ks->syms), 65536);
		size_t nl = l.name_len + 1, ml = l.module_len + 1;
		if (used + nl + ml > strcap) {
			strcap = (strcap ? strcap * 2 : 1 << 22) + nl + ml;
			ks->strings = xrealloc(ks->strings, strcap);
		}
		/* Stash offsets in the pointers until the buffer is final. */
		ks->syms[ks->n] = (struct ksym){
			.start = l.addr,
			.name = (const char *)(uintptr_t)used,
			.module = (const char *)(uintptr_t)(used + nl),
		};
		char *name = ks->strings + used, *module = name + nl;
		memcpy(name, l.name, l.name_len);
		name[l.name_len] = '\0';
		memcpy(module, l.module, l.module_len);
		module[l.module_len] = '\0';
		used += nl + ml;
		nonzero |= l.addr != 0;
		ks->n++;
	}
	fclose(f);
	if (!nonzero) {
		kallsyms_free(ks);
		errno = EPERM;
		return false;
	}
	for (size_t i = 0; i < ks->n; i++) {
		ks->syms[i].name = ks->strings + (uintptr_t)ks->syms[i].name;
		ks->syms[i].module = ks->strings + (uintptr_t)ks->syms[i].module;
	}
	sort_array(ks->syms, ks->n, sizeof(*ks->syms), by_addr);
	for (size_t i = 0; i < ks->n; i++)
		ks->syms[i].end = i + 1 < ks->n ? ks->syms[i + 1].start
						: kallsyms_last_end(ks->syms[i].start);
	return true;
}

void kallsyms_free(struct kallsyms *ks)
{
	free(ks->syms);
	free(ks->strings);
	memset(ks, 0, sizeof(*ks));
}

struct ksym *kallsyms_find(struct kallsyms *ks, uint64_t addr)
{
	size_t lo = UPPER_BOUND(ks->syms, ks->n, start, addr);

	if (lo == 0)
		return NULL;
	struct ksym *s = &ks->syms[lo - 1];
	return addr < s->end ? s : NULL;
}

uint32_t kallsyms_tracing_frames(struct kallsyms *ks, const uint64_t *ips, uint32_t nr)
{
	static const char *const dispatch[] = { "bpf_trace_run", "__bpf_trace_", "__traceiter_" };
	uint32_t i;

	for (i = 0; i < nr; i++) {
		const struct ksym *k = kallsyms_find(ks, ips[i]);
		bool tracing = k && strcmp(k->module, "bpf") == 0;

		for (size_t d = 0; k && !tracing && d < sizeof(dispatch) / sizeof(dispatch[0]); d++)
			tracing = strncmp(k->name, dispatch[d], strlen(dispatch[d])) == 0;
		if (!tracing)
			break;
	}
	return i;
}
