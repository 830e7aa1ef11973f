/*
 * The debug-only image of an ELF file: what symbolizing its addresses
 * needs, without its code and data.  Like `eu-strip --only-keep-debug` (and
 * Debian's -dbg files) it keeps the ELF and program headers as they are
 * (segments tell file offsets from addresses), every section header, and
 * the contents of the sections that are not loaded (.symtab, .strtab,
 * .debug_*, .gnu_debugdata, .gnu_debuglink, .comment), of the notes (the
 * build-id) and of the dynamic symbol table and its strings; every other
 * section becomes SHT_NOBITS, its size kept.  For a distribution's
 * binary that is a few percent of the file.
 */
#ifndef PROF_SAMPLE_DEBUG_IMAGE_H
#define PROF_SAMPLE_DEBUG_IMAGE_H

#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>

/* Writes the debug-only image of src to out (an empty, writable, seekable
 * descriptor).  With keep_dwarf false, or when the DWARF sections would
 * make the image larger than max_dwarf bytes, they become SHT_NOBITS too
 * (the symbol tables are always kept).  Returns false if src is not an ELF
 * file libelf can copy. */
bool debug_image_write(Elf *src, int out, uint64_t max_dwarf);

#endif
