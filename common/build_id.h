/*
 * GNU build-ids: the identity of an ELF file, which prof-sample records for
 * each mapping and prof-symbolize checks before trusting a file.
 */
#ifndef PROF_BUILD_ID_H
#define PROF_BUILD_ID_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

#define BUILD_ID_MAX 64

/* Copies the NT_GNU_BUILD_ID note of elf into id (at most BUILD_ID_MAX
 * bytes); returns its length, or 0 if there is none. */
size_t elf_build_id(Elf *elf, uint8_t *id);

/* The same for the file at path (opened read-only), or open as fd; 0 if
 * unreadable. */
size_t file_build_id(const char *path, uint8_t *id);
size_t fd_build_id(int fd, uint8_t *id);

/* Writes id as lowercase hex into out (2 * len + 1 bytes). */
void build_id_hex(const uint8_t *id, size_t len, char *out);

/*
 * The build-id cache (docs/FORMATS.md, section 5): what prof-sample keeps
 * of each sampled file for symbolizing it after it is gone, laid out as a
 * debug directory: DIR/.build-id/xx/yyyy.debug.
 *
 * Its default place: $PROF_BUILD_ID_DIR if set, else /var/cache/prof for
 * root, else $XDG_CACHE_HOME/prof or ~/.cache/prof.  Written into buf;
 * NULL if none can be named (no HOME).
 */
const char *build_id_cache_dir(char *buf, size_t size);

/* The system-wide cache, root's, which other users' prof-symbolize also
 * searches (they may read it only if its owner allows). */
#define BUILD_ID_CACHE_SYSTEM "/var/cache/prof"

#endif
