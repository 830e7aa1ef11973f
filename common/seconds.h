/*
 * Times written as decimal seconds, "12.345678": perf script's event lines
 * (docs/FORMATS.md section 2) and the time lines of timed folded stacks
 * (section 3) say them so.  Kept in nanoseconds, exactly.  And the
 * durations options take.
 */
#ifndef PROF_SECONDS_H
#define PROF_SECONDS_H

#include <stdbool.h>
#include <stdint.h>

/* Reads digits, then optionally '.' and 1 to 9 more, from s (not past
 * end) into *ns.  Returns where the number ends, or NULL when there is
 * none or it passes UINT64_MAX nanoseconds. */
const char *seconds_parse(const char *s, const char *end, uint64_t *ns);

/* A duration with its unit, "10ms", "1.5s" (ns, us, ms or s), as the
 * programs' options take it, into *ns; false when it is not one. */
bool duration_parse(const char *arg, uint64_t *ns);

#endif
