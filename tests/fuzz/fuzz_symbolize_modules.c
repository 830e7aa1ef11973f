/*
 * libFuzzer target: prof-symbolize's production path for a mapped file
 * (modules.c): found under a --sysroot, opened and checked, its symbols
 * taken from .symtab, else MiniDebugInfo and .dynsym, its debug file looked
 * for through .gnu_debuglink, its DWARF indexed; then addresses resolved
 * with inlined frames and lines, as --inline --lines prints them.  The
 * mutated file stands for the mapped one, mapped at a few offsets.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "modules.h"

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *root = fuzz_file_in_dir("app", data, size);
	struct modules m;
	struct resolved r[MAX_INLINE];

	modules_init(&m);
	m.sysroot = root;
	m.want_dwarf = true;
	m.ds = (struct debug_search){ .sysroot = root };
	struct cap_map map = { .pid = 1, .start = 0x400000, .end = 0x400000 + 0x10000,
			       .path = { "/app", 4 } };
	struct module *mod = modules_get(&m, &map, 1);
	if (!mod)
		abort();
	for (uint64_t off = 0; off < size + 64 && off < (1u << 16); off += 61) {
		size_t n = module_resolve(mod, off, off & 1, true, true, r);
		if (n < 1 || n > MAX_INLINE)
			abort();
		for (size_t i = 0; i < n; i++) {
			sink += r[i].off + (uint64_t)r[i].line;
			if (r[i].name)
				sink += strlen(r[i].name);
			if (r[i].file)
				sink += strlen(r[i].file);
		}
	}
	modules_free(&m);
	return 0;
}
