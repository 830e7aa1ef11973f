/*
 * Finding the separate debug information of a binary, the way gdb and
 * elfutils do: /usr/lib/debug/.build-id/xx/yyyy.debug, the .gnu_debuglink
 * name beside the binary, in its .debug directory and under the debug
 * directories, debuginfod (DEBUGINFOD_URLS), and MiniDebugInfo (the
 * xz-compressed symbol table in .gnu_debugdata).  Every file found is
 * checked against the binary: same build-id, or, for a debuglink without
 * one, the link's CRC.
 */
#ifndef PROF_SYMBOLIZE_DEBUG_FIND_H
#define PROF_SYMBOLIZE_DEBUG_FIND_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct debug_search {
	const char *const *dirs; /* global debug directories, first wins */
	size_t ndirs;
	/* Among them, dirs[first_cache..first_cache + ncaches) are build-id
	 * caches prof-sample writes: searched in the part of the user who
	 * controls the file (a build-id names content, not trust), and an
	 * entry used only if its origin note names that user. */
	size_t first_cache, ncaches;
	const char *sysroot;	 /* prefix for debuglink directories, or NULL */
	bool debuginfod;	 /* ask debuginfod (when DEBUGINFOD_URLS is set) */
	void *client;		 /* debuginfod_client, created on first need */
	bool client_failed;
};

void debug_search_free(struct debug_search *ds);

/* An opened ELF file: fd and elf are both set, or fd is -1. */
struct elf_file {
	int fd;
	Elf *elf;
	char *path;
};

void elf_file_close(struct elf_file *f);

/* Opens path as ELF (flags: 0, or O_NOFOLLOW); with idlen non-zero it
 * must have that build-id.  Returns false with a reason in why. */
bool elf_file_open(struct elf_file *f, const char *path, int flags, const uint8_t *id,
		   size_t idlen, char *why, size_t whylen);

/* The separate debug file for the binary bin (may be NULL when only the
 * build-id is known), opened at binpath, mapped as origpath in the
 * capture (both for the debuglink's directories; may be NULL), whose
 * content owner controls (CAP_OWNER_UNKNOWN: root's part of the caches
 * only).  Returns false if there is none. */
bool debug_find(struct debug_search *ds, Elf *bin, const char *binpath, const char *origpath,
		const uint8_t *id, size_t idlen, uint32_t owner, struct elf_file *out);

/* The section named name, with data in the file (not SHT_NOBITS), or NULL. */
Elf_Scn *elf_section_named(Elf *elf, const char *name, GElf_Shdr *sh);

/* The MiniDebugInfo of bin, decompressed: an in-memory ELF whose image is
 * *image (free it after elf_end).  NULL if bin has none or it is corrupt. */
Elf *minidebuginfo_open(Elf *bin, void **image);

#endif
