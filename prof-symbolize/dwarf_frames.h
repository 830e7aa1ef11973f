/*
 * Inlined frames and source lines of an address, from DWARF (libdw).
 */
#ifndef PROF_SYMBOLIZE_DWARF_FRAMES_H
#define PROF_SYMBOLIZE_DWARF_FRAMES_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

struct dwarf_frame {
	const char *name; /* linkage (mangled) name when there is one, or NULL */
	const char *file; /* NULL if unknown */
	int line;
};

struct dwarf_frames;

/* An index over dw, built lazily per compilation unit; dw stays the
 * caller's. */
struct dwarf_frames *dwarf_frames_new(Dwarf *dw);
void dwarf_frames_free(struct dwarf_frames *d);

/* The functions active at vaddr, innermost first: the inlined subroutines,
 * then the subprogram that holds them.  Each frame's line is where it is
 * executing: vaddr's line for the innermost, the call site of the frame
 * inside it for the others.  Returns the number written (at most max), 0
 * when no compilation unit covers vaddr. */
size_t dwarf_frames(struct dwarf_frames *d, uint64_t vaddr, struct dwarf_frame *out, size_t max);

#endif
