#include "number_text.h"

#include <math.h>

char *number_digits(char *end, unsigned long long n)
{
	do
		*--end = (char)('0' + n % 10);
	while (n /= 10);
	return end;
}

size_t int_text(char *buf, long n)
{
	char tmp[24], *end = tmp + sizeof(tmp), *p;
	unsigned long long u = n < 0 ? 0ull - (unsigned long long)n : (unsigned long long)n;

	p = number_digits(end, u);
	if (n < 0)
		*--p = '-';
	memcpy(buf, p, (size_t)(end - p));
	return (size_t)(end - p);
}

size_t fixed_text(char *buf, double v, int decimals)
{
	static const double scale[] = { 1, 10, 100, 1000 };
	char tmp[NUMBER_TEXT_MAX], *end = tmp + sizeof(tmp), *p = end;
	double s, frac;
	unsigned long long n;

	/* v * 10^d is within 1.2e-7 of the exact product below 1e9 (half
	 * an ulp, twice over): a fraction that far from a half rounds the
	 * same way as printf's exact decimal expansion does.  Ties, and
	 * what is near one, are printf's (it rounds them to even). */
	s = decimals >= 0 && decimals <= 3 ? v * scale[decimals] : NAN;
	frac = s - floor(s);
	if (!(s >= 0 && s < 1e9) || signbit(v) || fabs(frac - 0.5) < 1e-6)
		return number_printf(buf, "%.*f", decimals, v);
	n = (unsigned long long)(frac > 0.5 ? floor(s) + 1 : floor(s));
	for (int i = 0; i < decimals; i++, n /= 10)
		*--p = (char)('0' + n % 10);
	if (decimals)
		*--p = '.';
	p = number_digits(p, n);
	memcpy(buf, p, (size_t)(end - p));
	return (size_t)(end - p);
}

size_t g15_text(char *buf, double v)
{
	char tmp[24], *end = tmp + sizeof(tmp), *p;

	/* A whole number of at most 15 digits is written as one, which is
	 * what %.15g does with it; anything else is printf's. */
	if (!(v >= 0 && v < 1e15 && v == floor(v)) || signbit(v))
		return number_printf(buf, "%.15g", v);
	p = number_digits(end, (unsigned long long)v);
	memcpy(buf, p, (size_t)(end - p));
	return (size_t)(end - p);
}

size_t number_printf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, NUMBER_TEXT_MAX, fmt, ap);
	va_end(ap);
	/* (Longer: a double "%.3f" of 1e308 and more, which no coordinate
	 * or share is; cut rather than overrun.) */
	return n < 0 ? 0 : (size_t)n < NUMBER_TEXT_MAX ? (size_t)n : NUMBER_TEXT_MAX - 1;
}

void put_int(FILE *f, long n)
{
	char buf[NUMBER_TEXT_MAX];

	fwrite(buf, 1, int_text(buf, n), f);
}

void put_fixed(FILE *f, double v, int decimals)
{
	char buf[NUMBER_TEXT_MAX];

	fwrite(buf, 1, fixed_text(buf, v, decimals), f);
}

void put_g15(FILE *f, double v)
{
	char buf[NUMBER_TEXT_MAX];

	fwrite(buf, 1, g15_text(buf, v), f);
}
