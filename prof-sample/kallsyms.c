#include "kallsyms.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

bool kallsyms_load(struct kallsyms *ks, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t linecap = 0, cap = 0, strcap = 0, used = 0;
	bool nonzero = false;
	ssize_t n;

	memset(ks, 0, sizeof(*ks));
	if (!f)
		return false;
	/* 120,000+ lines: split by hand, sscanf made start-up visibly slow. */
	while ((n = getline(&line, &linecap, f)) > 0) {
		char *end, *name, *mod = "", *p;
		unsigned long long addr;
		char type;

		if (line[n - 1] == '\n')
			line[--n] = '\0';
		errno = 0;
		addr = strtoull(line, &end, 16);
		if (end == line || errno == ERANGE || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		type = end[1];
		name = end + 3;
		if (!is_text(type) || !*name)
			continue;
		if ((p = strchr(name, '\t')) || (p = strchr(name, ' '))) {
			*p++ = '\0';
			if ((mod = strchr(p, '[')) && (p = strchr(++mod, ']')))
				*p = '\0';
			else
				mod = "";
		}
		if (ks->n == cap) {
			cap = cap ? cap * 2 : 65536;
			ks->syms = xreallocarray(ks->syms, cap, sizeof(*ks->syms));
		}
		size_t nl = strlen(name) + 1, ml = strlen(mod) + 1;
		if (used + nl + ml > strcap) {
			strcap = (strcap ? strcap * 2 : 1 << 22) + nl + ml;
			ks->strings = xrealloc(ks->strings, strcap);
		}
		/* Stash offsets in the pointers until the buffer is final. */
		ks->syms[ks->n] = (struct ksym){
			.start = addr,
			.name = (const char *)(uintptr_t)used,
			.module = (const char *)(uintptr_t)(used + nl),
		};
		memcpy(ks->strings + used, name, nl);
		memcpy(ks->strings + used + nl, mod, ml);
		used += nl + ml;
		nonzero |= addr != 0;
		ks->n++;
	}
	free(line);
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
	qsort(ks->syms, ks->n, sizeof(*ks->syms), by_addr);
	/* kallsyms has no sizes: a symbol ends where the next one starts.
	 * The last one gets a page, which is as much as perf assumes. */
	for (size_t i = 0; i < ks->n; i++)
		ks->syms[i].end = i + 1 < ks->n		      ? ks->syms[i + 1].start
				  : ks->syms[i].start > UINT64_MAX - 4096 ? UINT64_MAX
									  : ks->syms[i].start + 4096;
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
	size_t lo = 0, hi = ks->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ks->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	struct ksym *s = &ks->syms[lo - 1];
	return addr < s->end ? s : NULL;
}
