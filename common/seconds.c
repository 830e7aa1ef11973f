#include "seconds.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"

const char *seconds_parse(const char *s, const char *end, uint64_t *ns)
{
	uint64_t v = 0, frac = 0;
	int decimals = 0;
	const char *p = s;

	for (; p < end && is_digit(*p); p++)
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v))
			return NULL;
	if (p == s)
		return NULL;
	if (p < end && *p == '.') {
		for (p++; p < end && is_digit(*p); p++) {
			if (++decimals > 9)
				return NULL;
			frac = frac * 10 + (uint64_t)(*p - '0');
		}
		if (!decimals)
			return NULL;
	}
	for (; decimals < 9; decimals++)
		frac *= 10;
	if (__builtin_mul_overflow(v, 1000000000u, &v) || __builtin_add_overflow(v, frac, &v))
		return NULL;
	*ns = v;
	return p;
}

bool duration_parse(const char *arg, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	char *end;
	double v = strtod(arg, &end);

	for (size_t i = 0; end != arg && i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].unit) == 0 && isfinite(v) && v >= 0 &&
		    v * units[i].ns < 1e18) {
			*ns = (uint64_t)(v * units[i].ns + 0.5);
			return true;
		}
	return false;
}
