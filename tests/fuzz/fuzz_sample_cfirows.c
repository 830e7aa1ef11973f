/*
 * libFuzzer target: the unwind-table rows prof-sample makes of every file
 * a blocked or waking process maps (cfi_rows.c, with libelf and libdw), of
 * mutated files that cfi_check.c lets libdw read, as elf_files.c does: no
 * crash, hang or gigabytes, and rows the BPF walker can rely on:
 * in pc order, no more than asked for, each of a known kind, a saved rbp
 * below its frame's CFA, and a PLT row's threshold a byte of its entry.
 */
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cfi_check.h"
#include "cfi_rows.h"
#include "elf_bounded.h"

#define MAX_ROWS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool started;
	const char *why = NULL;
	struct cfi_rows *r;
	char *image;
	Elf *elf;

	if (!started) {
		elf_version(EV_CURRENT);
		started = true;
	}
	/* libelf may write to an image it reads (ELF_C_READ_MMAP does not,
	 * elf_memory's may convert in place): a copy of the input. */
	image = malloc(size ? size : 1);
	if (!image)
		abort();
	memcpy(image, data, size);
	elf = elf_memory_bounded(image, size);
	if (elf && cfi_check(elf)) {
		elf_end(elf);
		free(image);
		return 0;
	}
	r = elf ? cfi_rows_read(elf, MAX_ROWS, &why) : NULL;
	if (elf && !r && !why)
		abort(); /* a refusal always says why */
	for (size_t i = 0; r && i < r->n; i++) {
		const struct unwind_row *row = &r->row[i];
		if (r->n > MAX_ROWS || (i && row->pc <= r->row[i - 1].pc) || row->kind > PROF_CFA_END ||
		    row->rbp > 0 || (row->kind == PROF_CFA_PLT && row->cfa > 15))
			abort();
	}
	cfi_rows_free(r);
	elf_end(elf);
	free(image);
	return 0;
}
