/*
 * The ELF files sampled processes map, for --unwind=dwarf: each opened and
 * mapped once per capture, whichever processes map it, and shared by
 * their Dwfls.  Without it each process's Dwfl would open, map, parse and
 * unmap libc and the rest again: 4 ms per new process measured here, most
 * of it TLB shootdowns from the munmaps, which a busy host starting
 * processes cannot afford.
 *
 * An image is let go of once no Dwfl holds it and none has asked for it
 * for as long as mapped_files.h keeps a file: its mapping would keep the
 * file, and the file system it is on, after every process that mapped it
 * has gone.
 */
#ifndef PROF_SAMPLE_ELF_FILES_H
#define PROF_SAMPLE_ELF_FILES_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "mapped_files.h"
#include "mapping.h"

struct elf_image {
	Elf *elf;
	const char *name;		 /* as modules are named: the file's base name */
	GElf_Addr low, high;		 /* the loaded image, as file addresses */
	size_t nloads;
	GElf_Phdr *loads;		 /* its PT_LOAD headers */
	uint64_t inflated;		 /* elf_files.c's: what it may inflate and copies, */
	unsigned holders;		 /* the Dwfls that hold it, */
	uint64_t used;			 /* and the sweeps done when last asked for */
};

struct elf_files;

/* Images of the files mf opens. */
struct elf_files *elf_files_new(struct mapped_files *mf);
void elf_files_free(struct elf_files *fs);

/* The file mapping m of pid maps (opened by mapped_files_open()), or NULL if
 * it cannot be read as ELF, its CFI is refused, or not yet (the file
 * reader has it).  A file that is not ELF, or refused, is remembered as
 * such. */
struct elf_image *elf_files_get(struct elf_files *fs, uint32_t pid, const struct mapping *m);

struct elf_files_stats {
	/* Files not used because libdw could not be trusted with them: CFI
	 * it would not read in bounded memory (cfi_check.h), what it would
	 * inflate or the freeze copy past the images' budget, or a file it
	 * would relocate; and why the last was not used. */
	uint64_t refused;
	const char *last_refused;
};

const struct elf_files_stats *elf_files_stats(const struct elf_files *fs);

/* Changes whenever a file that could not be opened may be now
 * (mapped_files.h's epoch). */
uint64_t elf_files_epoch(const struct elf_files *fs);

/* A Dwfl reports f, and may ask for its ELF any time until it ends: f is
 * kept until as many releases as holds. */
void elf_files_hold(struct elf_image *f);
void elf_files_release(struct elf_image *f);

/* Frees the images nobody holds that were not asked for since
 * ELF_FILES_IDLE sweeps ago, and the failures remembered as long. */
#define ELF_FILES_IDLE MAPPED_FILES_IDLE
void elf_files_sweep(struct elf_files *fs);

/* The vDSO, the same in every 64-bit process (NULL if unavailable). */
const struct elf_image *elf_files_vdso(struct elf_files *fs);

/* The load bias of f as mapped by m: the segment holding file offset
 * m->pgoff is at m->start. */
bool elf_image_bias(const struct elf_image *f, const struct mapping *m, GElf_Addr *bias);

/* Whether the instruction that ends just before file address vaddr in f's
 * code is an x86-64 call: a return address, which a frame-pointer walk's
 * callers must be, and a garbage word on the stack seldom is. */
bool elf_image_call_before(const struct elf_image *f, GElf_Addr vaddr);

/* The symbol named name that elf's .dynsym defines, in *sym; false if
 * none does. */
bool elf_dynsym_find(Elf *elf, const char *name, GElf_Sym *sym);

/* Whether every whole stack of a process that maps f ends in it: f is a
 * program linked against shared libraries (it names its interpreter) or
 * the C library those start their threads in (it exports
 * __libc_start_main, glibc's and musl's alike). */
bool elf_image_ends_stacks(const struct elf_image *f);

#endif
