/*
 * Opening an ELF file someone else made without letting its headers size
 * our memory.  libelf allocates a descriptor for every section the header
 * claims as soon as the file is opened, and a copy of every program header
 * when they are read, checking only that the tables fit in the file: a
 * file with a hole where its section table would be (a few KiB of disk)
 * claimed 67 million sections, and libelf spent 7 GB on them.  So the
 * headers are read first, and the file refused if they claim more than
 * real files have, or tables that are holes.
 */
#ifndef PROF_ELF_BOUNDED_H
#define PROF_ELF_BOUNDED_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

/* Linked programs and libraries have tens of sections (a relocatable
 * object built with -ffunction-sections, thousands) and about ten
 * segments. */
#define ELF_MAX_SECTIONS 65536
#define ELF_MAX_SEGMENTS 4096

/* elf_begin(fd, ELF_C_READ_MMAP) of a file whose headers are within
 * bounds; NULL otherwise (errno EFBIG), or if libelf refuses it. */
Elf *elf_begin_bounded(int fd);

/* elf_memory() of image[0..size), the same way. */
Elf *elf_memory_bounded(char *image, size_t size);

/* The bytes libdw decompresses when it opens elf's DWARF
 * (dwarf_begin_elf(), or libdwfl for a file's .debug_frame): every
 * compressed debug section, at once, to the size its header claims
 * (libelf allows 1,032 times the compressed bytes: a 1 MB section may
 * claim a gigabyte), kept as long as the DWARF is.  The callers bound it:
 * each as its use allows. */
uint64_t elf_debug_inflated_size(Elf *elf);

#endif
