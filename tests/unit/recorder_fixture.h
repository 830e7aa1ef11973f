/*
 * The fixture of prof-sample's unit tests that write a capture: a recorder
 * writing to memory, asking the process table of processes, whose files
 * come by path from the reader (there is no opener), as the session wires
 * them.  read_back() reads the capture with prof-symbolize's reader.
 */
#ifndef RECORDER_FIXTURE_H
#define RECORDER_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "elf_files.h"
#include "mapped_files.h"
#include "processes.h"
#include "recorder.h"
#include "unit.h"
#include "unwind.h"

struct fixture {
	FILE *capture;
	char *buf;
	size_t len;
	struct recorder *rec;
	struct mapped_files files;
	struct processes ps;
	struct elf_files *elves;       /* for the tests that unwind, */
	struct unwinder *u;            /* with an unwinder reading them */
	uint32_t counts[CAP_FORK + 1]; /* records read back, by type */
	uint32_t first[CAP_FORK + 1];  /* index of each type's first record */
};

static inline void fixture_init(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->capture = open_memstream(&f->buf, &f->len);
	f->rec = recorder_new(NULL, &f->ps, false);
	recorder_next_file(f->rec, f->capture, "memory");
	mapped_files_init(&f->files, NULL);
	mapped_files_start_reader(&f->files);
	processes_init(&f->ps, &f->files);
}

static inline void fixture_free(struct fixture *f)
{
	unwinder_free(f->u);
	if (f->elves)
		elf_files_free(f->elves);
	processes_free(&f->ps);
	recorder_free(f->rec);
	mapped_files_free(&f->files);
	fclose(f->capture);
	free(f->buf);
}

/* Reads the capture back, counting records by type; calls each() on each. */
static inline void read_back(struct fixture *f, void (*each)(const struct cap_record *, void *),
			     void *ctx)
{
	struct cap_reader r;
	struct cap_record rec;
	uint32_t i = 0;
	FILE *in;

	CHECK(recorder_flush(f->rec));
	in = fmemopen(f->buf, f->len, "r");
	CHECK_INT(capr_open(&r, in), CAPR_OK);
	while (capr_next(&r, &rec) == CAPR_OK) {
		if (rec.type <= CAP_FORK) {
			if (!f->counts[rec.type]++)
				f->first[rec.type] = i;
		}
		if (each)
			each(&rec, ctx);
		i++;
	}
	capr_free(&r);
	fclose(in);
}

#endif
