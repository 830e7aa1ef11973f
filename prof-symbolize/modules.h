/*
 * The files that sampled code was mapped from, each opened and parsed once
 * (keyed by build-id, or by path for a file without one).
 */
#ifndef PROF_SYMBOLIZE_MODULES_H
#define PROF_SYMBOLIZE_MODULES_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "elf_symtab.h"
#include "htab.h"

struct module {
	char *path;
	bool loaded; /* false: missing, unreadable or not the sampled file */
	struct elf_symtab symtab;
};

struct modules {
	struct htab *byid;
	uint64_t failed; /* files that could not be used */
};

void modules_init(struct modules *m);
void modules_free(struct modules *m);

/* The module for a MAP record, loading it on first use; never NULL.  A
 * file that cannot be used is reported once. */
struct module *modules_get(struct modules *m, const struct cap_map *map);

#endif
