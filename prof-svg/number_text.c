#include "number_text.h"

#include <math.h>

char *number_digits(char *end, unsigned long long n)
{
	do
		*--end = (char)('0' + n % 10);
	while (n /= 10);
	return end;
}

void put_int(FILE *f, long n)
{
	char buf[24], *end = buf + sizeof(buf), *p;
	unsigned long long u = n < 0 ? 0ull - (unsigned long long)n : (unsigned long long)n;

	p = number_digits(end, u);
	if (n < 0)
		*--p = '-';
	fwrite(p, 1, (size_t)(end - p), f);
}

void put_fixed(FILE *f, double v, int decimals)
{
	static const double scale[] = { 1, 10, 100, 1000 };
	char buf[40], *end = buf + sizeof(buf), *p = end;
	double s, frac;
	unsigned long long n;

	/* v * 10^d is within 1.2e-7 of the exact product below 1e9 (half
	 * an ulp, twice over): a fraction that far from a half rounds the
	 * same way as printf's exact decimal expansion does.  Ties, and
	 * what is near one, are printf's (it rounds them to even). */
	s = decimals >= 0 && decimals <= 3 ? v * scale[decimals] : NAN;
	frac = s - floor(s);
	if (!(s >= 0 && s < 1e9) || signbit(v) || fabs(frac - 0.5) < 1e-6) {
		fprintf(f, "%.*f", decimals, v);
		return;
	}
	n = (unsigned long long)(frac > 0.5 ? floor(s) + 1 : floor(s));
	for (int i = 0; i < decimals; i++, n /= 10)
		*--p = (char)('0' + n % 10);
	if (decimals)
		*--p = '.';
	p = number_digits(p, n);
	fwrite(p, 1, (size_t)(end - p), f);
}

void put_g15(FILE *f, double v)
{
	char buf[24], *end = buf + sizeof(buf), *p;

	/* A whole number of at most 15 digits is written as one, which is
	 * what %.15g does with it; anything else is printf's. */
	if (!(v >= 0 && v < 1e15 && v == floor(v)) || signbit(v)) {
		fprintf(f, "%.15g", v);
		return;
	}
	p = number_digits(end, (unsigned long long)v);
	fwrite(p, 1, (size_t)(end - p), f);
}
