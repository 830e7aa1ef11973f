/*
 * The unwind tables of bpf/unwinder.bpf.h, filled from the process table:
 * each process's executable mappings, written when the process is learnt
 * or its mappings change, removed when it is forgotten; and the rows
 * (cfi_rows.h) of each file they map, read once the first walk reaches
 * the file and written once into the rows map, however many processes
 * map it.  Reading a file's rows costs milliseconds (libc's 7, perf's
 * libpython's tens), and most mapped files are in no stack.  A process or
 * file not there yet is walked by frame pointer.
 */
#ifndef PROF_SAMPLE_KERNEL_TABLES_H
#define PROF_SAMPLE_KERNEL_TABLES_H

#include <stdint.h>

struct elf_files;
struct processes;
struct profile_bpf;

/* Most rows by default (--unwind-table-rows), 8 bytes each, all files'
 * together: cc1 has 444,000 and node 396,000; libc 29,000.  One file may
 * have a quarter of them. */
#define KERNEL_TABLES_ROWS (1u << 21)
/* Most processes with tables. */
#define KERNEL_TABLES_PROCESSES 8192

struct kernel_tables_stats {
	uint64_t files, rows;	   /* files with rows, and the rows written */
	uint64_t files_unreached;  /* files no walk reached: not read */
	uint64_t files_without;	   /* files the BPF program walks by frame pointer, */
	uint64_t files_slow;	   /* of which too slow to read (or not read after those) */
	uint64_t rows_unknown;	   /* rows of a rule it does not follow */
	uint64_t processes;	   /* given tables */
	uint64_t processes_refused; /* beyond KERNEL_TABLES_PROCESSES */
	uint64_t compactions;	   /* the rows map made room in, */
	uint64_t files_dropped;	   /* by dropping the rows of files no longer mapped */
	uint64_t files_no_room;	   /* reads whose rows found no room, even so */
};

/* Before the BPF object is loaded: sizes the tables (rows of them) and
 * turns them on. */
void kernel_tables_configure(struct profile_bpf *skel, uint32_t rows);

/* NULL, with a message printed, if the tables' memory cannot be mapped. */
struct kernel_tables *kernel_tables_new(struct profile_bpf *skel, struct processes *ps,
					struct elf_files *files);
void kernel_tables_free(struct kernel_tables *kt);

/* Gives the BPF program the tables of the processes learnt, or whose
 * mappings changed or whose files came, since the last call; takes back
 * those of the processes forgotten. */
void kernel_tables_sync(struct kernel_tables *kt);

/* The figures so far (files not reached counted now). */
const struct kernel_tables_stats *kernel_tables_stats(struct kernel_tables *kt);

#endif
