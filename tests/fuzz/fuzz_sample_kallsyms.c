/*
 * libFuzzer target: prof-sample's /proc/kallsyms table (kallsyms.c, on
 * the shared line reader common/kallsyms_line.c) from mutated symbol
 * tables, then lookups across what it loaded.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "kallsyms.h"

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kallsyms ks = { 0 };

	const char *path = fuzz_memfd_path(data, size);

	if (!kallsyms_load(&ks, path))
		return 0;
	for (size_t i = 0; i < ks.n; i++) {
		struct ksym *k = kallsyms_find(&ks, ks.syms[i].start);
		if (!k || k->start > ks.syms[i].start || ks.syms[i].start >= k->end)
			abort();
		for (const char *c = k->name; *c; c++)
			sink += (uint8_t)*c;
		sink += kallsyms_find(&ks, ks.syms[i].end) != NULL;
	}
	kallsyms_free(&ks);
	return 0;
}
