/*
 * Reads of files their owners may truncate.
 *
 * libelf maps the ELF files it reads (elf_begin_bounded()), and prof-sample
 * and prof-symbolize read any user's.  A page of a mapping that the file
 * no longer reaches, because its owner truncated it after it was mapped,
 * raises SIGBUS when read: a user could stop root's profiler at will, and
 * with it the capture.  With the guard installed such a page reads as
 * zeros instead, and so does the rest of the mapping that holds it
 * (private anonymous pages are mapped over all of it at once), as the
 * tail of a file's last page does: libelf and libdw read zeros as no
 * symbols, no notes, the end of call-frame information.  The pages are
 * counted, to be said as a loss: frames in those files may be named or
 * unwound wrongly.  Only a fault of that kind is caught (BUS_ADRERR, a page
 * past the end of its object, or one its file system could not read); any
 * other SIGBUS ends the program as it would have.
 */
#ifndef PROF_SIGBUS_GUARD_H
#define PROF_SIGBUS_GUARD_H

#include <stdint.h>

void sigbus_guard_install(void);

/* Pages made zeros so far; *last, if any, the address of the last fault. */
uint64_t sigbus_guard_pages(uintptr_t *last);

#endif
