/*
 * The files that sampled code was mapped from, each opened and parsed once
 * (keyed by build-id, or by path for a file without one).
 *
 * A mapped file is looked for under --sysroot (then at its path on this
 * host, if its build-id is the capture's), else, while the capture's
 * host is this one (same boot id), through the process's own view of the
 * file system (/proc/PID/map_files for deleted files, /proc/PID/root for
 * containers), then at its path.  Whatever is found must carry the
 * capture's build-id.  Its symbols come from the best source available: a
 * separate debug file, its own .symtab, its MiniDebugInfo plus .dynsym, or
 * .dynsym alone; DWARF (for inlined frames and lines) from the file itself
 * or its debug file.
 */
#ifndef PROF_SYMBOLIZE_MODULES_H
#define PROF_SYMBOLIZE_MODULES_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "debug_find.h"
#include "elf_symtab.h"
#include "htab.h"

struct module {
	char *path;	  /* as the capture names it */
	char *name;	  /* its base name, for unresolved frames ([libc.so.6]+0x1a2b) */
	bool loaded;	  /* false: missing, unreadable or not the sampled file */
	char *why;	  /* why not, when it is not loaded */
	uint8_t build_id[CAP_BUILD_ID_MAX];
	size_t build_id_len;
	uint64_t lookups, unresolved; /* its frames, and those unresolved (as the
					 symbolizer's totals count them) */
	struct elf_symtab symtab;
	struct elf_file dwfile; /* the file DWARF comes from, kept open for dw */
	Dwarf *dw;
	struct dwarf_frames *frames; /* index over dw */
};

struct modules {
	struct htab *byid;
	uint64_t failed; /* files that could not be used */
	uint64_t stalled; /* of them, those on a file system that did not answer */
	const char *sysroot;
	bool live;	 /* the capture was taken on this host, this boot */
	/* Wall-clock time (ns since the epoch) of the sample that needs the
	 * module: a file without a build-id that changed since cannot be the
	 * one it ran. */
	uint64_t sample_ns;
	bool want_dwarf; /* --inline or --lines */
	struct debug_search ds;
};

void modules_init(struct modules *m);
void modules_free(struct modules *m);

/* The module for a MAP record of process pid, loading it on first use;
 * never NULL.  A file that cannot be used is reported once. */
struct module *modules_get(struct modules *m, const struct cap_map *map, uint32_t pid);

/* The modules looked up at least once, by decreasing number of addresses
 * left unresolved, then by path; *n is their number.  Free the array. */
struct module **modules_used(struct modules *m, size_t *n);

/* One symbolized frame; names and files stay valid while the module lives. */
struct resolved {
	const char *name; /* NULL: unresolved */
	uint64_t off;	  /* of the address in the symbol */
	const char *file; /* source file, or NULL */
	int line;
	bool inlined;
};

#define MAX_INLINE 16

/* Resolves file offset off of mod, where the address looked up is `back`
 * bytes before the frame's address (1 for return addresses).  Writes the
 * frames of that address innermost first (inlined functions, with
 * want_inline, then the function itself) and returns their number, at
 * least 1.  With want_lines, each frame gets its file and line. */
size_t module_resolve(struct module *mod, uint64_t off, uint64_t back, bool want_inline,
		      bool want_lines, struct resolved *out);

#endif
