/*
 * --unwind=dwarf: unwinding a user stack from the registers and stack bytes
 * the BPF program copied, with the call-frame information of the files the
 * process maps, through libdwfl.
 */
#ifndef PROF_SAMPLE_UNWIND_H
#define PROF_SAMPLE_UNWIND_H

#include <elf.h>
#include <stdint.h>

#include "processes.h"

struct elf_files;

/* The registers the BPF program copies (PROF_NR_UREGS, in DWARF order) are
 * laid out for x86-64 only so far: elsewhere prof-sample refuses
 * --unwind=dwarf and samples by frame pointers. */
#if defined(__x86_64__)
#define UNWIND_SUPPORTED 1
#define UNWIND_MACHINE EM_X86_64
#else
#define UNWIND_SUPPORTED 0
#define UNWIND_MACHINE EM_NONE
#endif

enum unwind_status {
	UNWIND_COMPLETE,    /* reached the outermost frame (_start, clone) */
	UNWIND_NO_CFI,	    /* stopped at a frame no CFI describes */
	UNWIND_STACK_SHORT, /* needed stack beyond the bytes copied */
	UNWIND_ERROR,	    /* the CFI could not be evaluated */
};

struct unwinder;

struct unwind_input {
	uint32_t pid, tid;
	const uint64_t *regs; /* PROF_NR_UREGS, in DWARF order */
	const uint8_t *stack; /* memory from regs[PROF_UREG_SP] up */
	uint32_t stack_len;
	/* Where each frame's stack pointer goes, beside its ips (NULL: not
	 * wanted): a frame's own stack lies from it up to the next one's. */
	uint64_t *sps;
};

/* files: the ELF files it reads, its caller's (shared with the kernel's
 * unwind tables), which the caller sweeps after unwinder_sweep(). */
struct unwinder *unwinder_new(struct processes *ps, struct elf_files *files);
void unwinder_free(struct unwinder *u);

/* Unwinds one sample into ips[0..*nr) (leaf first, return addresses as
 * a frame-pointer walk gives them), at most max frames.  The frames found
 * before a failure are kept: they are right, only the callers are missing. */
enum unwind_status unwind(struct unwinder *u, const struct unwind_input *in, uint64_t *ips,
			  uint32_t max, uint32_t *nr);

struct unwinder_stats {
	/* Frames unwound by their frame pointer in a file's code without
	 * CFI (unwind.c says when), and the walks that took any. */
	uint64_t fp_in_files, samples_fp_in_files;
};

const struct unwinder_stats *unwinder_stats(const struct unwinder *u);

/* Forgets the sessions no sample used in the last two drains, letting go
 * of the files they held. */
void unwinder_sweep(struct unwinder *u);

#endif
