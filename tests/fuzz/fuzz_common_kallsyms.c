/*
 * libFuzzer target: the kallsyms reader both programs share
 * (common/kallsyms_line.c) on mutated symbol tables, through the bounded
 * line reading prof-sample and prof-symbolize use: every symbol handed
 * back must lie within the line buffer and the kernel's limits.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms_line.h"

static volatile uint64_t sink;

static void check(const char *buf, const struct kallsyms_line *l)
{
	if (l->name < buf || l->name + l->name_len > buf + KALLSYMS_LINE_MAX ||
	    l->name_len == 0 || l->name_len > KALLSYMS_NAME_MAX ||
	    l->module_len > KALLSYMS_MODULE_MAX ||
	    (l->module_len && (l->module < buf || l->module + l->module_len > buf + KALLSYMS_LINE_MAX)))
		abort();
	for (size_t i = 0; i < l->name_len; i++)
		if (l->name[i] == ' ' || l->name[i] == '\t' || l->name[i] == '\n' || !l->name[i])
			abort();
	sink += l->addr + (uint8_t)l->type;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[KALLSYMS_LINE_MAX];
	struct kallsyms_line l;
	FILE *f;

	if (size == 0)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		abort();
	while (kallsyms_line_next_code(f, buf, &l)) {
		if (l.type != 't' && l.type != 'T' && l.type != 'w' && l.type != 'W')
			abort();
		check(buf, &l);
	}
	fclose(f);
	/* The whole input as one line, unbounded by the reader. */
	if (kallsyms_line_parse((const char *)data, size, &l)) {
		if (l.name < (const char *)data || l.name + l.name_len > (const char *)data + size ||
		    l.name_len > KALLSYMS_NAME_MAX || l.module_len > KALLSYMS_MODULE_MAX)
			abort();
		sink += l.addr;
	}
	return 0;
}
