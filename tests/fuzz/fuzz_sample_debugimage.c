/*
 * libFuzzer target: prof-sample's debug-only images (debug_image.c, with
 * libelf) of mutated files, as prof-sample makes them of every file a
 * sampled process maps: the writer must not crash or hang on any input,
 * and what it writes must be an ELF file that reads back.  (Its build-id
 * is not always the input's: a file with one build-id in its PT_NOTE
 * segment and another in its note section shows the second in its image,
 * which prof-symbolize then refuses, as it refuses any entry whose
 * build-id differs from the capture's.)
 */
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "build_id.h"
#include "debug_image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int in = -1, out = -1;
	uint8_t id[BUILD_ID_MAX];
	Elf *src, *image;

	if (in < 0) {
		elf_version(EV_CURRENT);
		in = memfd_create("fuzz-in", MFD_CLOEXEC);
		out = memfd_create("fuzz-out", MFD_CLOEXEC);
		if (in < 0 || out < 0)
			abort();
	}
	if (ftruncate(in, 0) != 0 || pwrite(in, data, size, 0) != (ssize_t)size ||
	    ftruncate(out, 0) != 0)
		abort();
	src = elf_begin(in, ELF_C_READ_MMAP, NULL);
	/* As prof-sample does: the DWARF kept if small, then left out. */
	bool ok = src && debug_image_write(src, out, size / 2);
	elf_end(src);
	if (!ok)
		return 0;
	image = elf_begin(out, ELF_C_READ_MMAP, NULL);
	if (!image || elf_kind(image) != ELF_K_ELF)
		abort();
	elf_build_id(image, id);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(image, scn));)
		elf_getdata(scn, NULL);
	elf_end(image);
	return 0;
}
