/*
 * What an event line's count is (docs/FORMATS.md section 2): samples in an
 * on-CPU capture; nanoseconds in an off-CPU or wall capture, where a block
 * weighs the time its thread was switched out and an on-CPU sample the
 * sampling period, so that both add up in one graph.
 */
#ifndef PROF_SYMBOLIZE_COUNT_UNIT_H
#define PROF_SYMBOLIZE_COUNT_UNIT_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"

struct count_unit {
	bool nanoseconds;   /* INFO's event names offcpu-time */
	uint64_t period_ns; /* an on-CPU sample's weight then; 0 if unknown */
};

/* The unit INFO's event and sampling rate give. */
struct count_unit count_unit_of(const struct cap_info *info);

enum count_status {
	COUNT_OK,
	/* count × period passed 2^64-1 nanoseconds (584 years): the count
	 * is UINT64_MAX. */
	COUNT_SATURATED,
	/* Not to be written: an on-CPU sample when nanoseconds are counted
	 * and INFO gives no sampling period, or an off-CPU one in a capture
	 * INFO says is on-CPU only (its count would be in neither unit). */
	COUNT_NO_PERIOD,
	COUNT_OFF_CPU_UNEXPECTED,
};

/* The count of smp's event line, in *count. */
enum count_status count_of(const struct count_unit *u, const struct cap_sample *smp,
			   uint64_t *count);

#endif
