/*
 * The JIT-compiled functions of one process, from its perf map (the
 * capture's JSYM records, or the live file): added in the order the JIT
 * wrote them, looked up by address.  JITs reuse code memory, so of the
 * functions that cover an address the latest wins.  A map can hold
 * millions (a JVM's), so lookups go through an index sorted by address,
 * rebuilt only after functions were added.
 */
#ifndef PROF_SYMBOLIZE_JIT_SYMS_H
#define PROF_SYMBOLIZE_JIT_SYMS_H

#include <stddef.h>
#include <stdint.h>

struct jit_sym {
	uint64_t start, size;
	char *name;
};

struct jit_syms {
	struct jit_sym *v; /* in the order written */
	size_t n, cap;
	uint32_t *order; /* indexes into v by start, then by age */
	size_t nordered;
	uint64_t max_size;
};

void jit_syms_add(struct jit_syms *j, uint64_t start, uint64_t size, const char *name, size_t len);

/* The latest function covering ip, or NULL. */
const struct jit_sym *jit_syms_find(struct jit_syms *j, uint64_t ip);

void jit_syms_free(struct jit_syms *j);

#endif
