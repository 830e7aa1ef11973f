/*
 * .eh_frame_hdr as every linker writes it for x86-64: version 1, the
 * .eh_frame pointer pc-relative, the count 4 bytes, then the binary-search
 * table's pairs (an FDE's first pc, the FDE's address), 4-byte offsets
 * from the header (DW_EH_PE_datarel | DW_EH_PE_sdata4); or, where ld could
 * not make the table, none.  Another layout is not read: no real file has
 * one, and a file someone made to have one gains nothing.
 */
#ifndef PROF_SAMPLE_EH_FRAME_HDR_H
#define PROF_SAMPLE_EH_FRAME_HDR_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct eh_frame_hdr {
	GElf_Addr vaddr;	  /* the header's file address */
	GElf_Addr eh_frame_vaddr; /* .eh_frame's, as the header says */
	const uint8_t *table;
	size_t count; /* pairs, all within the header's bytes (0: no table) */
};

/* The PT_GNU_EH_FRAME segment's bytes, within the file; false if none. */
bool eh_frame_hdr_segment(Elf *elf, const uint8_t **p, size_t *size, GElf_Addr *vaddr);

/* The header in p[0..size), at file address vaddr; false if it is not of
 * the layout above, or its table passes its end. */
bool eh_frame_hdr_parse(const uint8_t *p, size_t size, GElf_Addr vaddr, struct eh_frame_hdr *h);

/* The first pc of the i-th pair's FDE, and the FDE's address. */
GElf_Addr eh_frame_hdr_pc(const struct eh_frame_hdr *h, size_t i);
GElf_Addr eh_frame_hdr_fde(const struct eh_frame_hdr *h, size_t i);

#endif
