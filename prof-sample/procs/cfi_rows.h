/*
 * A file's call-frame information as unwind-table rows (bpf/unwind_table.h)
 * for the BPF program to walk user stacks with.  libdw reads the CFI and
 * computes each row's rules; this file only enumerates the rows (through
 * the binary-search table of .eh_frame_hdr, which every linked x86-64
 * program and library has) and keeps those of the rules the BPF program
 * knows.
 */
#ifndef PROF_SAMPLE_CFI_ROWS_H
#define PROF_SAMPLE_CFI_ROWS_H

#include <gelf.h>
#include <stddef.h>

#include "unwind_table.h"

/* Rows of one file, in pc order. */
struct cfi_rows {
	struct unwind_row *row;
	size_t n, cap;
	/* Rows whose rule the BPF program does not know (left to the frame
	 * pointer), of all rows libdw gave. */
	size_t unknown, rules;
};

/* What *why is when a file's rows took over a second to compute. */
#define CFI_ROWS_TOO_SLOW "too slow to read"

/* The rows of elf's .eh_frame, at most max; NULL and *why when there are
 * none to use (no CFI, a layout it does not know, too many rows, rows that
 * take a second to compute). */
struct cfi_rows *cfi_rows_read(Elf *elf, size_t max, const char **why);
void cfi_rows_free(struct cfi_rows *r);

#endif
