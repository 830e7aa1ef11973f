/*
 * What an input is, from its first bytes, so that a file given to the wrong
 * stage is named, with what to run on it, rather than reported line by line
 * as unparsable.
 */
#ifndef PROF_INPUT_KIND_H
#define PROF_INPUT_KIND_H

#include <stddef.h>

enum input_kind {
	INPUT_OTHER,
	INPUT_CAPTURE,	 /* prof-sample's binary capture */
	INPUT_PERF_DATA, /* perf record's perf.data */
	INPUT_SVG,	 /* an SVG, or any XML document */
	INPUT_FRAMES,	 /* prof-symbolize's symbolized frames */
};

enum input_kind input_kind(const char *buf, size_t len);

/* "a capture of prof-sample: run prof-symbolize on it first", and so on;
 * NULL for INPUT_OTHER. */
const char *input_kind_hint(enum input_kind k);

#endif
