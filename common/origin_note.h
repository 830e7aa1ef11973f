/*
 * Where an entry of the build-id cache comes from (docs/FORMATS.md,
 * section 5), kept in the entry itself as an ELF note: the user who
 * controls the file it was made from, and the file (device, inode, mode,
 * and its path as the process named it).  A build-id names content, not
 * trust: prof-symbolize uses a cache entry for a mapping only if the note
 * names the user the capture says controls that mapping's file.
 *
 * The note: name "prof", type NT_PROF_ORIGIN, and a description of
 * u32 owner, u32 mode, u64 dev, u64 ino, then the path and a NUL, in the
 * file's byte order; in a section of its own, .note.prof.origin.
 */
#ifndef PROF_ORIGIN_NOTE_H
#define PROF_ORIGIN_NOTE_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ORIGIN_NOTE_SECTION ".note.prof.origin"
#define ORIGIN_NOTE_NAME "prof"
#define NT_PROF_ORIGIN 1

struct image_origin {
	uint32_t owner, mode;
	uint64_t dev, ino;
	const char *path;
};

/* The note's bytes for o, in native byte order, into a new buffer of
 * *size bytes (free it). */
void *origin_note_bytes(const struct image_origin *o, size_t *size);

/* The origin elf's note gives, its path pointing into elf's data; false
 * if it has none (or a malformed one). */
bool origin_note_read(Elf *elf, struct image_origin *o);

#endif
