/*
 * The capture as a pprof profile (docs/FORMATS.md section 6): a sink of
 * the symbolizer that builds the profile as samples come, and writes it,
 * gzip-compressed, as it goes and when the capture ends.
 */
#ifndef PROF_SYMBOLIZE_PPROF_SINK_H
#define PROF_SYMBOLIZE_PPROF_SINK_H

#include <stdio.h>

#include "symbolizer.h"

struct sink *pprof_sink_new(FILE *out, const struct symbolize_opts *opt);

/* The profile a sink of pprof_sink_new builds: for a test to lower the
 * bounds of what it holds. */
struct pprof *pprof_sink_profile(struct sink *k);

#endif
