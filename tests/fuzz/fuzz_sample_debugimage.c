/*
 * libFuzzer target: prof-sample's debug-only images (debug_image.c, with
 * libelf) of mutated files, as prof-sample makes them of every file a
 * sampled process maps: the writer must not crash or hang on any input,
 * must stay within its limits (run under -rss_limit_mb, a section of
 * gigabytes read would be an out-of-memory), and what it writes must be an
 * ELF file that reads back.  The input's last byte makes the file that
 * many 16 MiB longer, a hole: sections the mutated headers place there are
 * a local user's sparse sections, claiming gigabytes that take no disk.  (Its build-id
 * is not always the input's: a file with one build-id in its PT_NOTE
 * segment and another in its note section shows the second in its image,
 * which prof-symbolize then refuses, as it refuses any entry whose
 * build-id differs from the capture's.)
 */
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "build_id.h"
#include "debug_image.h"
#include "elf_bounded.h"

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
	off_t hole = size ? (off_t)data[size - 1] << 24 : 0;
	if (ftruncate(in, 0) != 0 || pwrite(in, data, size, 0) != (ssize_t)size ||
	    ftruncate(in, (off_t)size + hole) != 0 || ftruncate(out, 0) != 0)
		abort();
	src = elf_begin_bounded(in);
	/* As prof-sample does, with limits the inputs can reach: the DWARF
	 * kept if small, then left out. */
	struct image_limits lim = { .max_image = 64u << 20, .max_dwarf = size / 2 };
	struct image_stats st;
	bool ok = src && debug_image_write(src, in, out, &lim,
					   &(struct image_origin){ .owner = 1000, .path = "/fuzz" },
					   &st) == IMAGE_WRITTEN;
	elf_end(src);
	if (!ok)
		return 0;
	image = elf_begin(out, ELF_C_READ_MMAP, NULL);
	if (!image || elf_kind(image) != ELF_K_ELF)
		abort();
	elf_build_id(image, id);
	/* Every image says where it comes from. */
	struct image_origin o;
	if (!origin_note_read(image, &o) || o.owner != 1000 || strcmp(o.path, "/fuzz") != 0)
		abort();
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(image, scn));)
		elf_getdata(scn, NULL);
	elf_end(image);
	return 0;
}
