/*
 * The function symbols and loadable segments of one ELF file: enough to turn
 * a file offset into a virtual address and a virtual address into a name.
 */
#ifndef PROF_SYMBOLIZE_ELF_SYMTAB_H
#define PROF_SYMBOLIZE_ELF_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

struct elf_sym {
	uint64_t addr, size;
	const char *name; /* without a symbol version ("free", not "free@GLIBC_2.2.5") */
	uint8_t bind;	  /* STB_LOCAL, STB_GLOBAL, STB_WEAK... */
	bool versioned;	  /* the symbol table's name had a version */
};

struct elf_seg {
	uint64_t offset, filesz, vaddr;
};

struct elf_symtab {
	struct elf_sym *syms;
	size_t nsyms;
	size_t symcap;
	struct elf_seg *segs;
	size_t nsegs;
	char *strings;
	size_t strused, strcap;
};

/* A table is built from several ELF images (a binary and its debug file or
 * MiniDebugInfo, chosen by modules.c): segments are taken from the first
 * image that has them; function symbols of the first section of `type` are
 * appended; finish sorts them and must be called once, before any lookup. */
bool elf_symtab_add_segments(struct elf_symtab *t, Elf *elf);
size_t elf_symtab_add_symbols(struct elf_symtab *t, Elf *elf, Elf64_Word type);
void elf_symtab_finish(struct elf_symtab *t);
void elf_symtab_free(struct elf_symtab *t);

/* Whether elf has a section of that type (SHT_SYMTAB...) with entries. */
bool elf_has_section(Elf *elf, Elf64_Word type);

/* The virtual address at file offset off, through the PT_LOAD segments. */
bool elf_symtab_vaddr(const struct elf_symtab *t, uint64_t off, uint64_t *vaddr);

/* The function symbol containing vaddr, honouring sizes, or NULL.  Of
 * aliases (symbols at one address), the name a user knows: sized,
 * exported (global or weak) rather than local, without a version, then
 * perf's last rules, the fewest leading underscores and the longest name.
 * So glibc's free is "free", not "cfree@GLIBC_2.2.5", "__libc_free" or
 * "__GI___libc_free", and qsort_r is "qsort_r". */
const struct elf_sym *elf_symtab_find(const struct elf_symtab *t, uint64_t vaddr);

#endif
