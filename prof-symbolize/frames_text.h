/*
 * The symbolized frames of docs/FORMATS.md section 2, perf script's form:
 * a sink of the symbolizer.
 */
#ifndef PROF_SYMBOLIZE_FRAMES_TEXT_H
#define PROF_SYMBOLIZE_FRAMES_TEXT_H

#include <stdio.h>

#include "symbolizer.h"

/* A sink writing frames to out, starting with their header line, as
 * opt's demangle, lines and cgroup say. */
struct sink *frames_text_new(FILE *out, const struct symbolize_opts *opt);

#endif
