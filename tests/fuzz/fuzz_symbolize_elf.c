/*
 * libFuzzer target: prof-symbolize's ELF reading (elf_symtab.c, with
 * libelf and common/build_id.c) on mutated files.  The bytes are written to
 * a memfd and loaded by path, as prof-symbolize loads a mapped file; then
 * the table is queried the way frames are resolved.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf_symtab.h"
#include "fuzz_file.h"

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t want[20];
	struct elf_symtab t;
	char why[256];

	const char *path = fuzz_memfd_path(data, size);
	/* With a build-id to match (the note reader runs), then without. */
	if (elf_symtab_load(&t, path, want, sizeof(want), why, sizeof(why)))
		elf_symtab_free(&t);
	if (!elf_symtab_load(&t, path, NULL, 0, why, sizeof(why)))
		return 0;
	for (size_t i = 0; i < t.nsegs; i++) {
		uint64_t v;
		if (elf_symtab_vaddr(&t, t.segs[i].offset, &v))
			sink += v;
	}
	for (size_t i = 0; i < t.nsyms; i++) {
		const struct elf_sym *s = elf_symtab_find(&t, t.syms[i].addr);
		if (s)
			for (const char *c = s->name; *c; c++)
				sink += (uint8_t)*c;
		s = elf_symtab_find(&t, t.syms[i].addr + t.syms[i].size);
		sink += s != NULL;
	}
	elf_symtab_free(&t);
	return 0;
}
