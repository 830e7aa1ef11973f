/*
 * The first line of symbolized frames (docs/FORMATS.md section 2),
 * "# prof-symbolize frames v1": prof-symbolize writes it, and a reader
 * (prof-fold) knows the input by it and refuses a version it does not
 * know.
 */
#ifndef PROF_FRAMES_HEADER_H
#define PROF_FRAMES_HEADER_H

#include <stddef.h>
#include <stdio.h>

enum frames_header {
	FRAMES_HEADER_NONE,    /* not symbolized frames */
	FRAMES_HEADER_KNOWN,   /* of the version this code writes */
	FRAMES_HEADER_UNKNOWN, /* of another version */
};

/* What the text at s (an input's start, or one line) begins with. */
enum frames_header frames_header_parse(const char *s, size_t len);

void frames_header_write(FILE *out);

#endif
