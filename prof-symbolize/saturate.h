/*
 * Totals that stop at UINT64_MAX rather than wrap: a capture's counts and
 * weights are what its writer claims, and a hostile one may claim any.
 */
#ifndef PROF_SYMBOLIZE_SATURATE_H
#define PROF_SYMBOLIZE_SATURATE_H

#include <stdint.h>

static inline uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

#endif
