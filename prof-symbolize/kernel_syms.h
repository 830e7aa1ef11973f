/*
 * Kernel symbols as the capture carries them (KSYM records).
 */
#ifndef PROF_SYMBOLIZE_KERNEL_SYMS_H
#define PROF_SYMBOLIZE_KERNEL_SYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture.h"

struct kernel_sym {
	uint64_t start, end;
	char *name, *module; /* module is "" for the kernel image */
};

struct kernel_syms {
	struct kernel_sym *syms;
	size_t n, cap;
	bool sorted;
};

void kernel_syms_add(struct kernel_syms *k, const struct cap_ksym *rec);
const struct kernel_sym *kernel_syms_find(struct kernel_syms *k, uint64_t addr);
void kernel_syms_free(struct kernel_syms *k);

/* Loads a kallsyms file (/proc/kallsyms or a copy): its text symbols, each
 * ending where the next begins.  False with a reason in why. */
bool kernel_syms_load_kallsyms(struct kernel_syms *k, const char *path, char *why, size_t whylen);

#endif
