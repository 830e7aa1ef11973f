/*
 * The capture as a pprof profile (docs/FORMATS.md section 6): a sink of
 * the symbolizer that builds the profile as samples come, and writes it,
 * gzip-compressed, when the capture ends.
 */
#ifndef PROF_SYMBOLIZE_PPROF_SINK_H
#define PROF_SYMBOLIZE_PPROF_SINK_H

#include <stdio.h>

#include "symbolizer.h"

struct sink *pprof_sink_new(FILE *out, const struct symbolize_opts *opt);

#endif
