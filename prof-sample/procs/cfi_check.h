/*
 * Whether libdw may interpret a file's call-frame information in bounded
 * memory.  libdw sizes a frame's register array by the largest register
 * number an instruction names, up to 2^28 of them (2 GiB, zeroed), and
 * copies that array at each DW_CFA_remember_state not yet restored; it
 * checks neither against the machine.  A file anyone wrote can therefore
 * make root's prof-sample touch gigabytes at each row it computes (found
 * by fuzz_sample_cfirows).  So before libdw sees a file, every CIE and FDE
 * it could ever interpret is decoded here, and the file refused if one
 * names a register beyond any x86-64 has or nests remembered states
 * deeper than compilers do.
 *
 * "Every one it could ever interpret": libdw reaches entries by walking
 * the section from its start, by the offsets the .eh_frame_hdr table
 * gives, and by each FDE's CIE pointer.  The walk is done here the same
 * way (dwarf_next_cfi); the table's offsets and the CIE pointers must be
 * those of entries the walk decoded.  Where libdw 0.188 itself reads a
 * CIE wrong (past its end, or a LEB128 pointer's length), the file is
 * refused before libdw reads it.  Anything this does not follow to the
 * byte (an encoding real linkers do not write, two sections that could
 * each be .eh_frame, an operand cut short) refuses the file rather than
 * guess.
 */
#ifndef PROF_SAMPLE_CFI_CHECK_H
#define PROF_SAMPLE_CFI_CHECK_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

/* x86-64's DWARF register numbers end at 125 (k7); libdw's own ABI rules
 * use up to 31. */
#define CFI_MAX_REGISTER 255
/* GCC and clang nest remembered states one or two deep. */
#define CFI_MAX_REMEMBERED 64

/* Makes the bytes cfi_check() reads of elf (opened by elf_begin(), as
 * ELF_C_READ_MMAP maps it) the process's own: the pages of its headers,
 * its section names, its .eh_frame, .eh_frame_hdr and .debug_frame (or,
 * without sections, .eh_frame to the end of the file), and its compressed
 * sections' claims.  A MAP_PRIVATE mapping shows the owner's later writes
 * to the file until a page is written to here, and libdw reads the CFI
 * long after the check; this writes each page once, *bytes of them.
 * False, and nothing copied, if that would be more than max bytes, or a
 * page could not be made writable.  For files their owners may change:
 * the system's are root's. */
bool cfi_freeze(Elf *elf, uint64_t max, uint64_t *bytes);

/* NULL if libdw may read elf's .eh_frame (the one it would choose) and
 * .debug_frame; otherwise why not, for a message. */
const char *cfi_check(Elf *elf);

#endif
