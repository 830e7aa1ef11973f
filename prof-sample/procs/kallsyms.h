/*
 * The kernel's symbol table, from /proc/kallsyms, so the capture can carry
 * the kernel symbols its stacks need and be symbolized on another host.
 */
#ifndef PROF_SAMPLE_KALLSYMS_H
#define PROF_SAMPLE_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t start, end;
	const char *name, *module; /* module is "" for the kernel image */
};

struct kallsyms {
	struct ksym *syms;
	size_t n;
	char *strings;
};

/* Loads function symbols from path; false (errno set) if unreadable or if
 * every address reads as zero (kptr_restrict hides them). */
bool kallsyms_load(struct kallsyms *ks, const char *path);
void kallsyms_free(struct kallsyms *ks);

/* The symbol containing addr, or NULL. */
struct ksym *kallsyms_find(struct kallsyms *ks, uint64_t addr);

/* How many of a kernel stack's first frames are the tracing machinery
 * that ran the BPF program taking it (the program itself, the tracepoint's
 * dispatch), rather than the kernel's own work. */
uint32_t kallsyms_tracing_frames(struct kallsyms *ks, const uint64_t *ips, uint32_t nr);

#endif
