#include "count_unit.h"

#include <string.h>

#include "offcpu_words.h"

/* Whether the '+'-separated list ev names event. */
static bool names_event(struct cap_str ev, const char *event)
{
	const char *p = ev.s, *end = ev.s + ev.len;
	size_t n = strlen(event);

	for (;;) {
		const char *plus = memchr(p, '+', (size_t)(end - p));
		const char *stop = plus ? plus : end;

		if ((size_t)(stop - p) == n && memcmp(p, event, n) == 0)
			return true;
		if (!plus)
			return false;
		p = plus + 1;
	}
}

struct count_unit count_unit_of(const struct cap_info *info)
{
	struct count_unit u = { names_event(info->event, EVENT_OFF_CPU), info->period };

	/* A frequency above 2 GHz rounds to a period of 0: unknown too. */
	if (!u.period_ns && info->freq)
		u.period_ns = (1000000000u + info->freq / 2) / info->freq;
	return u;
}

enum count_status count_of(const struct count_unit *u, const struct cap_sample *smp,
			   uint64_t *count)
{
	*count = smp->count;
	if (smp->kind == CAP_OFF_CPU) {
		if (!u->nanoseconds)
			return COUNT_OFF_CPU_UNEXPECTED;
		*count = smp->weight;
		return COUNT_OK;
	}
	if (!u->nanoseconds)
		return COUNT_OK;
	if (!u->period_ns)
		return COUNT_NO_PERIOD;
	if (__builtin_mul_overflow(smp->count, u->period_ns, count)) {
		*count = UINT64_MAX;
		return COUNT_SATURATED;
	}
	return COUNT_OK;
}

