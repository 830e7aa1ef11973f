/*
 * Numbers in the SVG, written as printf writes them ("%.1f", "%.2f",
 * "%.15g") and byte for byte the same, without its cost: a frame's
 * coordinates and share were a fifth of prof-svg's time on a real host's
 * profile, most of it glibc's exact decimal conversion.  Values where a
 * quick conversion could round otherwise (near a tie, large, negative,
 * not finite) are left to printf.
 */
#ifndef PROF_SVG_NUMBER_TEXT_H
#define PROF_SVG_NUMBER_TEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The longest text of a number below: printf's "%.3f" of the largest
 * double (309 digits, a sign, a point and three decimals). */
#define NUMBER_TEXT_MAX 320

/* Each writes its text to buf (NUMBER_TEXT_MAX bytes), unterminated, and
 * returns its length; put_* write it to f.  A frame's numbers are made
 * in a buffer of its own and written at once: a stdio call for each was
 * a fifth of prof-svg's time on a busy host's fold. */

/* printf's "%.Nf" of v, for decimals 0 to 3. */
size_t fixed_text(char *buf, double v, int decimals);
void put_fixed(FILE *f, double v, int decimals);

/* printf's "%.15g" of v. */
size_t g15_text(char *buf, double v);
void put_g15(FILE *f, double v);

/* printf's "%d" of n. */
size_t int_text(char *buf, long n);
void put_int(FILE *f, long n);

/* snprintf() of a number's format to buf. */
size_t number_printf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The digits of n, most significant first, ending at end (20 bytes at
 * most); returns where they start. */
char *number_digits(char *end, unsigned long long n);

#endif
