/*
 * Whether libdw may interpret a file's call-frame information in bounded
 * memory.  libdw sizes a frame's register array by the largest register
 * number an instruction names, up to 2^27 of them (2 GiB, zeroed), and
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
 * those of entries the walk decoded.  Anything this does not follow to the
 * byte (an encoding real linkers do not write, a compressed .debug_frame,
 * an operand cut short) refuses the file rather than guess.
 */
#ifndef PROF_SAMPLE_CFI_CHECK_H
#define PROF_SAMPLE_CFI_CHECK_H

#include <gelf.h>

/* x86-64's DWARF register numbers end at 125 (k7); libdw's own ABI rules
 * use up to 31. */
#define CFI_MAX_REGISTER 255
/* GCC and clang nest remembered states one or two deep. */
#define CFI_MAX_REMEMBERED 64

/* NULL if libdw may read elf's .eh_frame (the one it would choose) and
 * .debug_frame; otherwise why not, for a message. */
const char *cfi_check(Elf *elf);

#endif
