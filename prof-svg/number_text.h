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

#include <stdio.h>

/* printf's "%.Nf" of v, for decimals 0 to 3. */
void put_fixed(FILE *f, double v, int decimals);

/* printf's "%.15g" of v. */
void put_g15(FILE *f, double v);

/* printf's "%d" of n. */
void put_int(FILE *f, long n);

/* The digits of n, most significant first, ending at end (20 bytes at
 * most); returns where they start. */
char *number_digits(char *end, unsigned long long n);

#endif
