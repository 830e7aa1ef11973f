/*
 * Finding the separate debug information of a binary, the way gdb and
 * elfutils do: /usr/lib/debug/.build-id/xx/yyyy.debug, the .gnu_debuglink
 * name beside the binary, in its .debug directory and under the debug
 * directories, debuginfod (DEBUGINFOD_URLS), and MiniDebugInfo (the
 * xz-compressed symbol table in .gnu_debugdata).  Every file found is
 * checked against the binary: same build-id, or, for a debuglink without
 * one, the link's CRC.
 *
 * Every file is opened by the file reader (file_reader.h), never by this
 * process: any directory on a path a capture names, or under a debug
 * directory, may be a user's FUSE mount whose server does not answer, and
 * a process that asks it waits in the kernel for good.  A file not on a
 * local file system is read from the reader's copy.
 */
#ifndef PROF_SYMBOLIZE_DEBUG_FIND_H
#define PROF_SYMBOLIZE_DEBUG_FIND_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "file_reader.h"

#define DEBUGINFOD_FAILURES_KEPT 5

struct debug_search {
	const char *const *dirs; /* global debug directories, first wins */
	size_t ndirs;
	/* Among them, dirs[first_cache..first_cache + ncaches) are build-id
	 * caches prof-sample writes: searched in the part of the user who
	 * controls the file (a build-id names content, not trust), and an
	 * entry used only if its origin note names that user. */
	size_t first_cache, ncaches;
	const char *sysroot;	 /* prefix for debuglink directories, or NULL */
	struct file_reader *reader; /* opens every file */
	bool debuginfod;	 /* ask debuginfod (when DEBUGINFOD_URLS is set) */
	void *client;		 /* debuginfod_client, created on first need */
	bool client_failed;
	/* Lookups the servers did not answer with a file: how many, and the
	 * first few, for -v (a server down reads as "not found" otherwise). */
	uint64_t dfd_failed, dfd_asked;
	struct debuginfod_failure {
		char build_id[2 * 64 + 1];
		int error; /* errno: ENOENT when a server said it has none */
	} dfd_failures[DEBUGINFOD_FAILURES_KEPT];
};

void debug_search_free(struct debug_search *ds);

/* An opened ELF file: fd and elf are both set, or fd is -1. */
struct elf_file {
	int fd; /* the file, or the reader's copy of it */
	Elf *elf;
	char *path;
	struct opened_file info; /* the file's, as the reader saw it */
};

void elf_file_close(struct elf_file *f);

/* Takes fd (the reader's, file_reader.h) as the ELF file at path; with
 * idlen non-zero it must have that build-id.  Returns false with a reason
 * in why (fd closed). */
bool elf_file_adopt(struct elf_file *f, int fd, const char *path, const uint8_t *id, size_t idlen,
		    char *why, size_t whylen);

/* Why the reader did not open a file, from its errno. */
void elf_file_unopened(int err, char *why, size_t whylen);

/* The separate debug file for the binary bin (may be NULL when only the
 * build-id is known), opened at binpath, mapped as origpath in the
 * capture (both for the debuglink's directories; may be NULL), whose
 * content owner controls (CAP_OWNER_UNKNOWN: root's part of the caches
 * only).  Returns false if there is none. */
bool debug_find(struct debug_search *ds, Elf *bin, const char *binpath, const char *origpath,
		const uint8_t *id, size_t idlen, uint32_t owner, struct elf_file *out);

/* The same in two steps, so that the reader is asked for the places by
 * build-id in the request that asks for the binary (the round trips are
 * the cost): debug_lookup_new() gives them in *asked, for
 * file_reader_open_groups(); debug_lookup_end() takes its answer and the
 * binary, once it is open (bin, binpath may be NULL), and goes on as
 * debug_find() does; debug_lookup_drop() when no debug file is wanted.
 * id must stay valid until then. */
struct debug_lookup;
struct debug_lookup *debug_lookup_new(struct debug_search *ds, const uint8_t *id, size_t idlen,
				      uint32_t owner, struct file_places *asked);
bool debug_lookup_end(struct debug_lookup *dl, struct file_places *asked, Elf *bin,
		      const char *binpath, const char *origpath, struct elf_file *out);
void debug_lookup_drop(struct debug_lookup *dl, struct file_places *asked);

/* The section named name, with data in the file (not SHT_NOBITS), or NULL. */
Elf_Scn *elf_section_named(Elf *elf, const char *name, GElf_Shdr *sh);

/* The MiniDebugInfo of bin, decompressed: an in-memory ELF whose image is
 * *image (free it after elf_end).  NULL if bin has none or it is corrupt. */
Elf *minidebuginfo_open(Elf *bin, void **image);

#endif
