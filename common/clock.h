/*
 * The one clock of a capture, and of the helpers' timeouts:
 * CLOCK_MONOTONIC, in nanoseconds.  Sample times are counted from its
 * value at the capture's start.
 */
#ifndef PROF_CLOCK_H
#define PROF_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
