/*
 * The source line of an instruction of a CPython code object, from the
 * code object's line table (co_linetable): 3.10's pairs of address and
 * line deltas (PEP 626), 3.11's location table (CPython's
 * Objects/locations.md).
 */
#ifndef PROF_SAMPLE_PYTHON_LINES_H
#define PROF_SAMPLE_PYTHON_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* The line of the instruction `at` bytes into the code of a function
 * whose first line is `first`, by the table[0..len) of interpreter
 * version v (enum py_version); 0 if the table does not say (no line there,
 * or a table cut short or corrupt). */
int32_t python_line(uint32_t v, const uint8_t *table, size_t len, int32_t first, uint64_t at);

#endif
