/*
 * libFuzzer target: prof-symbolize's kallsyms loading (kernel_syms.c, on
 * the shared line reader common/kallsyms_line.c, for --kallsyms and the
 * capture's own host) on mutated files, then lookups.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "kernel_syms.h"

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kernel_syms k = { 0 };
	char why[256];

	const char *path = fuzz_memfd_path(data, size);

	if (!kernel_syms_load_kallsyms(&k, path, why, sizeof(why)))
		return 0;
	for (uint64_t a = 0xffffffff81000000ull; a < 0xffffffff81004000ull; a += 0x100) {
		const struct kernel_sym *s = kernel_syms_find(&k, a);
		if (s)
			sink += s->start;
	}
	kernel_syms_free(&k);
	return 0;
}
