/*
 * Turning capture records into symbolized frames (docs/FORMATS.md section 2),
 * one record at a time so output starts before the input ends.
 */
#ifndef PROF_SYMBOLIZE_SYMBOLIZER_H
#define PROF_SYMBOLIZE_SYMBOLIZER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "capture.h"
#include "htab.h"
#include "kernel_syms.h"
#include "modules.h"

struct symbolizer {
	FILE *out;
	struct kernel_syms ksyms;
	struct modules modules;
	struct htab *stacks;  /* stack id -> struct stack */
	struct htab *threads; /* tid -> comm */
	struct htab *procs;   /* pid -> struct proc */
	struct htab *text;    /* (pid, generation, stack id) -> formatted frames */
	char event[64];
	bool have_info, have_end;
	struct cap_end end;
	uint64_t samples, frames, unresolved;
	uint64_t lost[CAP_LOSS_MAX];
};

void symbolizer_init(struct symbolizer *s, FILE *out);
void symbolizer_free(struct symbolizer *s);

/* Handles one record; SAMPLE records produce output. */
void symbolizer_record(struct symbolizer *s, const struct cap_record *rec);

/* Writes the closing comment lines (totals, losses). */
void symbolizer_finish(struct symbolizer *s);

#endif
