/*
 * The debug-only image of an ELF file: what symbolizing its addresses
 * needs, without its code and data.  Like `eu-strip --only-keep-debug` (and
 * Debian's -dbg files) it keeps the ELF and program headers as they are
 * (segments tell file offsets from addresses), every section header, and
 * the contents of the sections symbolization reads: the symbol tables and
 * their strings, the notes (the build-id), the section names,
 * .gnu_debugdata, .gnu_debuglink, .gnu_debugaltlink, .comment and the
 * DWARF; every other section becomes SHT_NOBITS.  For a
 * distribution's binary that is a few percent of the file.
 *
 * The file is any user's: its section headers claim what they like.  So
 * the image is planned from the headers before a byte is copied, every
 * section has a bound, the whole image has one, and a section whose bytes
 * are a hole in the file (a "3 GiB section" that takes 16 KiB of disk) is
 * not a section any linker wrote: it is left out, not read.
 */
#ifndef PROF_SAMPLE_DEBUG_IMAGE_H
#define PROF_SAMPLE_DEBUG_IMAGE_H

#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "origin_note.h"

/* A note section (a build-id is 36 bytes, systemtap's probes a few KiB),
 * the section names, and the small named sections, at most. */
#define IMAGE_MAX_NOTE (64u << 10)
#define IMAGE_MAX_SHSTRTAB (1u << 20)
#define IMAGE_MAX_SMALL (64u << 10)
/* MiniDebugInfo: prof-symbolize expands it 64 times at most. */
#define IMAGE_MAX_MINIDEBUG (16u << 20)

struct image_limits {
	uint64_t max_image; /* every kept section together */
	uint64_t max_dwarf; /* the DWARF, kept whole or not at all */
};

enum image_result {
	IMAGE_WRITTEN,	 /* with at least one symbol source */
	IMAGE_NOT_ELF,	 /* or not one libelf can copy */
	IMAGE_NO_SYMBOLS, /* nothing to symbolize with fit the limits */
	IMAGE_CUT	 /* the file was cut while it was copied: the copy
			  * read zeros (sigbus_guard.h), not to be kept */
};

struct image_stats {
	uint64_t bytes;	    /* of section contents planned */
	unsigned too_large; /* sections left out for their size */
	unsigned holes;	    /* sections left out for holes in the file */
};

/* Writes the debug-only image of src, read from fd (-1 when src is in
 * memory: nothing to check for holes), to out (an empty, writable,
 * seekable descriptor), within lim, with where it comes from in a note
 * (origin_note.h).  The DWARF is kept only if all of it fits; the symbol
 * tables, .dynsym's before .symtab's, as long as they fit. */
enum image_result debug_image_write(Elf *src, int fd, int out, const struct image_limits *lim,
				    const struct image_origin *origin, struct image_stats *st);

#endif
