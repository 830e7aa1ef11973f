#include "time_text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double time_unit_ns(const char *countname)
{
	static const struct {
		const char *name, *abbr;
		double ns;
	} units[] = {
		{ "nanoseconds", "ns", 1 },
		{ "microseconds", "us", 1e3 },
		{ "milliseconds", "ms", 1e6 },
		{ "seconds", "s", 1e9 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++)
		if (!strcmp(countname, units[i].name) || !strcmp(countname, units[i].abbr))
			return units[i].ns;
	return 0;
}

void time_format(char *buf, size_t size, double ns)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	static const long long scale[] = { 1, 10, 100 };
	double v = ns, n = 0;

	if (!(v > 0)) {
		snprintf(buf, size, "0 s");
		return;
	}
	/* Rounded before the unit is chosen, so that 999.7 ns is 1 us; one
	 * product rounded by round(), never a fused v * p + 0.5, so that the
	 * script's Math.round() gets the same digits. */
	for (int u = 0; u < 4; u++, v /= 1000) {
		for (int d = 2; d >= 0; d--) {
			n = round(v * (double)scale[d]);
			if (n >= 1000)
				continue;
			long long whole = (long long)n / scale[d], frac = (long long)n % scale[d];
			for (; d && frac % 10 == 0; d--)
				frac /= 10;
			if (d)
				snprintf(buf, size, "%lld.%0*lld %s", whole, d, frac, unit[u]);
			else
				snprintf(buf, size, "%lld %s", whole, unit[u]);
			return;
		}
	}
	snprintf(buf, size, "%.0f s", n); /* n: the whole seconds */
}
