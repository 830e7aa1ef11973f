/*
 * libFuzzer target: prof-symbolize's production path for a mapped file
 * (modules.c): found under a --sysroot, opened and checked against the
 * capture's build-id, its symbols taken from .symtab, else MiniDebugInfo
 * and .dynsym, its debug file looked for through .gnu_debuglink, its DWARF
 * indexed; then addresses resolved with inlined frames and lines, as
 * --inline --lines prints them, and at each symbol's first and last byte.
 * The mutated file stands for the mapped one.
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

static void resolve(struct module *mod, uint64_t off)
{
	struct resolved r[MAX_INLINE];
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t want[20];
	static struct file_reader *reader;
	const char *root = fuzz_file_in_dir("app", data, size);
	struct modules m;

	/* One reader process for the run, as prof-symbolize has. */
	if (!reader)
		reader = file_reader_new(NULL, NULL);
	modules_init(&m);
	m.sysroot = root;
	m.want_dwarf = true;
	m.ds = (struct debug_search){ .sysroot = root, .reader = reader };
	/* With a build-id to match (the note reader runs; the file is
	 * refused unless it carries it), then without. */
	struct cap_map map = { .pid = 1, .start = 0x400000, .end = 0x400000 + 0x10000,
			       .build_id = want, .build_id_len = sizeof(want),
			       .path = { "/app", 4 } };
	struct module *mod = modules_get(&m, &map, 1);
	if (!mod)
		abort();
	map.build_id_len = 0;
	mod = modules_get(&m, &map, 1);
	if (!mod)
		abort();
	for (uint64_t off = 0; off < size + 64 && off < (1u << 16); off += 61)
		resolve(mod, off);
	/* Each symbol's first and last byte, at the file offset that maps
	 * to it. */
	const struct elf_symtab *t = &mod->symtab;
	for (size_t i = 0; i < t->nsyms && i < 4096; i++)
		for (size_t k = 0; k < t->nsegs; k++) {
			const struct elf_seg *s = &t->segs[k];
			uint64_t at = t->syms[i].addr - s->vaddr;
			if (at < s->filesz) {
				resolve(mod, s->offset + at);
				if (t->syms[i].size && t->syms[i].size - 1 < s->filesz - at)
					resolve(mod, s->offset + at + t->syms[i].size - 1);
				break;
			}
		}
	modules_free(&m);
	return 0;
}
