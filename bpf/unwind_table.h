/*
 * The unwind tables the BPF program walks user stacks with, shared by
 * bpf/unwinder.bpf.h (the reader) and prof-sample/procs/kernel_tables.c (the
 * writer): each executable file's call-frame information (.eh_frame),
 * flattened by prof-sample into rows of one of a few rules, and each
 * process's executable mappings, pointing at their file's rows.
 *
 * A stack walked by frame pointer loses the caller of every function that
 * keeps none (the leaf's caller, always: libc's write has no frame), and
 * ends at the first frame of distribution code; copying the stack for
 * prof-sample to unwind costs microseconds a sample.  The rows describe
 * almost every frame of x86-64 code with the CFA at rsp or rbp plus an
 * offset, the caller's rbp saved at a fixed place below it or left alone,
 * and the return address just below it; the rest (PLT entries aside) are
 * left to the frame pointer.
 */
#ifndef PROF_BPF_UNWIND_TABLE_H
#define PROF_BPF_UNWIND_TABLE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* How a row finds the canonical frame address (CFA), the caller's stack
 * pointer; the return address is the word below it. */
enum prof_cfa {
	PROF_CFA_NONE = 0, /* no CFI describes this code: the frame pointer's */
	PROF_CFA_RSP = 1,  /* rsp + cfa */
	PROF_CFA_RBP = 2,  /* rbp + cfa */
	/* A PLT entry (GCC's and ld's expression): rsp + 8, and 8 more
	 * past byte cfa of each 16-byte entry, where it has pushed. */
	PROF_CFA_PLT = 3,
	PROF_CFA_END = 4, /* the outermost frame: no caller (_start) */
};

/* From pc, a file address, to the next row's pc. */
struct unwind_row {
	__u32 pc;
	__u16 cfa;	/* the CFA's offset */
	__u8 kind;	/* enum prof_cfa */
	__s8 rbp;	/* the caller's rbp at CFA + rbp * 8, or 0: rbp unchanged */
};

/* An executable mapping of a process: its file's rows are rows[first] to
 * rows[first + n - 1] (n 0: no table, the frame pointer's), at file
 * addresses bias below the process's.  A file's rows are read only once a
 * walk reaches it (most of what a process maps, no stack of it goes
 * through: perf maps 28 libraries and blocks in two): until then n is 0
 * and wanted is its slot in the wanted array, which the walk sets. */
struct unwind_mapping {
	__u64 start, end, bias;
	__u32 first, n;
	__u32 wanted; /* 0: nothing to ask for */
	__u32 reserved;
};

/* Slots of the wanted array: files seen in mappings and not read yet;
 * slot 0 is never one.  Past them, files are read as soon as they are
 * seen. */
#define PROF_UNWIND_WANTED 4096

/* Most mappings of one process the tables keep (a power of two): more than node's,
 * python3's with numpy's extensions, or chromium's renderers'.  The walk
 * takes the frame pointer in the others. */
#define PROF_UNWIND_MAPPINGS 128

/* Files every whole stack of a process ends in: its program (the main
 * thread's _start) and its C library (every other thread's clone3). */
#define PROF_UNWIND_ROOTS 2

/* A process's mappings, sorted by start and disjoint.  roots are the
 * wanted slots of its root files not read yet (0: none): a walk that asks
 * for any file of the process asks for them too.  Otherwise each walk
 * would ask for the one file it stopped in, and a process would need a
 * walk per file, often seconds apart, before one reached _start. */
struct unwind_process {
	__u32 n;
	__u32 roots[PROF_UNWIND_ROOTS];
	__u32 reserved;
	struct unwind_mapping m[PROF_UNWIND_MAPPINGS];
};

#endif
