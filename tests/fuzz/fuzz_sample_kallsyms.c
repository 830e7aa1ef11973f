/*
 * libFuzzer target: prof-sample's /proc/kallsyms reader (kallsyms.c) on
 * mutated symbol tables, then lookups across what it loaded.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kallsyms.h"

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct kallsyms ks = { 0 };

	if (fd < 0) {
		fd = memfd_create("fuzz-kallsyms", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
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
