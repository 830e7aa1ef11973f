/*
 * Counts that are durations.  A count name (the input's "# count: UNIT" or
 * --countname) of nanoseconds, microseconds, milliseconds or seconds (ns,
 * us, ms, s) makes prof-svg show counts as times, each in the unit that
 * keeps 1 to 3 digits before the point, rounded to 3 significant digits
 * and without trailing zeros: "420 ns", "850 us", "12.3 ms", "1.52 s",
 * "2 s" (whole seconds past 999).  The graph's
 * script writes its search totals so too (fmtTime in flamegraph.js, which
 * must stay the same computation).
 */
#ifndef PROF_SVG_TIME_TEXT_H
#define PROF_SVG_TIME_TEXT_H

#include <stddef.h>

/* The nanoseconds in one count named countname, or 0 if it is no time. */
double time_unit_ns(const char *countname);

/* Writes ns nanoseconds as a time: "1.52 s". */
void time_format(char *buf, size_t size, double ns);

#endif
